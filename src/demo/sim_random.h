// Deterministic randomness for the simulated cluster: every value is a hash
// of the seed and of what it is for (a tag and indexes), never the state of
// a generator. So any fact about task i can be recomputed on its own, in any
// order, and the same seed gives the same bytes.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace rayagg::demo {

// SplitMix64's finalizer: a bijection that spreads every input bit.
inline uint64_t Mix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

inline uint64_t Hash(uint64_t seed, uint64_t tag, uint64_t a = 0, uint64_t b = 0) {
  return Mix64(Mix64(Mix64(seed ^ Mix64(tag)) ^ a) ^ Mix64(b + 0x632BE59BD9B4E019ULL));
}

// Uniform in [0, 1).
inline double Unit(uint64_t hash) { return static_cast<double>(hash >> 11) * 0x1.0p-53; }

// A standard normal from two hashes (Box-Muller).
inline double Normal(uint64_t h1, uint64_t h2) {
  const double u1 = 1.0 - Unit(h1);  // (0, 1]: log is finite
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * Unit(h2));
}

// FNV-1a: a stable hash of a text (std::hash may differ between builds).
inline uint64_t HashText(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (const unsigned char c : text) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

// `size` bytes of an id, from a hash stream.
inline std::string IdBytes(uint64_t seed, uint64_t tag, uint64_t index, size_t size) {
  std::string id(size, '\0');
  for (size_t i = 0; i < size; i += 8) {
    uint64_t h = Hash(seed, tag, index, i);
    for (size_t j = i; j < size && j < i + 8; ++j, h >>= 8) id[j] = static_cast<char>(h & 0xff);
  }
  return id;
}

// Letters no hex digit and no English word is made of, so a token of them
// is found by a search only where it was put (the fixture's trace probe).
inline std::string Token(uint64_t hash, size_t size) {
  static constexpr char kLetters[] = "ghjkmnpqrstvwxyz";
  std::string out;
  for (size_t i = 0; i < size; ++i, hash = Mix64(hash)) out += kLetters[hash & 15];
  return out;
}

}  // namespace rayagg::demo
