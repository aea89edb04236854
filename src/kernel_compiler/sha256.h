// SHA-256 (FIPS 180-4), for cache keys and cache-entry checksums.
//
// Written here rather than linked so that src/kernels depends on nothing but
// support/; speed is irrelevant next to a kernel compile.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace jft::kernel_compiler {

using Sha256Digest = std::array<uint8_t, 32>;

// Incremental hashing: update() any number of times, then finish() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  Sha256Digest finish();

 private:
  void compressBlock(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

Sha256Digest sha256(std::string_view bytes);
// Lowercase hexadecimal, 64 characters.
std::string toHex(const Sha256Digest& digest);
std::string sha256Hex(std::string_view bytes);

}  // namespace jft::kernel_compiler
