#include "config/command_line.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/text.h"

namespace rayagg {

namespace {

absl::Status ParsePort(std::string_view value, std::optional<uint16_t>& out) {
  unsigned port = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
  if (ec != std::errc() || ptr != value.data() + value.size() || port > 65535) {
    return absl::InvalidArgumentError(
        strings::Cat("must be a port number from 0 to 65535, got \"", value, "\""));
  }
  out = static_cast<uint16_t>(port);
  return absl::OkStatus();
}

absl::Status StorePort(CommandLine& cli, std::string_view value) {
  return ParsePort(value, cli.grpc_port);
}

absl::Status StoreHttpPort(CommandLine& cli, std::string_view value) {
  return ParsePort(value, cli.http_port);
}

absl::Status StoreOpsPort(CommandLine& cli, std::string_view value) {
  return ParsePort(value, cli.ops_port);
}

// One row per flag. Exactly one of the three targets is set: a string
// member (stored verbatim), a parser (checks and stores), or a switch.
struct FlagSpec {
  std::string_view name;             // without "--"
  std::string_view value_name = {};  // empty for a switch
  std::string_view help;
  std::optional<std::string> CommandLine::*string_value = nullptr;
  absl::Status (*parse_value)(CommandLine& cli, std::string_view value) = nullptr;
  bool CommandLine::*switch_value = nullptr;
};

// Adding a flag means adding a row here and a field to CommandLine.
constexpr FlagSpec kFlags[] = {
    {.name = "config",
     .value_name = "PATH",
     .help = "YAML (or JSON) configuration file; without it, built-in defaults",
     .string_value = &CommandLine::config_path},
    {.name = "grpc-address",
     .value_name = "ADDR",
     .help = "address the AddEvents gRPC listener binds (overrides grpc.address)",
     .string_value = &CommandLine::grpc_address},
    {.name = "grpc-port",
     .value_name = "N",
     .help = "gRPC listener port, 0 = the OS picks one (overrides grpc.port)",
     .parse_value = &StorePort},
    {.name = "port-file",
     .value_name = "PATH",
     .help = "once serving, write the bound gRPC port to PATH as plain decimal",
     .string_value = &CommandLine::port_file},
    {.name = "log-level",
     .value_name = "LEVEL",
     .help = "trace, debug, info, warn, error, critical or off (overrides log.level)",
     .string_value = &CommandLine::log_level},
    {.name = "http-address",
     .value_name = "ADDR",
     .help = "address the HTTP JSON ingest listener binds (overrides http_ingest.address)",
     .string_value = &CommandLine::http_address},
    {.name = "http-port",
     .value_name = "N",
     .help = "enable HTTP JSON ingest on port N, 0 = the OS picks one (overrides http_ingest.port)",
     .parse_value = &StoreHttpPort},
    {.name = "http-port-file",
     .value_name = "PATH",
     .help = "once serving, write the bound HTTP ingest port to PATH as plain decimal",
     .string_value = &CommandLine::http_port_file},
    {.name = "ops-port",
     .value_name = "N",
     .help = "serve /metrics, /healthz, /readyz on port N, 0 = the OS picks (enables ops)",
     .parse_value = &StoreOpsPort},
    {.name = "ops-address",
     .value_name = "ADDR",
     .help = "address the ops listener binds (overrides ops.address)",
     .string_value = &CommandLine::ops_address},
    {.name = "ops-port-file",
     .value_name = "PATH",
     .help = "once serving, write the bound ops port to PATH as plain decimal",
     .string_value = &CommandLine::ops_port_file},
    {.name = "spool-dir",
     .value_name = "DIR",
     .help = "keep accepted events in a disk spool in DIR (overrides spool.dir; needs "
             "spool.max_bytes)",
     .string_value = &CommandLine::spool_dir},
    {.name = "check-config",
     .help = "load and validate the configuration, print a summary, and exit",
     .switch_value = &CommandLine::check_config},
    {.name = "version",
     .help = "print the version and exit",
     .switch_value = &CommandLine::show_version},
    {.name = "help", .help = "print this help and exit", .switch_value = &CommandLine::show_help},
};

const FlagSpec* FindFlag(std::string_view name) {
  for (const FlagSpec& flag : kFlags) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

std::string Synopsis(const FlagSpec& flag) {
  return flag.value_name.empty() ? strings::Cat("--", flag.name)
                                 : strings::Cat("--", flag.name, " ", flag.value_name);
}

}  // namespace

absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine cli;
  if (!args.empty() && args[0] == "probe") {
    if (args.size() != 2 || args[1].starts_with("--")) {
      return absl::InvalidArgumentError("probe needs exactly one URL: probe http://HOST:PORT/PATH");
    }
    cli.probe_url = args[1];
    return cli;
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (!arg.starts_with("--") || arg.size() == 2) {
      return absl::InvalidArgumentError(
          strings::Cat("unexpected argument \"", arg, "\"; flags start with -- (see --help)"));
    }
    const std::string_view body = arg.substr(2);
    const size_t equals = body.find('=');
    const std::string_view name = body.substr(0, equals);
    const FlagSpec* flag = FindFlag(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(strings::Cat("unknown flag --", name, " (see --help)"));
    }
    if (flag->switch_value != nullptr) {
      if (equals != std::string_view::npos) {
        return absl::InvalidArgumentError(strings::Cat("--", name, " takes no value"));
      }
      cli.*flag->switch_value = true;
      continue;
    }
    std::string_view value;
    if (equals != std::string_view::npos) {
      value = body.substr(equals + 1);
    } else if (i + 1 < args.size() && !args[i + 1].starts_with("--")) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(
          strings::Cat("--", name, " needs a value: ", Synopsis(*flag)));
    }
    if (value.empty()) {
      return absl::InvalidArgumentError(
          strings::Cat("--", name, " needs a non-empty value: ", Synopsis(*flag)));
    }
    if (flag->string_value != nullptr) {
      cli.*flag->string_value = std::string(value);
    } else if (absl::Status status = flag->parse_value(cli, value); !status.ok()) {
      return absl::InvalidArgumentError(strings::Cat("--", name, ": ", status.message()));
    }
  }
  return cli;
}

std::string UsageText() {
  size_t width = 0;
  for (const FlagSpec& flag : kFlags) width = std::max(width, Synopsis(flag).size());
  std::string text =
      "Usage: ray-event-aggregator [flags]\n"
      "       ray-event-aggregator probe URL   (exit 0 iff GET URL answers 2xx within 5s)\n\n"
      "Receives Ray's events over gRPC and forwards them as JSON batches to the configured sinks.\n"
      "Settings come from built-in defaults < --config file < RAY_DASHBOARD_AGGREGATOR_AGENT_*\n"
      "environment variables < flags (see docs/CONFIG.md).\n\nFlags:\n";
  for (const FlagSpec& flag : kFlags) {
    const std::string synopsis = Synopsis(flag);
    strings::Append(text, "  ", synopsis, std::string(width - synopsis.size() + 2, ' '), flag.help,
                    "\n");
  }
  return text;
}

}  // namespace rayagg
