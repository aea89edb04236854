// Fixed-width little-endian integers in byte strings: the framing of the
// worker protocol and of cache entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace jft::kernel_compiler {

inline void appendLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

// The caller has checked that bytes[offset, offset + count) exists.
inline uint64_t readLittleEndian(std::string_view bytes, size_t offset, int count) {
  uint64_t value = 0;
  for (int i = count - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return value;
}

}  // namespace jft::kernel_compiler
