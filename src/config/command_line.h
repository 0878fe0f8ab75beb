// Command-line flags. Every flag is one row of a table in command_line.cc,
// which drives both parsing and the --help text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rayagg {

struct CommandLine {
  std::optional<std::string> config_path;     // --config PATH
  std::optional<std::string> grpc_address;    // --grpc-address ADDR
  std::optional<uint16_t> grpc_port;          // --grpc-port N (0 = OS picks)
  std::optional<std::string> port_file;       // --port-file PATH
  std::optional<std::string> log_level;       // --log-level LEVEL
  std::optional<std::string> http_address;    // --http-address ADDR
  std::optional<uint16_t> http_port;          // --http-port N (0 = OS picks; enables http_ingest)
  std::optional<std::string> http_port_file;  // --http-port-file PATH
  std::optional<uint16_t> ops_port;           // --ops-port N (0 = OS picks; enables ops)
  std::optional<std::string> ops_address;     // --ops-address ADDR
  std::optional<std::string> ops_port_file;   // --ops-port-file PATH
  std::optional<std::string> spool_dir;       // --spool-dir DIR (turns the spool on)
  // `probe URL`: the first argument, when it is "probe", selects probe mode.
  std::optional<std::string> probe_url;
  bool check_config = false;  // --check-config
  bool show_version = false;  // --version
  bool show_help = false;     // --help
};

// `args` excludes argv[0]. Accepts "--flag value" and "--flag=value", and the
// subcommand `probe URL [--timeout DURATION]` as the first arguments.
// Unknown flags, positional arguments, and missing or invalid values are
// InvalidArgument errors that name the flag. A repeated flag: the last wins.
absl::StatusOr<CommandLine> ParseCommandLine(const std::vector<std::string>& args);

// "Usage: ..." followed by one line per flag.
std::string UsageText();

}  // namespace rayagg
