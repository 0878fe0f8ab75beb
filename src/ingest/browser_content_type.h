// The request content types a web page may POST to any origin without
// asking (no CORS preflight: an HTML form's enctypes, and what fetch()
// sends as a "simple" request): text/plain,
// application/x-www-form-urlencoded and multipart/form-data. HTTP ingest
// refuses them (415), so that no page open in a browser on the same machine
// can forge events into a loopback listener (docs/SECURITY.md). Ray's
// publishers send application/json.
#pragma once

#include <string_view>

namespace rayagg {

// Whether a Content-Type header value names one of those media types
// (case-insensitive, parameters and blanks around them ignored).
bool IsCrossSiteFormContentType(std::string_view content_type);

}  // namespace rayagg
