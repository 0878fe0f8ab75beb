#include "history/fold/object_decoder.h"

#include <zlib.h>

#include <memory>

namespace rayagg::history {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Receives the decompressed text in pieces and cuts it into event texts.
class Splitter {
 public:
  Splitter(uint64_t max_event_bytes, const JsonTextCallback& on_text, DecodeResult& result)
      : max_(max_event_bytes), on_text_(on_text), result_(result) {}

  void Feed(std::string_view piece) {
    result_.decompressed_bytes += piece.size();
    if (mode_ == Mode::kUnknown) {
      size_t first = 0;
      while (first < piece.size() && IsBlank(piece[first])) ++first;
      if (first == piece.size()) return;  // only blanks so far
      if (piece[first] == '[') {
        mode_ = Mode::kArray;
        piece.remove_prefix(first + 1);
        depth_ = 0;
      } else {
        mode_ = Mode::kLines;
      }
    }
    if (mode_ == Mode::kLines) {
      FeedLines(piece);
    } else {
      FeedArray(piece);
    }
  }

  void Finish() {
    // An array that never closed ends with its last element (likely cut
    // short: then it is a bad line).
    if (!skipping_) Emit(pending_);
    pending_.clear();
  }

 private:
  enum class Mode { kUnknown, kLines, kArray };

  void Emit(std::string_view text) {
    while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
    while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
    if (text.empty()) return;
    ++result_.texts;
    on_text_(text);
  }

  // Appends to the pending text unless that would pass the bound, in which
  // case the rest of this line/element is skipped.
  void Keep(std::string_view part) {
    if (skipping_) return;
    if (pending_.size() + part.size() > max_) {
      ++result_.oversized;
      skipping_ = true;
      pending_.clear();
      return;
    }
    pending_.append(part);
  }

  void FeedLines(std::string_view piece) {
    while (!piece.empty()) {
      const size_t newline = piece.find('\n');
      if (newline == std::string_view::npos) {
        Keep(piece);
        return;
      }
      if (pending_.empty() && !skipping_) {
        if (newline > max_) {
          ++result_.oversized;
        } else {
          Emit(piece.substr(0, newline));  // the common case: no copy
        }
      } else {
        Keep(piece.substr(0, newline));
        if (!skipping_) Emit(pending_);
        pending_.clear();
      }
      skipping_ = false;
      piece.remove_prefix(newline + 1);
    }
  }

  void FeedArray(std::string_view piece) {
    size_t start = 0;
    for (size_t i = 0; i < piece.size(); ++i) {
      const char c = piece[i];
      if (in_string_) {
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          in_string_ = false;
        }
        continue;
      }
      if (c == '"') {
        in_string_ = true;
      } else if (c == '{' || c == '[') {
        ++depth_;
      } else if (c == '}' || c == ']') {
        if (depth_ == 0) {  // the array's own end
          Keep(piece.substr(start, i - start));
          if (!skipping_) Emit(pending_);
          pending_.clear();
          skipping_ = false;
          // What follows is read as JSON Lines: blanks (a legacy array)
          // give nothing, anything else is lines, the rest of this one
          // included, each an event or a bad line.
          mode_ = Mode::kLines;
          FeedLines(piece.substr(i + 1));
          return;
        }
        --depth_;
      } else if (c == ',' && depth_ == 0) {
        Keep(piece.substr(start, i - start));
        if (!skipping_) Emit(pending_);
        pending_.clear();
        skipping_ = false;
        start = i + 1;
      }
    }
    if (start < piece.size()) Keep(piece.substr(start));
  }

  const uint64_t max_;
  const JsonTextCallback& on_text_;
  DecodeResult& result_;
  Mode mode_ = Mode::kUnknown;
  std::string pending_;
  bool skipping_ = false;
  // Array scanning state.
  int depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
};

}  // namespace

DecodeResult ForEachEventJson(std::string_view object_bytes, uint64_t max_event_bytes,
                              const JsonTextCallback& on_text) {
  DecodeResult result;
  Splitter splitter(max_event_bytes, on_text, result);
  const bool gzip = object_bytes.size() >= 2 && static_cast<uint8_t>(object_bytes[0]) == 0x1f &&
                    static_cast<uint8_t>(object_bytes[1]) == 0x8b;
  if (!gzip) {
    splitter.Feed(object_bytes);
    splitter.Finish();
    return result;
  }
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
    result.error = "cannot start gzip decoding";
    return result;
  }
  constexpr size_t kWindow = 256 * 1024;
  auto window = std::make_unique<char[]>(kWindow);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(object_bytes.data()));
  stream.avail_in = static_cast<uInt>(object_bytes.size());
  for (;;) {
    stream.next_out = reinterpret_cast<Bytef*>(window.get());
    stream.avail_out = kWindow;
    const int rc = inflate(&stream, Z_NO_FLUSH);
    const size_t produced = kWindow - stream.avail_out;
    if (produced > 0) splitter.Feed(std::string_view(window.get(), produced));
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members (allowed by RFC 1952) continue the text.
      if (stream.avail_in == 0) break;
      if (inflateReset(&stream) != Z_OK) {
        result.error = "gzip stream is corrupt";
        break;
      }
      continue;
    }
    if (rc != Z_OK && !(rc == Z_BUF_ERROR && produced > 0)) {
      result.error = rc == Z_BUF_ERROR ? "gzip stream is truncated" : "gzip stream is corrupt";
      break;
    }
    if (stream.avail_in == 0 && produced == 0) {
      result.error = "gzip stream is truncated";
      break;
    }
  }
  inflateEnd(&stream);
  // A truncated last line is dropped with the error: it cannot be whole.
  if (result.error.empty()) splitter.Finish();
  return result;
}

}  // namespace rayagg::history
