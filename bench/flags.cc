#include "flags.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <iostream>

namespace rayagg::bench {

Flags::Flags(int argc, char** argv, std::vector<std::string> known, std::string usage)
    : usage_(std::move(usage)) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage_;
      std::exit(0);
    }
    if (!arg.starts_with("--")) Fail("unexpected argument " + std::string(arg));
    arg.remove_prefix(2);
    std::string name, value;
    if (const size_t eq = arg.find('='); eq != std::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    } else {
      name = arg;
      if (i + 1 >= argc) Fail("--" + name + " needs a value");
      value = argv[++i];
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      Fail("unknown flag --" + name);
    }
    values_[name] = value;
  }
}

std::string Flags::String(std::string_view name, std::string fallback) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? fallback : it->second;
}

uint64_t Flags::Uint(std::string_view name, uint64_t fallback) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    Fail("--" + std::string(name) + " must be a non-negative integer, got \"" + text + "\"");
  }
  return value;
}

double Flags::Double(std::string_view name, double fallback) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !(value >= 0)) {
    Fail("--" + std::string(name) + " must be a non-negative number, got \"" + text + "\"");
  }
  return value;
}

void Flags::Fail(std::string_view message) const {
  std::cerr << "error: " << message << "\n\n" << usage_;
  std::exit(2);
}

}  // namespace rayagg::bench
