#include "ops/json_log_formatter.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace rayagg {
namespace {

void Append(spdlog::memory_buf_t& dest, std::string_view text) {
  dest.append(text.data(), text.data() + text.size());
}

void AppendEscaped(spdlog::memory_buf_t& dest, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '"':
        Append(dest, "\\\"");
        break;
      case '\\':
        Append(dest, "\\\\");
        break;
      case '\n':
        Append(dest, "\\n");
        break;
      case '\r':
        Append(dest, "\\r");
        break;
      case '\t':
        Append(dest, "\\t");
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
          Append(dest, escaped);
        } else {
          dest.push_back(c);
        }
    }
  }
}

}  // namespace

void JsonLogFormatter::format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) {
  using namespace std::chrono;
  const auto since_epoch = msg.time.time_since_epoch();
  const std::time_t seconds = duration_cast<std::chrono::seconds>(since_epoch).count();
  const auto millis = duration_cast<milliseconds>(since_epoch).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char time_text[40];
  const size_t length = std::strftime(time_text, sizeof(time_text), "%Y-%m-%dT%H:%M:%S", &utc);
  Append(dest, "{\"time\":\"");
  Append(dest, std::string_view(time_text, length));
  char millis_text[8];
  std::snprintf(millis_text, sizeof(millis_text), ".%03dZ", static_cast<int>(millis));
  Append(dest, millis_text);
  Append(dest, "\",\"level\":\"");
  const auto level = spdlog::level::to_string_view(msg.level);
  Append(dest, std::string_view(level.data(), level.size()));
  Append(dest, "\",\"msg\":\"");
  AppendEscaped(dest, std::string_view(msg.payload.data(), msg.payload.size()));
  Append(dest, "\"}\n");
}

std::unique_ptr<spdlog::formatter> JsonLogFormatter::clone() const {
  return std::make_unique<JsonLogFormatter>();
}

}  // namespace rayagg
