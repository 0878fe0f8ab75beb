#include "http/accept_encoding.h"

#include <charconv>
#include <optional>
#include <string>

#include "common/text.h"

namespace rayagg {
namespace {

// The weight of one element ("gzip;q=0.5"): 1 without q, 0 for a malformed
// q (a sender that garbles it gets the safe answer: identity).
double CodingWeight(std::string_view parameters) {
  double weight = 1;
  size_t start = 0;
  while (start <= parameters.size()) {
    size_t end = parameters.find(';', start);
    if (end == std::string_view::npos) end = parameters.size();
    const std::string_view parameter = strings::StripBlanks(parameters.substr(start, end - start));
    if (parameter.size() >= 2 && (parameter[0] == 'q' || parameter[0] == 'Q') &&
        parameter[1] == '=') {
      const std::string value(strings::StripBlanks(parameter.substr(2)));
      double parsed = 0;
      const auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      weight = error == std::errc() && rest == value.data() + value.size() ? parsed : 0;
    }
    start = end + 1;
  }
  return weight;
}

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  std::optional<double> gzip, any;
  size_t start = 0;
  while (start < accept_encoding.size()) {
    size_t end = accept_encoding.find(',', start);
    if (end == std::string_view::npos) end = accept_encoding.size();
    const std::string_view element = accept_encoding.substr(start, end - start);
    const size_t semicolon = element.find(';');
    const std::string coding = strings::ToLower(strings::StripBlanks(element.substr(0, semicolon)));
    const double weight =
        semicolon == std::string_view::npos ? 1 : CodingWeight(element.substr(semicolon + 1));
    if (coding == "gzip" || coding == "x-gzip") gzip = weight;
    if (coding == "*") any = weight;
    start = end + 1;
  }
  if (gzip) return *gzip > 0;
  return any.value_or(0) > 0;
}

}  // namespace rayagg
