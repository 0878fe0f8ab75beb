#include "sinks/rules/sink_url.h"

#include "common/text.h"

namespace rayagg {

namespace {

absl::Status Invalid(std::string_view url, std::string_view why) {
  return absl::InvalidArgumentError(strings::Cat(why, "; got \"", RedactUrl(url), "\""));
}

// http:// URLs follow the HTTP client's own parser, so a URL that passes
// config validation never fails when the sink starts.
absl::StatusOr<SinkUrl> ParseHttp(std::string_view url) {
  absl::StatusOr<Url> http = ParseUrl(url);
  if (!http.ok()) return http.status();
  SinkUrl parsed;
  parsed.kind = SinkUrl::Kind::kHttp;
  parsed.http = *std::move(http);
  return parsed;
}

absl::StatusOr<SinkUrl> ParseFile(std::string_view url, std::string_view rest) {
  // Only the empty authority is accepted: file://host/path names another
  // machine, and file://relative/path is a common typo for a relative path.
  if (!rest.starts_with('/') || rest.size() < 2) {
    return Invalid(url,
                   "file URL needs an absolute path, e.g. file:///var/log/ray-events.jsonl or "
                   "file:///dev/stdout");
  }
  SinkUrl parsed;
  parsed.kind = SinkUrl::Kind::kFile;
  parsed.path = std::string(rest);
  return parsed;
}

}  // namespace

absl::StatusOr<SinkUrl> ParseSinkUrl(std::string_view url) {
  if (url.empty()) {
    return absl::InvalidArgumentError(
        "must not be empty; use http://host:port/path or file:///path");
  }
  const size_t scheme_end = url.find("://");
  const std::string scheme =
      scheme_end == std::string_view::npos ? "" : strings::ToLower(url.substr(0, scheme_end));
  const std::string_view rest =
      scheme_end == std::string_view::npos ? "" : url.substr(scheme_end + 3);
  if (scheme == "http" || scheme == "https") return ParseHttp(url);
  // The file sink matches "file://" exactly, so only the lowercase scheme works.
  if (url.starts_with("file://")) return ParseFile(url, rest);
  return Invalid(url, "URL must start with http://, https:// or file://");
}

}  // namespace rayagg
