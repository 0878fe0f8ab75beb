// Builds the one validated Config the daemon runs with:
// built-in defaults < YAML file (--config) < Ray's environment < flags.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "config/command_line.h"
#include "config/environment.h"
#include "rayagg/config.h"

namespace rayagg {

struct LoadedConfig {
  Config config;
  // Things worth a WARNING log line: environment values Ray would ignore or
  // this aggregator cannot use, sinks that export nothing, no sinks at all.
  std::vector<std::string> warnings;
};

// The largest --config file read: a config with many sinks is a few KiB, so
// anything near this is a path that names the wrong file.
inline constexpr size_t kMaxConfigFileBytes = 1024 * 1024;

// Errors in the file or the flags are fatal (InvalidArgument / NotFound,
// naming the file, key path or flag); problems in the environment are
// warnings, because Ray ignores them too.
absl::StatusOr<LoadedConfig> LoadConfig(const CommandLine& cli, const Environment& env);

// Parses and validates a YAML (or JSON) document. Unknown keys, wrong types
// and out-of-range values are errors naming the key path and line; all of
// them are reported, one per line. Empty text means all defaults.
absl::StatusOr<Config> ParseConfigYaml(std::string_view yaml_text);

// A few lines for the startup log: listener, buffer, each sink (name, URL
// without credentials, types, batching, retry), log level, drain timeout.
// Lines are separated by "\n", with no newline at the end.
std::string DescribeConfig(const Config& config);

}  // namespace rayagg
