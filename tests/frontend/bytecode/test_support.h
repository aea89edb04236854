// Shared helpers of the bytecode reader tests: fixture files, and a small
// writer of the bytecode primitives (written from the format document, not
// from the reader) to assemble hand-made inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jft::frontend::bytecode_test {

// Directory of the zoo fixtures (JFT_FIXTURE_DIR from the environment, else
// the compile definition).
std::string fixtureDir();
std::vector<std::string> fixtureNames();  // sorted subdirectory names
std::vector<uint8_t> readFileBytes(const std::string& path);
std::string readFileText(const std::string& path);

// The format's varint: value shifted left by (number of extra bytes + 1),
// marker bit set, little-endian; nine bytes (0x00 then 8) above 56 bits.
std::vector<uint8_t> encodeVarInt(uint64_t value);
std::vector<uint8_t> encodeSignedVarInt(int64_t value);

struct Bytes {
  std::vector<uint8_t> data;
  Bytes& varint(uint64_t v);
  Bytes& svarint(int64_t v);
  Bytes& byte(uint8_t b);
  Bytes& raw(const std::vector<uint8_t>& b);
  Bytes& cstr(const std::string& s);
};

// A whole file: magic, version, producer, then sections in the given order.
struct Section {
  uint8_t id;
  std::vector<uint8_t> body;
};
std::vector<uint8_t> buildFile(uint64_t version, const std::string& producer,
                               const std::vector<Section>& sections);
// The string section for `strings`.
std::vector<uint8_t> stringSection(const std::vector<std::string>& strings);

}  // namespace jft::frontend::bytecode_test
