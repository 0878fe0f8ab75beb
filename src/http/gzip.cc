#include "http/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <climits>
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
  const std::string_view parts[] = {in};
  return GzipCompress(std::span<const std::string_view>(parts), out, level);
}

absl::Status GzipCompress(std::span<const std::string_view> parts, std::string& out, int level) {
  z_stream stream{};
  if (deflateInit2(&stream, level, Z_DEFLATED, kGzipWindowBits, kMemLevel, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return absl::ResourceExhaustedError("zlib deflateInit2 failed");
  }
  size_t total = 0;
  for (std::string_view part : parts) total += part.size();
  // Not deflateBound: resizing a string zero-fills it, and the bound is
  // about the input's size while event JSON shrinks several times at level
  // 1 — zeroing the bound cost as much as a copy of the whole input. The
  // output doubles when this guess is short.
  const size_t bound =
      deflateBound(&stream, static_cast<uLong>(std::min<size_t>(total, ULONG_MAX)));
  out.resize(std::min(bound, total / 4 + 4096) + 64);
  size_t produced = 0;
  size_t part_index = 0;
  size_t consumed = 0;  // of parts[part_index]
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    while (part_index < parts.size() && consumed == parts[part_index].size()) {
      ++part_index;
      consumed = 0;
    }
    const std::string_view part =
        part_index < parts.size() ? parts[part_index] : std::string_view();
    const size_t in_chunk = std::min(part.size() - consumed, kMaxChunk);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data() + consumed));
    stream.avail_in = static_cast<uInt>(in_chunk);
    if (out.size() - produced < 64) out.resize(out.size() * 2);
    const size_t out_chunk = std::min(out.size() - produced, kMaxChunk);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(out_chunk);
    const bool last = part_index + 1 >= parts.size() && consumed + in_chunk == part.size();
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

struct GzipStreamEncoder::State {
  z_stream stream{};
  bool initialized = false;
  bool finished = false;
};

GzipStreamEncoder::GzipStreamEncoder(int level) : state_(std::make_unique<State>()) {
  state_->initialized = deflateInit2(&state_->stream, level, Z_DEFLATED, kGzipWindowBits, kMemLevel,
                                     Z_DEFAULT_STRATEGY) == Z_OK;
}

GzipStreamEncoder::~GzipStreamEncoder() {
  if (state_->initialized) deflateEnd(&state_->stream);
}

absl::Status GzipStreamEncoder::Add(std::string_view in, bool finish, std::string& out) {
  if (!state_->initialized) return absl::ResourceExhaustedError("zlib deflateInit2 failed");
  if (state_->finished) return absl::FailedPreconditionError("gzip stream already finished");
  // Nothing to flush: zlib would answer Z_BUF_ERROR, and an empty piece
  // needs no bytes.
  if (in.empty() && !finish) return absl::OkStatus();
  z_stream& stream = state_->stream;
  const int flush = finish ? Z_FINISH : Z_SYNC_FLUSH;
  size_t consumed = 0;
  for (;;) {
    const size_t in_chunk = std::min(in.size() - consumed, kMaxChunk);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
    stream.avail_in = static_cast<uInt>(in_chunk);
    const size_t before = out.size();
    const size_t room = std::min<size_t>(in_chunk / 2 + 16 * 1024, kMaxChunk);
    out.resize(before + room);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + before);
    stream.avail_out = static_cast<uInt>(room);
    const int result = deflate(&stream, consumed + in_chunk == in.size() ? flush : Z_NO_FLUSH);
    consumed += in_chunk - stream.avail_in;
    out.resize(before + room - stream.avail_out);
    if (result == Z_STREAM_ERROR) return absl::InternalError("zlib deflate failed");
    if (result == Z_STREAM_END) {
      state_->finished = true;
      return absl::OkStatus();
    }
    // Done when all input is in and zlib left output space unused (it has
    // emitted everything the flush asked for); Z_FINISH goes on to the end.
    if (consumed == in.size() && stream.avail_out != 0 && !finish) return absl::OkStatus();
  }
}

}  // namespace rayagg
