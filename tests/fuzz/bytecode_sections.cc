#include "bytecode_sections.h"

#include <cstring>

namespace jft::fuzz {
namespace {

// Reads a prefix varint at `at`; false when it runs past the end.
bool readVarInt(const Bytes& in, size_t& at, uint64_t& out) {
  if (at >= in.size()) return false;
  uint8_t first = in[at];
  unsigned extra = 8;
  if (first != 0) {
    extra = 0;
    while (!((first >> extra) & 1)) ++extra;
  }
  if (in.size() - at < 1 + extra) return false;
  uint64_t value = 0;
  for (unsigned i = 0; i < extra; ++i) value |= uint64_t(in[at + 1 + i]) << (8 * i);
  if (extra < 8) value = (value << (7 - extra)) | (uint64_t(first) >> (extra + 1));
  at += 1 + extra;
  out = value;
  return true;
}

void append(Bytes& out, const Bytes& more) {
  out.insert(out.end(), more.begin(), more.end());
}

}  // namespace

Bytes encodeVarInt(uint64_t value) {
  for (unsigned extra = 0; extra < 8; ++extra) {
    unsigned bits = 7 * (extra + 1);
    if (bits < 64 && (value >> bits) != 0) continue;
    uint64_t encoded = (value << (extra + 1)) | (uint64_t(1) << extra);
    Bytes out(extra + 1);
    for (unsigned i = 0; i <= extra; ++i) out[i] = uint8_t(encoded >> (8 * i));
    return out;
  }
  Bytes out(9, 0);
  for (unsigned i = 0; i < 8; ++i) out[1 + i] = uint8_t(value >> (8 * i));
  return out;
}

std::optional<SectionedFile> splitSections(const Bytes& file) {
  static constexpr uint8_t kMagic[4] = {'M', 'L', 0xEF, 'R'};
  if (file.size() < 4 || std::memcmp(file.data(), kMagic, 4) != 0) return std::nullopt;
  size_t at = 4;
  uint64_t version = 0;
  if (!readVarInt(file, at, version)) return std::nullopt;
  while (at < file.size() && file[at] != 0) ++at;
  if (at >= file.size()) return std::nullopt;
  ++at;  // the producer's NUL
  SectionedFile out;
  out.header.assign(file.begin(), file.begin() + static_cast<ptrdiff_t>(at));
  while (at < file.size()) {
    Section section;
    uint8_t id_and_alignment = file[at++];
    section.id = id_and_alignment & 0x7f;
    uint64_t length = 0;
    if (!readVarInt(file, at, length)) return std::nullopt;
    if (id_and_alignment & 0x80) {
      uint64_t alignment = 0;
      if (!readVarInt(file, at, alignment)) return std::nullopt;
      if (alignment == 0 || alignment > 4096) return std::nullopt;
      section.alignment = alignment;
      while (at < file.size() && at % alignment != 0 && file[at] == 0xCB) ++at;
    }
    if (length > file.size() - at) return std::nullopt;
    section.payload.assign(file.begin() + static_cast<ptrdiff_t>(at),
                           file.begin() + static_cast<ptrdiff_t>(at + length));
    at += length;
    out.sections.push_back(std::move(section));
  }
  return out;
}

Bytes joinSections(const SectionedFile& file) {
  Bytes out = file.header;
  for (const Section& section : file.sections) {
    out.push_back(uint8_t(section.id | (section.alignment ? 0x80 : 0)));
    append(out, encodeVarInt(section.payload.size()));
    if (section.alignment) {
      append(out, encodeVarInt(*section.alignment));
      while (out.size() % *section.alignment != 0) out.push_back(0xCB);
    }
    append(out, section.payload);
  }
  return out;
}

}  // namespace jft::fuzz
