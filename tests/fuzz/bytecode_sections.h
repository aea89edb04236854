// The outer layout of an MLIR bytecode file, split so that a mutation can
// target one section and the file be put back together with every section's
// length (and alignment padding) rewritten to fit: the mutant then gets past
// the container and reaches the parser of the section it changed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace jft::fuzz {

using Bytes = std::vector<uint8_t>;

struct Section {
  uint8_t id = 0;  // without the alignment bit
  std::optional<uint64_t> alignment;
  Bytes payload;
};

struct SectionedFile {
  Bytes header;  // magic, version varint, producer and its NUL
  std::vector<Section> sections;
};

// MLIR's prefix varint: the first byte's trailing zeros count the bytes that
// follow (a zero first byte: eight).
Bytes encodeVarInt(uint64_t value);

// nullopt when the bytes are not a well-formed container (then a mutator
// falls back to byte-level mutations).
std::optional<SectionedFile> splitSections(const Bytes& file);

// Header, then each section as id byte, length varint, alignment varint and
// 0xCB padding up to the alignment, payload.
Bytes joinSections(const SectionedFile& file);

}  // namespace jft::fuzz
