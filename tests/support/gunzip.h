// Decompresses a gzip body the way a collector would (zlib inflate), so
// tests compare what a server received with what was sent.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rayagg::test {

// The decompressed bytes, or nullopt if `gzip` is not one complete, valid
// gzip member (bad header, bad CRC, truncated, trailing garbage).
std::optional<std::string> Gunzip(std::string_view gzip);

}  // namespace rayagg::test
