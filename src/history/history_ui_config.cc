#include "history/history_ui_config.h"

#include "common/text.h"
#include "common/url.h"
#include "history/api/redactor.h"

namespace rayagg::history {

void ReadUiSection(YamlReader& r, const YAML::Node& node, const std::string& path, UiOptions& ui) {
  r.Map(node, path,
        {{"grafana_url",
          [&](const YAML::Node& v, const std::string& p) {
            std::string url;
            if (!r.String(v, p, url)) return;
            // The page links there (target=_blank, noopener): only a web
            // address, never javascript: or a relative path, and no
            // user:password@ in a link every viewer gets.
            if (!url.empty()) {
              absl::StatusOr<Url> parsed = ParseUrl(url);
              if (!parsed.ok()) {
                r.Fail(v, p,
                       strings::Cat("must be an absolute http:// or https:// URL (",
                                    strings::View(parsed.status().message()), ")"));
                return;
              }
            }
            ui.grafana_url = std::move(url);
          }},
         {"redact",
          [&](const YAML::Node& v, const std::string& p) {
            std::string pattern;
            if (!r.String(v, p, pattern)) return;
            if (absl::StatusOr<Redactor> made = Redactor::Make(pattern); !made.ok()) {
              r.Fail(v, p, strings::View(made.status().message()));
              return;
            }
            ui.redact = std::move(pattern);
          }},
         {"show_secrets",
          [&](const YAML::Node& v, const std::string& p) { r.Bool(v, p, ui.show_secrets); }}});
}

std::string DescribeUiOptions(const UiOptions& ui) {
  return strings::Cat("ui: grafana_url=", ui.grafana_url.empty() ? "(none)" : ui.grafana_url,
                      " redact=", ui.redact, " show_secrets=", ui.show_secrets ? "true" : "false");
}

}  // namespace rayagg::history
