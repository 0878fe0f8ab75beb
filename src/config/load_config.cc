#include "config/load_config.h"

#include "common/small_file.h"
#include "common/text.h"
#include "config/object_sink_config.h"
#include "config/problems.h"
#include "config/ray_auth.h"
#include "config/ray_environment.h"
#include "config/token_file.h"
#include "config/validate_config.h"

namespace rayagg {

namespace {

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  // Bounded, and only a regular file: --config naming a huge file, a
  // directory, /dev/zero or a FIFO by mistake is an error, not an endless
  // read or wait. The message starts with the path.
  absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxConfigFileBytes);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        strings::Cat("config file ", text.status().message()));
  }
  return text;
}

// "path: " before every line, so each problem reads like a compiler error.
absl::Status PrefixLines(const absl::Status& status, std::string_view prefix) {
  std::vector<std::string> lines;
  for (std::string_view line : strings::Split(strings::View(status.message()), '\n')) {
    lines.push_back(strings::Cat(prefix, ": ", line));
  }
  return absl::Status(status.code(), strings::Join(lines, "\n"));
}

absl::Status ApplyFlags(const CommandLine& cli, Config& config) {
  if (cli.grpc_address.has_value()) config.grpc.address = *cli.grpc_address;
  if (cli.grpc_port.has_value()) config.grpc.port = *cli.grpc_port;
  if (cli.http_address.has_value()) config.http_ingest.address = *cli.http_address;
  if (cli.http_port.has_value()) {
    config.http_ingest.port = *cli.http_port;
    config.http_ingest.enabled = true;
  }
  if (cli.log_level.has_value()) {
    const std::string level = strings::ToLower(*cli.log_level);
    if (!IsLogLevel(level)) {
      return absl::InvalidArgumentError(strings::Cat("--log-level: must be one of ",
                                                     strings::Join(kLogLevels, ", "), "; got \"",
                                                     *cli.log_level, "\""));
    }
    config.log.level = level;
  }
  if (cli.http_port_file.has_value() && !config.http_ingest.enabled) {
    return absl::InvalidArgumentError(
        "--http-port-file: HTTP ingest is not enabled (set http_ingest.enabled or --http-port)");
  }
  if (cli.ops_port.has_value()) {
    config.ops.port = *cli.ops_port;
    config.ops.enabled = true;
  }
  if (cli.ops_address.has_value()) config.ops.address = *cli.ops_address;
  if (cli.spool_dir.has_value()) config.spool.dir = *cli.spool_dir;
  if (cli.ops_port_file.has_value() && !config.ops.enabled) {
    return absl::InvalidArgumentError(
        "--ops-port-file: the ops listener is not enabled (set ops.enabled or --ops-port)");
  }
  return absl::OkStatus();
}

// Replaces each ${NAME} in constant label values with the variable's value
// ("" when unset, with a warning). Anything else is kept as written.
void ExpandLabelValues(const Environment& env, Config& config, std::vector<std::string>& warnings) {
  for (auto& [name, value] : config.ops.constant_labels) {
    std::string expanded;
    size_t pos = 0;
    while (pos < value.size()) {
      const size_t start = value.find("${", pos);
      const size_t end = start == std::string::npos ? start : value.find('}', start + 2);
      if (end == std::string::npos) {
        expanded.append(value, pos);
        break;
      }
      expanded.append(value, pos, start - pos);
      const std::string variable = value.substr(start + 2, end - start - 2);
      if (std::optional<std::string> set = env.Get(variable); set.has_value()) {
        expanded += *set;
      } else {
        warnings.push_back(strings::Cat("ops.constant_labels.", name, ": environment variable ",
                                        variable, " is not set; using \"\""));
      }
      pos = end + 1;
    }
    value = std::move(expanded);
  }
}

// Legal but probably not what the user wanted.
void AddSinkWarnings(const Config& config, std::vector<std::string>& warnings) {
  if (config.sinks.empty()) {
    warnings.push_back(
        strings::Cat("no sinks are configured: events are received and then dropped (add sinks to "
                     "the config file or set ",
                     kRayEnvPrefix, ray_env::kEventsExportAddr, ")"));
  }
  for (const SinkConfig& sink : config.sinks) {
    if (sink.event_types.accepts_none()) {
      warnings.push_back(
          strings::Cat("sink \"", sink.name, "\" exports nothing: its event type list is empty"));
    }
  }
}

// http_ingest.bearer_token_file: read at every load, so SIGHUP (which loads
// the config again) picks up a rotated token. Errors name the key and the
// file, never the content; the token goes into an Authorization header, so
// it is one word.
absl::Status ReadHttpIngestToken(HttpIngestConfig& http) {
  http.bearer_token.clear();
  if (http.bearer_token_file.empty()) return absl::OkStatus();
  constexpr std::string_view kKey = "http_ingest.bearer_token_file: ";
  absl::StatusOr<std::string> token =
      ReadTokenFile(http.bearer_token_file, {.unreadable = kKey, .named = kKey, .one_word = true});
  if (!token.ok()) return token.status();
  http.bearer_token = *std::move(token);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoadedConfig> LoadConfig(const CommandLine& cli, const Environment& env) {
  LoadedConfig loaded;
  if (cli.config_path.has_value()) {
    absl::StatusOr<std::string> text = ReadConfigFile(*cli.config_path);
    if (!text.ok()) return text.status();
    absl::StatusOr<Config> parsed = ParseConfigYaml(*text);
    if (!parsed.ok()) return PrefixLines(parsed.status(), *cli.config_path);
    loaded.config = *std::move(parsed);
  }
  ApplyRayEnvironment(env, loaded.config, loaded.warnings);
  ApplyObjectSinkEnvironment(env, loaded.config);
  if (absl::Status status = ApplyRayAuth(env, loaded.config.ingest_auth); !status.ok()) {
    return status;
  }
  if (absl::Status status = ApplyFlags(cli, loaded.config); !status.ok()) return status;
  ExpandLabelValues(env, loaded.config, loaded.warnings);
  if (absl::Status status = ReadHttpIngestToken(loaded.config.http_ingest); !status.ok()) {
    return status;
  }

  // The file was validated and the environment and flags only store checked
  // values, so this guards against a bug in those steps, not user input.
  Problems problems;
  for (size_t i = 0; i < loaded.config.sinks.size(); ++i) {
    if (IsObjectStoreSinkUrl(loaded.config.sinks[i].url)) {
      ValidateObjectSinkIdentity(loaded.config.sinks[i], strings::Cat("sinks[", i, "]"), problems);
    }
  }
  ValidateConfig(loaded.config, problems);
  if (!problems.empty()) return problems.ToStatus();

  AddSinkWarnings(loaded.config, loaded.warnings);
  return loaded;
}

}  // namespace rayagg
