#include "config/ray_environment.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <span>

#include "common/text.h"
#include "config/event_type_list.h"
#include "config/units.h"
#include "sinks/rules/sink_url.h"

namespace rayagg {

namespace {

// One variable that is set: its full name and raw value.
struct SetVariable {
  std::string name;
  std::string value;
};

// Reads Ray's variables and words the warnings. Holds no state beyond the
// references it was given.
class RayEnvReader {
 public:
  RayEnvReader(const Environment& env, std::vector<std::string>& warnings)
      : env_(env), warnings_(warnings) {}

  std::optional<SetVariable> Get(std::string_view suffix) const {
    std::string name = strings::Cat(kRayEnvPrefix, suffix);
    std::optional<std::string> value = env_.Get(name);
    if (!value.has_value()) return std::nullopt;
    return SetVariable{std::move(name), std::move(*value)};
  }

  // The first spelling that is set. Later spellings with another value are
  // reported, since the user probably expected them to count.
  std::optional<SetVariable> First(std::span<const std::string_view> spellings) {
    std::optional<SetVariable> first;
    for (std::string_view suffix : spellings) {
      std::optional<SetVariable> variable = Get(suffix);
      if (!variable.has_value()) continue;
      if (!first.has_value()) {
        first = std::move(variable);
      } else if (variable->value != first->value) {
        Warn(strings::Cat(variable->name, " is ignored because ", first->name,
                          " is also set (the first spelling wins)"));
      }
    }
    return first;
  }

  void Warn(std::string message) { warnings_.push_back(std::move(message)); }

  void Ignored(const SetVariable& variable, std::string_view why, std::string_view kept) {
    Warn(strings::Cat(variable.name, "=\"", variable.value, "\" ignored: ", why, "; keeping ",
                      kept));
  }

  // env_integer in [min, max]; warns and returns nullopt otherwise.
  std::optional<uint64_t> Integer(const std::optional<SetVariable>& variable, uint64_t min,
                                  uint64_t max, std::string_view kept) {
    if (!variable.has_value()) return std::nullopt;
    const bool digits =
        !variable->value.empty() &&
        std::all_of(variable->value.begin(), variable->value.end(), strings::IsDigit);
    if (!digits) {
      Ignored(*variable, "Ray reads it only if it consists of digits (Ray ignores it too)", kept);
      return std::nullopt;
    }
    std::optional<uint64_t> value = ParseRayEnvInteger(variable->value);
    if (!value.has_value()) {
      Ignored(*variable, "too large", kept);
      return std::nullopt;
    }
    if (*value < min || *value > max) {
      Ignored(*variable,
              max == std::numeric_limits<uint64_t>::max()
                  ? strings::Cat("must be at least ", min,
                                 " (Ray would accept it, this aggregator cannot use it)")
                  : strings::Cat("must be from ", min, " to ", max),
              kept);
      return std::nullopt;
    }
    return value;
  }

  // env_float as a duration in [min, kMaxDuration]; warns otherwise.
  std::optional<Duration> Seconds(const std::optional<SetVariable>& variable, Duration min,
                                  Duration kept) {
    if (!variable.has_value()) return std::nullopt;
    std::optional<double> seconds = ParseRayEnvFloat(variable->value);
    if (!seconds.has_value()) {
      Ignored(*variable, "not a number (Ray ignores it too)", FormatDuration(kept));
      return std::nullopt;
    }
    absl::StatusOr<Duration> duration = DurationFromSeconds(*seconds);
    if (!duration.ok()) {
      Ignored(*variable, strings::View(duration.status().message()), FormatDuration(kept));
      return std::nullopt;
    }
    if (*duration < min) {
      Ignored(*variable, strings::Cat("must be at least ", FormatDuration(min)),
              FormatDuration(kept));
      return std::nullopt;
    }
    return *duration;
  }

 private:
  const Environment& env_;
  std::vector<std::string>& warnings_;
};

void ApplyExposableTypes(RayEnvReader& reader, SinkConfig& sink) {
  std::optional<SetVariable> variable = reader.First(ray_env::kExposableEventTypes);
  if (!variable.has_value()) return;
  RayEventTypeList parsed = ParseRayEventTypeList(variable->value);
  if (!parsed.unknown_names.empty()) {
    reader.Warn(strings::Cat(variable->name,
                             ": unknown event types ignored (Ray never matches them): ",
                             strings::Join(parsed.unknown_names, ", ")));
  }
  sink.event_types = parsed.filter;
}

void ApplyBackoff(RayEnvReader& reader, RetryConfig& retry) {
  const std::optional<SetVariable> initial_var = reader.Get(ray_env::kInitialBackoffSeconds);
  const std::optional<SetVariable> max_var = reader.Get(ray_env::kMaxBackoffSeconds);
  const std::optional<Duration> initial =
      reader.Seconds(initial_var, Duration(1), retry.initial_backoff);
  const std::optional<Duration> max = reader.Seconds(max_var, Duration(1), retry.max_backoff);
  const Duration new_initial = initial.value_or(retry.initial_backoff);
  const Duration new_max = max.value_or(retry.max_backoff);
  if (new_max < new_initial) {
    // Keep the pair consistent by dropping whichever values came from here.
    reader.Warn(strings::Cat("the maximum backoff (", FormatDuration(new_max),
                             ") is below the initial backoff (", FormatDuration(new_initial),
                             "); ignoring ",
                             initial.has_value() && max.has_value()
                                 ? strings::Cat(initial_var->name, " and ", max_var->name)
                                 : (initial.has_value() ? initial_var->name : max_var->name),
                             "; keeping ", FormatDuration(retry.initial_backoff), " to ",
                             FormatDuration(retry.max_backoff)));
    return;
  }
  retry.initial_backoff = new_initial;
  retry.max_backoff = new_max;
}

// Everything below configures only the sink EVENTS_EXPORT_ADDR creates, as
// in Ray, where these variables belong to the HTTP publisher.
void ApplySinkVariables(RayEnvReader& reader, SinkConfig& sink) {
  ApplyExposableTypes(reader, sink);
  if (auto value = reader.Integer(reader.Get(ray_env::kMaxEventSendBatchSize), 1,
                                  std::numeric_limits<uint64_t>::max(),
                                  strings::Cat(sink.batch.max_events))) {
    sink.batch.max_events = *value;
  }
  if (auto value = reader.Seconds(reader.First(ray_env::kSendInterval), Duration(0),
                                  sink.batch.flush_interval)) {
    sink.batch.flush_interval = *value;
  }
  if (auto variable = reader.Get(ray_env::kPreserveProtoFieldName)) {
    sink.preserve_proto_field_names = ParseRayEnvBool(variable->value);
  }
  // Ray reads the timeout with env_integer: "1.5" is ignored, not rounded.
  const auto max_timeout_seconds =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(kMaxDuration).count());
  if (auto value = reader.Integer(reader.Get(ray_env::kTimeoutSeconds), 1, max_timeout_seconds,
                                  FormatDuration(sink.request_timeout))) {
    sink.request_timeout = std::chrono::seconds(*value);
  }
  if (auto value = reader.Integer(reader.Get(ray_env::kMaxRetries), 0,
                                  static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
                                  strings::Cat(sink.retry.max_retries))) {
    sink.retry.max_retries = static_cast<int64_t>(*value);
  }
  ApplyBackoff(reader, sink.retry);
  if (auto variable = reader.Get(ray_env::kJitterRatio)) {
    std::optional<double> ratio = ParseRayEnvFloat(variable->value);
    const std::string kept = sink.retry.jitter_ratio.has_value()
                                 ? strings::Cat(*sink.retry.jitter_ratio)
                                 : std::string("full jitter");
    if (!ratio.has_value()) {
      reader.Ignored(*variable, "not a number (Ray ignores it too)", kept);
    } else if (!(*ratio >= 0.0 && *ratio <= 1.0)) {
      reader.Ignored(*variable, "must be from 0 to 1", kept);
    } else {
      sink.retry.jitter_ratio = *ratio;
    }
  }
}

// Names of the sink-only variables that are set, for the "no effect" warning.
std::vector<std::string> SetSinkVariables(const RayEnvReader& reader) {
  std::vector<std::string_view> suffixes(std::begin(ray_env::kExposableEventTypes),
                                         std::end(ray_env::kExposableEventTypes));
  suffixes.insert(suffixes.end(), std::begin(ray_env::kSendInterval),
                  std::end(ray_env::kSendInterval));
  for (std::string_view suffix :
       {ray_env::kMaxEventSendBatchSize, ray_env::kPreserveProtoFieldName, ray_env::kTimeoutSeconds,
        ray_env::kMaxRetries, ray_env::kInitialBackoffSeconds, ray_env::kMaxBackoffSeconds,
        ray_env::kJitterRatio}) {
    suffixes.push_back(suffix);
  }
  std::vector<std::string> names;
  for (std::string_view suffix : suffixes) {
    if (auto variable = reader.Get(suffix)) names.push_back(variable->name);
  }
  return names;
}

}  // namespace

std::optional<uint64_t> ParseRayEnvInteger(std::string_view value) {
  if (value.empty() || !std::all_of(value.begin(), value.end(), strings::IsDigit))
    return std::nullopt;
  uint64_t result = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), result);
  if (ec != std::errc() || ptr != value.data() + value.size()) return std::nullopt;
  return result;
}

std::optional<double> ParseRayEnvFloat(std::string_view value) {
  std::string_view text = strings::StripBlanks(value);
  // from_chars takes '-' but not '+'.
  if (text.starts_with('+')) {
    text.remove_prefix(1);
    if (text.starts_with('-') || text.starts_with('+')) return std::nullopt;
  }
  // Python allows single '_' between digits ("1_000.5").
  std::string digits;
  digits.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '_') {
      if (i == 0 || i + 1 == text.size() || !strings::IsDigit(text[i - 1]) ||
          !strings::IsDigit(text[i + 1]))
        return std::nullopt;
      continue;
    }
    digits.push_back(text[i]);
  }
  if (digits.empty()) return std::nullopt;
  double result = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result);
  // ERANGE: Python turns overflow into inf and underflow into 0; either way
  // the later range check rejects or accepts it correctly.
  if (ec == std::errc::result_out_of_range) {
    result = strings::ToLower(digits).find("e-") != std::string::npos
                 ? 0.0
                 : std::numeric_limits<double>::infinity();
  } else if (ec != std::errc()) {
    return std::nullopt;
  }
  if (ptr != digits.data() + digits.size()) return std::nullopt;
  return result;
}

bool ParseRayEnvBool(std::string_view value) {
  return strings::ToLower(value) == "true" || value == "1";
}

void ApplyRayEnvironment(const Environment& env, Config& config,
                         std::vector<std::string>& warnings) {
  RayEnvReader reader(env, warnings);

  if (auto value = reader.Integer(reader.Get(ray_env::kMaxEventBufferSize), 1,
                                  std::numeric_limits<uint64_t>::max(),
                                  strings::Cat(config.buffer.max_events))) {
    config.buffer.max_events = *value;
  }

  const std::optional<SetVariable> address = reader.Get(ray_env::kEventsExportAddr);
  const std::optional<SetVariable> publish = reader.First(ray_env::kPublishToHttp);
  const bool has_address = address.has_value() && !address->value.empty();
  const bool publish_enabled = !publish.has_value() || ParseRayEnvBool(publish->value);

  if (has_address && publish_enabled) {
    SinkConfig sink;
    sink.name = std::string(kEnvSinkName);
    sink.url = address->value;
    if (absl::StatusOr<SinkUrl> url = ParseSinkUrl(sink.url); !url.ok()) {
      // Environment problems never stop the daemon, but this one loses every
      // event Ray would have exported, so say so plainly.
      reader.Warn(strings::Cat(address->name, "=\"", RedactUrl(sink.url),
                               "\" is not usable: ", strings::View(url.status().message()),
                               "; NO sink is created from the environment"));
      return;
    }
    ApplySinkVariables(reader, sink);
    config.sinks.push_back(std::move(sink));
    return;
  }

  if (has_address) {
    reader.Warn(strings::Cat(address->name, " is set but ", publish->name, "=\"", publish->value,
                             "\" turns the export off (only \"true\" or \"1\" keep it on)"));
  }
  for (const std::string& name : SetSinkVariables(reader)) {
    reader.Warn(strings::Cat(name, " has no effect: it configures only the sink that ",
                             kRayEnvPrefix, ray_env::kEventsExportAddr,
                             " creates, and there is none"));
  }
}

}  // namespace rayagg
