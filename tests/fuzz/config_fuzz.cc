// The configuration loader (config/load_config.h) as the daemon runs it: a
// YAML file, Ray's environment and the command line. The input is three
// sections separated by a line "%%": the file's text, NAME=VALUE lines of
// the environment and one argument per line. The property: no crash, no
// sanitizer report, and a configuration that loads can be described (the
// startup log's lines).
//
// HOME and RAY_AUTH_TOKEN_PATH are left out of the environment: they name a
// token file to read, and the fuzzer would read the machine's files.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
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

// The file the YAML section is written to, one per process.
const std::string& ConfigPath() {
  static const std::string path = [] {
    char name[] = "/tmp/rayagg_config_fuzz_XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    return std::string(name);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string_view> sections = Split(input, "\n%%\n");
  {
    std::ofstream file(ConfigPath(), std::ios::binary | std::ios::trunc);
    file.write(sections[0].data(), static_cast<std::streamsize>(sections[0].size()));
  }
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
