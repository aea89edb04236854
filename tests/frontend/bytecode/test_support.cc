#include "test_support.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace jft::frontend::bytecode_test {

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(fixtureDir())) {
    if (entry.is_directory() && std::filesystem::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<uint8_t> readFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string readFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<uint8_t> encodeVarInt(uint64_t value) {
  for (unsigned extra = 0; extra < 8; ++extra) {
    unsigned bits = 7 * (extra + 1);
    if (bits < 64 && value >> bits) continue;
    uint64_t encoded = ((value << 1) | 1) << extra;
    std::vector<uint8_t> out;
    for (unsigned i = 0; i <= extra; ++i) out.push_back(uint8_t(encoded >> (8 * i)));
    return out;
  }
  std::vector<uint8_t> out = {0};
  for (unsigned i = 0; i < 8; ++i) out.push_back(uint8_t(value >> (8 * i)));
  return out;
}

std::vector<uint8_t> encodeSignedVarInt(int64_t value) {
  uint64_t zigzag =
      (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  return encodeVarInt(zigzag);
}

Bytes& Bytes::varint(uint64_t v) {
  return raw(encodeVarInt(v));
}
Bytes& Bytes::svarint(int64_t v) {
  return raw(encodeSignedVarInt(v));
}
Bytes& Bytes::byte(uint8_t b) {
  data.push_back(b);
  return *this;
}
Bytes& Bytes::raw(const std::vector<uint8_t>& b) {
  data.insert(data.end(), b.begin(), b.end());
  return *this;
}
Bytes& Bytes::cstr(const std::string& s) {
  data.insert(data.end(), s.begin(), s.end());
  data.push_back(0);
  return *this;
}

std::vector<uint8_t> buildFile(uint64_t version, const std::string& producer,
                               const std::vector<Section>& sections) {
  Bytes file;
  file.raw({'M', 'L', 0xEF, 'R'}).varint(version).cstr(producer);
  for (const Section& section : sections)
    file.byte(section.id).varint(section.body.size()).raw(section.body);
  return file.data;
}

std::vector<uint8_t> stringSection(const std::vector<std::string>& strings) {
  Bytes body;
  body.varint(strings.size());
  for (auto it = strings.rbegin(); it != strings.rend(); ++it)
    body.varint(it->size() + 1);
  for (const std::string& s : strings) body.cstr(s);
  return body.data;
}

}  // namespace jft::frontend::bytecode_test
