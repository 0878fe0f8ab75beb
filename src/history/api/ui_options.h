// The `ui:` settings of ray-task-history (docs/HISTORY.md "The page"):
// what GET /api/history/v1/ui tells the page, and what the API redacts.
#pragma once

#include <string>
#include <string_view>

namespace rayagg::history {

inline constexpr std::string_view kDefaultRedactPattern =
    "(?i)secret|token|password|key|credential";

struct UiOptions {
  // ui.grafana_url: where node and worker ids link to; empty: no links.
  // Only an absolute http:// or https:// URL (history_config.cc checks).
  std::string grafana_url{};
  // ui.redact: keys (runtime-env variables, job metadata) whose values the
  // API answers as "•••" (redactor.h).
  std::string redact{kDefaultRedactPattern};
  // ui.show_secrets: answer those values as they are.
  bool show_secrets = false;
};

}  // namespace rayagg::history
