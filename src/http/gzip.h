// gzip (RFC 1952) encoding of request bodies through zlib, for sinks with
// `compression: gzip`.
#pragma once

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

}  // namespace rayagg
