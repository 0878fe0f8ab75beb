// Reading the API's query parameters: integers and milliseconds in range,
// booleans, hex ids, comma lists, and the rule that every route answers 400
// to a parameter it does not know (a typo such as `sesion=` must not answer
// 200 for another session). Every error names the parameter.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "history/api/query_params.h"

namespace rayagg::history {

absl::StatusOr<int64_t> ParseIntParam(std::string_view name, std::string_view text, int64_t min,
                                      int64_t max);
// The parameter's integer value, `fallback` when absent.
absl::StatusOr<int64_t> IntParam(const QueryParams& params, std::string_view name, int64_t fallback,
                                 int64_t min, int64_t max);
// Non-negative milliseconds (fractions allowed) up to what int64 ns hold.
absl::StatusOr<double> ParseMillisParam(std::string_view name, std::string_view text);
// "1"/"true" or "0"/"false" (any case); `fallback` when absent.
absl::StatusOr<bool> BoolParam(const QueryParams& params, std::string_view name, bool fallback);
// A required hex id, lowercased.
absl::StatusOr<std::string> HexIdParam(const QueryParams& params, std::string_view name);
// Every value of `name`, split at commas, empty pieces dropped.
std::vector<std::string> CommaListParam(const QueryParams& params, std::string_view name);

// The client's own text as it may be echoed in an answer: at most
// `max_chars`, printable ASCII only ('?' for anything else).
std::string PrintableText(std::string_view text, size_t max_chars = 64);

// 400 naming the first parameter that is not in `known`.
absl::Status RequireKnownParams(const QueryParams& params,
                                std::initializer_list<std::string_view> known);
absl::Status RequireKnownParams(const QueryParams& params,
                                const std::vector<std::string_view>& known);

}  // namespace rayagg::history
