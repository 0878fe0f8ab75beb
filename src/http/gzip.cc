#include "http/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace rayagg {
namespace {

// windowBits 15 plus 16 asks zlib for a gzip header and trailer instead of zlib's own.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemLevel = 8;  // zlib's default

// Feeds zlib at most this much per call: avail_in/avail_out are 32-bit.
constexpr size_t kMaxChunk = std::numeric_limits<uInt>::max();

}  // namespace

absl::Status GzipCompress(std::string_view in, std::string& out, int level) {
  z_stream stream{};
  if (deflateInit2(&stream, level, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::ResourceExhaustedError("zlib deflateInit2 failed");
  }
  // deflateBound is exact enough for one pass when the input fits in uLong.
  out.resize(deflateBound(&stream, static_cast<uLong>(in.size())) + 64);
  size_t produced = 0;
  size_t consumed = 0;
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    const size_t in_chunk = std::min(in.size() - consumed, kMaxChunk);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
    stream.avail_in = static_cast<uInt>(in_chunk);
    if (out.size() - produced < 64) out.resize(out.size() * 2);
    const size_t out_chunk = std::min(out.size() - produced, kMaxChunk);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(out_chunk);
    const bool last = consumed + in_chunk == in.size();
    result = deflate(&stream, last ? Z_FINISH : Z_NO_FLUSH);
    consumed += in_chunk - stream.avail_in;
    produced += out_chunk - stream.avail_out;
    if (result == Z_STREAM_ERROR) {
      deflateEnd(&stream);
      return absl::InternalError("zlib deflate failed");
    }
  }
  deflateEnd(&stream);
  out.resize(produced);
  return absl::OkStatus();
}

}  // namespace rayagg
