// A tiny `--name value` / `--name=value` flag reader shared by the benchmark
// tools. They are run by scripts, so an unknown flag or a bad number is a hard
// error (exit 2) rather than a silently ignored typo.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rayagg::bench {

class Flags {
 public:
  // `known` lists the accepted names without "--"; `usage` is printed on error.
  Flags(int argc, char** argv, std::vector<std::string> known, std::string usage);

  bool Has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  std::string String(std::string_view name, std::string fallback) const;
  uint64_t Uint(std::string_view name, uint64_t fallback) const;
  double Double(std::string_view name, double fallback) const;

  // Prints `message` and the usage text, then exits with status 2.
  [[noreturn]] void Fail(std::string_view message) const;

 private:
  std::map<std::string, std::string> values_;
  std::string usage_;
};

}  // namespace rayagg::bench
