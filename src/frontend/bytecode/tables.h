// The file-wide tables every other part of the reader indexes into: the
// header (version, producer), the top-level sections, the string table and
// the dialect section (dialect names, their version blobs, op names).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/bytecode/cursor.h"
#include "support/status.h"

namespace jft::frontend::bytecode {

// Format versions whose encodings differ (MLIR's Encoding.h gates).
enum FormatVersion : uint64_t {
  kDialectVersioning = 1,
  kLazyLoading = 2,
  kUseListOrdering = 3,
  kElideUnknownBlockArgLocation = 4,
  kNativePropertiesEncoding = 5,
  kNativePropertiesOdsSegmentSize = 6,
  kNewestVersion = 6,
};

enum SectionId : uint8_t {
  kStringSection = 0,
  kDialectSection = 1,
  kAttrTypeSection = 2,
  kAttrTypeOffsetSection = 3,
  kIrSection = 4,
  kResourceSection = 5,
  kResourceOffsetSection = 6,
  kDialectVersionsSection = 7,
  kPropertiesSection = 8,
  kNumSections = 9,
};

// "section 4 (IR)"
std::string sectionLabel(unsigned id);

// Reads one section header (id byte with the alignment flag in bit 7,
// length, optional alignment) and returns the id and a cursor over its body.
Status readSection(Cursor& in, unsigned& id, Cursor& body);

struct FileHeader {
  uint64_t version = 0;
  std::string producer;
  std::array<std::optional<Cursor>, kNumSections> sections;
};

// Magic, version, producer, then the split into sections (each at most once;
// the required ones present).
StatusOr<FileHeader> readFileHeader(const uint8_t* data, size_t size);

class StringTable {
 public:
  Status init(Cursor section);
  size_t size() const { return strings_.size(); }
  // Reads a string index from `in`.
  Status read(Cursor& in, std::string_view& out) const;
  Status at(Cursor& in, size_t at_offset, uint64_t index, std::string_view& out) const;

 private:
  std::vector<std::string_view> strings_;
};

struct OpNameEntry {
  uint32_t dialect = 0;
  std::string full_name;               // "vhlo.add_v1"
  std::optional<bool> was_registered;  // known from version 5 on
};

struct DialectTable {
  std::vector<std::string> names;
  std::vector<std::optional<Cursor>> version_blobs;
  std::vector<OpNameEntry> ops;
};

StatusOr<DialectTable> readDialectSection(Cursor section, uint64_t version,
                                          const StringTable& strings);

// Reads a dialect index and checks it.
Status readDialectIndex(Cursor& in, const DialectTable& dialects, uint32_t& out);

}  // namespace jft::frontend::bytecode
