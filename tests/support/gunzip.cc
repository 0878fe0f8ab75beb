#include "support/gunzip.h"

#include <zlib.h>

#include <array>

namespace rayagg::test {

std::optional<std::string> Gunzip(std::string_view gzip) {
  z_stream stream{};
  // 15 + 16: expect a gzip header and trailer (and check its CRC and length).
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return std::nullopt;
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzip.data()));
  stream.avail_in = static_cast<uInt>(gzip.size());
  std::string out;
  std::array<char, 16 * 1024> chunk;
  int result = Z_OK;
  while (result == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
    stream.avail_out = static_cast<uInt>(chunk.size());
    result = inflate(&stream, Z_NO_FLUSH);
    out.append(chunk.data(), chunk.size() - stream.avail_out);
  }
  const bool complete = result == Z_STREAM_END && stream.avail_in == 0;
  inflateEnd(&stream);
  if (!complete) return std::nullopt;
  return out;
}

}  // namespace rayagg::test
