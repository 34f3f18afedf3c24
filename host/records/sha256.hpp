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
  /// `cpu_instructions`: use the CPU's SHA extensions when it has them (≈ 10× faster); false
  /// forces the portable code (tests compare the two).
  explicit Sha256(bool cpu_instructions = true);
  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  /// Lower-case hex of the 32-byte digest; finishes the hash (call once).
  std::string hex_digest();

 private:
  void compress(const uint8_t* blocks, size_t n_blocks);
  void compress_portable(const uint8_t* block);
  bool sha_instructions_;
  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_;
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

/// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

/// True when this CPU has the SHA extensions (and SSE4.1) that Sha256 uses when allowed.
bool sha256_cpu_instructions_supported();

}  // namespace judgestat
