#include "ingest/browser_content_type.h"

#include "common/text.h"

namespace rayagg {

bool IsCrossSiteFormContentType(std::string_view content_type) {
  const std::string media =
      strings::ToLower(strings::StripBlanks(content_type.substr(0, content_type.find(';'))));
  return media == "text/plain" || media == "application/x-www-form-urlencoded" ||
         media == "multipart/form-data";
}

}  // namespace rayagg
