#include "http/content_encoding.h"

#include <zlib.h>

#include <algorithm>

#include "absl/status/status.h"
#include "common/text.h"

namespace rayagg {
namespace {

constexpr int kZlibOrGzip = 15 + 32;  // window bits: detect zlib or gzip header
constexpr int kRawDeflate = -15;

absl::StatusOr<std::string> Inflate(std::string_view input, int window_bits, uint64_t max_bytes) {
  z_stream stream{};
  if (inflateInit2(&stream, window_bits) != Z_OK) {
    return absl::InternalError("zlib initialisation failed");
  }
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  std::string out;
  // Grow in steps; never past max_bytes + 1 (one byte more proves "too large").
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    if (out.size() > max_bytes) break;
    const size_t step =
        std::min<uint64_t>(std::max<size_t>(out.size(), 64 * 1024), max_bytes + 1 - out.size());
    const size_t old_size = out.size();
    out.resize(old_size + step);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + old_size);
    stream.avail_out = static_cast<uInt>(step);
    result = inflate(&stream, Z_NO_FLUSH);
    out.resize(old_size + (step - stream.avail_out));
    if (result == Z_BUF_ERROR && stream.avail_in == 0) break;  // input ended early
    if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR) break;
  }
  inflateEnd(&stream);
  if (out.size() > max_bytes) {
    return absl::ResourceExhaustedError("decoded body larger than " + std::to_string(max_bytes) +
                                        " bytes");
  }
  if (result != Z_STREAM_END) return absl::InvalidArgumentError("corrupt or truncated body");
  return out;
}

}  // namespace

absl::StatusOr<std::string> DecodeContentEncoding(std::string_view encoding, std::string body,
                                                  uint64_t max_decoded_bytes) {
  const std::string name = strings::ToLower(strings::StripBlanks(encoding, " \t"));
  if (name.empty() || name == "identity") {
    if (body.size() > max_decoded_bytes) {
      return absl::ResourceExhaustedError("body larger than " + std::to_string(max_decoded_bytes) +
                                          " bytes");
    }
    return body;
  }
  if (name == "gzip" || name == "x-gzip") {
    auto decoded = Inflate(body, kZlibOrGzip, max_decoded_bytes);
    if (!decoded.ok() && decoded.status().code() == absl::StatusCode::kInvalidArgument) {
      return absl::InvalidArgumentError("invalid gzip body");
    }
    return decoded;
  }
  if (name == "deflate") {
    auto decoded = Inflate(body, kZlibOrGzip, max_decoded_bytes);
    if (!decoded.ok() && decoded.status().code() == absl::StatusCode::kInvalidArgument) {
      decoded = Inflate(body, kRawDeflate, max_decoded_bytes);
    }
    if (!decoded.ok() && decoded.status().code() == absl::StatusCode::kInvalidArgument) {
      return absl::InvalidArgumentError("invalid deflate body");
    }
    return decoded;
  }
  return absl::UnimplementedError("unsupported Content-Encoding \"" + name.substr(0, 32) +
                                  "\" (gzip, deflate and identity are)");
}

}  // namespace rayagg
