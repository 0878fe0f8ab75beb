// gzip (RFC 1952) encoding through zlib: request bodies of sinks with
// `compression: gzip`, and the HTTP server's gzip'd answers.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace rayagg {

// zlib level 1: event JSON is repetitive enough that the fastest level
// already shrinks it several times, and compression runs on the sink's
// thread for every request, so speed matters more than the last few percent.
inline constexpr int kGzipLevel = 1;

// Replaces `out` with the gzip member holding `in`. Reuses `out`'s capacity.
// Fails only if zlib does (out of memory); `out` is then unspecified.
// `level` (1..9) is for the benchmark comparing levels (bench/gzip_bench.cc).
absl::Status GzipCompress(std::string_view in, std::string& out, int level = kGzipLevel);

// The same for the concatenation of `parts`, without making it: the
// object-store sink keeps an open object's JSON Lines in pieces
// (objsink/object_assembler.h) so that growing it never copies it.
absl::Status GzipCompress(std::span<const std::string_view> parts, std::string& out,
                          int level = kGzipLevel);

// One gzip member written piece by piece, for an answer streamed in chunks:
// every Add's output can be sent at once (each piece is flushed, so the
// reader can decode everything sent so far), and memory stays zlib's own
// (about 256 KiB) whatever the length of the whole.
class GzipStreamEncoder {
 public:
  explicit GzipStreamEncoder(int level = kGzipLevel);
  ~GzipStreamEncoder();
  GzipStreamEncoder(const GzipStreamEncoder&) = delete;
  GzipStreamEncoder& operator=(const GzipStreamEncoder&) = delete;

  // Compresses `in` and appends what zlib emits to `out`; `finish` ends the
  // member (its trailer is appended), after which nothing may be added.
  // Fails only if zlib does (out of memory).
  absl::Status Add(std::string_view in, bool finish, std::string& out);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rayagg
