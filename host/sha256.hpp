// SHA-256 (FIPS 180-4), self-contained: the loader records the digest of every input file so a
// report can name exactly which bytes it was computed from.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace judgestat {

/// Incremental SHA-256: update() any number of times, then hex_digest() once.
class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  /// Lower-case hex of the 32-byte digest; finishes the hash (call once).
  std::string hex_digest();

 private:
  void compress(const uint8_t* block);
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace judgestat
