// The configuration loader (config/load_config.h) as the daemon runs it: a
// YAML file, Ray's environment and the command line. The input is three
// sections separated by a line "%%": the file's text, NAME=VALUE lines of
// the environment and one argument per line. The property: no crash, no
// sanitizer report, and a configuration that loads can be described (the
// startup log's lines).
//
// HOME and RAY_AUTH_TOKEN_PATH are left out of the environment: they name a
// token file to read, and the fuzzer would read the machine's files.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/command_line.h"
#include "config/environment.h"
#include "config/load_config.h"

namespace {

std::vector<std::string_view> Split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  while (true) {
    const size_t at = text.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + separator.size());
  }
  parts.push_back(text);
  return parts;
}

// The "file" the YAML section is written to: an in-memory file (memfd)
// reached through /proc/self/fd, one per process. Nothing is left on disk,
// however the process ends (a crash or libFuzzer's _Exit included).
int ConfigFd() {
  static const int fd = [] {
    const int created = memfd_create("rayagg_config_fuzz", MFD_CLOEXEC);
    if (created < 0) std::abort();
    return created;
  }();
  return fd;
}

const std::string& ConfigPath() {
  static const std::string path = "/proc/self/fd/" + std::to_string(ConfigFd());
  return path;
}

void WriteConfig(std::string_view text) {
  const int fd = ConfigFd();
  if (ftruncate(fd, 0) != 0) std::abort();
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n =
        pwrite(fd, text.data() + written, text.size() - written, static_cast<off_t>(written));
    if (n <= 0) std::abort();
    written += static_cast<size_t>(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> sections = Split(input, "\n%%\n");
  WriteConfig(sections[0]);
  std::map<std::string, std::string> variables;
  if (sections.size() > 1) {
    for (std::string_view line : Split(sections[1], "\n")) {
      const size_t equals = line.find('=');
      if (equals == std::string_view::npos) continue;
      std::string name(line.substr(0, equals));
      if (name == "HOME" || name == "RAY_AUTH_TOKEN_PATH") continue;
      variables[std::move(name)] = std::string(line.substr(equals + 1));
    }
  }
  std::vector<std::string> args;
  if (sections.size() > 2) {
    for (std::string_view line : Split(sections[2], "\n")) {
      if (!line.empty()) args.emplace_back(line);
    }
  }

  absl::StatusOr<rayagg::CommandLine> cli = rayagg::ParseCommandLine(args);
  if (!cli.ok()) return 0;
  cli->config_path = ConfigPath();
  const absl::StatusOr<rayagg::LoadedConfig> loaded =
      rayagg::LoadConfig(*cli, rayagg::Environment(std::move(variables)));
  if (!loaded.ok()) return 0;
  if (rayagg::DescribeConfig(loaded->config).empty()) {
    std::fprintf(stderr, "config_fuzz: a loaded configuration without a description\n");
    std::abort();
  }
  return 0;
}
