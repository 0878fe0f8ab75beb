// Probe mode (`ray-event-aggregator probe URL`): one GET with a deadline, so a
// container HEALTHCHECK or an exec probe needs no curl in the runtime image.
#pragma once

#include <chrono>
#include <string>

namespace rayagg {

inline constexpr std::chrono::milliseconds kProbeTimeout{5000};

struct ProbeResult {
  bool ok = false;     // the URL answered 2xx within the deadline
  std::string detail;  // one line: "200 OK", "status 503", "connection refused", ...
};

// GETs `url` (http:// only) once; never throws.
ProbeResult Probe(const std::string& url, std::chrono::milliseconds timeout = kProbeTimeout);

}  // namespace rayagg
