// The `ui:` section of ray-task-history's configuration (docs/HISTORY.md
// "The page"): ui.grafana_url, ui.redact, ui.show_secrets, each checked
// where it is read so that an error names its key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "config/yaml_reader.h"
#include "history/api/ui_options.h"

namespace rayagg::history {

void ReadUiSection(YamlReader& r, const YAML::Node& node, const std::string& path, UiOptions& ui);

// "ui: grafana_url=... redact=... show_secrets=..." for --check-config and
// the startup log.
std::string DescribeUiOptions(const UiOptions& ui);

}  // namespace rayagg::history
