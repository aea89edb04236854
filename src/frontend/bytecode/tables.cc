#include "frontend/bytecode/tables.h"

#include <cstring>

namespace jft::frontend::bytecode {

std::string sectionLabel(unsigned id) {
  static constexpr const char* kNames[kNumSections] = {
      "string",   "dialect",          "attr/type",        "attr/type offsets", "IR",
      "resource", "resource offsets", "dialect versions", "properties"};
  std::string name = id < kNumSections ? kNames[id] : "unknown";
  return "section " + std::to_string(id) + " (" + name + ")";
}

Status readSection(Cursor& in, unsigned& id, Cursor& body) {
  size_t start = in.fileOffset();
  uint8_t id_and_alignment = 0;
  uint64_t length = 0;
  JFT_RETURN_IF_ERROR(in.readByte(id_and_alignment));
  JFT_RETURN_IF_ERROR(in.readVarInt(length));
  id = id_and_alignment & 0x7f;
  if (id >= kNumSections) {
    return in.errorAt(start, "expected a section id below " +
                                 std::to_string(kNumSections) + ", found " +
                                 std::to_string(id));
  }
  if (id_and_alignment & 0x80) {
    uint64_t alignment = 0;
    JFT_RETURN_IF_ERROR(in.readVarInt(alignment));
    JFT_RETURN_IF_ERROR(in.alignTo(alignment));
  }
  if (length > in.remaining()) {
    return in.errorAt(start, "expected " + sectionLabel(id) + " of " +
                                 std::to_string(length) + " bytes, found only " +
                                 std::to_string(in.remaining()) + " left");
  }
  return in.subCursor(static_cast<size_t>(length), sectionLabel(id), body);
}

StatusOr<FileHeader> readFileHeader(const uint8_t* data, size_t size) {
  Cursor in(data, size, 0, "header");
  static constexpr uint8_t kMagic[4] = {'M', 'L', 0xEF, 'R'};
  if (size < 4 || std::memcmp(data, kMagic, 4) != 0)
    return in.error("expected the MLIR bytecode magic \"ML\\xEFR\"");
  JFT_RETURN_IF_ERROR(in.skip(4));

  FileHeader header;
  size_t version_at = in.fileOffset();
  JFT_RETURN_IF_ERROR(in.readVarInt(header.version));
  if (header.version > kNewestVersion) {
    return in.errorAt(version_at, "expected bytecode version at most " +
                                      std::to_string(kNewestVersion) + ", found " +
                                      std::to_string(header.version));
  }
  std::string_view producer;
  JFT_RETURN_IF_ERROR(in.readCString(producer));
  header.producer = std::string(producer);

  while (!in.empty()) {
    size_t at = in.fileOffset();
    unsigned id = 0;
    Cursor body(nullptr, 0, 0, "");
    JFT_RETURN_IF_ERROR(readSection(in, id, body));
    if (header.sections[id]) return in.errorAt(at, "duplicate " + sectionLabel(id));
    header.sections[id] = body;
  }
  for (unsigned id : {kStringSection, kDialectSection, kAttrTypeSection,
                      kAttrTypeOffsetSection, kIrSection}) {
    if (!header.sections[id]) return in.error("missing required " + sectionLabel(id));
  }
  if (header.version >= kNativePropertiesEncoding && !header.sections[kPropertiesSection])
    return in.error("missing required " + sectionLabel(kPropertiesSection));
  if (header.sections[kResourceSection].has_value() !=
      header.sections[kResourceOffsetSection].has_value())
    return in.error("resource and resource offsets sections must come together");
  return header;
}

Status StringTable::init(Cursor section) {
  // The lengths (including the NUL) come first, in reverse order; the string
  // bytes fill the rest of the section in forward order.
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(section.readCount(count, "strings"));
  strings_.assign(count, std::string_view());
  const uint8_t* all = nullptr;
  std::vector<uint64_t> lengths(count);
  for (uint64_t i = 0; i < count; ++i)
    JFT_RETURN_IF_ERROR(section.readVarInt(lengths[i]));
  size_t data_start_offset = section.fileOffset();
  size_t data_size = section.remaining();
  JFT_RETURN_IF_ERROR(section.readBytes(data_size, all));
  size_t end = data_size;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = lengths[i];
    if (len == 0 || len > end) {
      return section.errorAt(data_start_offset,
                             "expected string lengths that fit the string data, found a "
                             "length of " +
                                 std::to_string(len));
    }
    size_t start = end - static_cast<size_t>(len);
    if (all[end - 1] != 0)
      return section.errorAt(data_start_offset + end - 1,
                             "expected a string's NUL terminator");
    strings_[count - 1 - i] =
        std::string_view(reinterpret_cast<const char*>(all + start), len - 1);
    end = start;
  }
  if (end != 0) {
    return section.errorAt(data_start_offset,
                           "expected the string data to start right after "
                           "the lengths, found " +
                               std::to_string(end) + " stray bytes");
  }
  return Status::ok();
}

Status StringTable::at(Cursor& in, size_t at_offset, uint64_t index,
                       std::string_view& out) const {
  if (index >= strings_.size()) {
    return in.errorAt(at_offset, "expected a string index below " +
                                     std::to_string(strings_.size()) + ", found " +
                                     std::to_string(index));
  }
  out = strings_[index];
  return Status::ok();
}

Status StringTable::read(Cursor& in, std::string_view& out) const {
  size_t at_offset = in.fileOffset();
  uint64_t index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(index));
  return at(in, at_offset, index, out);
}

Status readDialectIndex(Cursor& in, const DialectTable& dialects, uint32_t& out) {
  size_t at = in.fileOffset();
  uint64_t index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(index));
  if (index >= dialects.names.size()) {
    return in.errorAt(at, "expected a dialect index below " +
                              std::to_string(dialects.names.size()) + ", found " +
                              std::to_string(index));
  }
  out = static_cast<uint32_t>(index);
  return Status::ok();
}

StatusOr<DialectTable> readDialectSection(Cursor in, uint64_t version,
                                          const StringTable& strings) {
  DialectTable table;
  uint64_t num_dialects = 0;
  JFT_RETURN_IF_ERROR(in.readCount(num_dialects, "dialects"));
  for (uint64_t i = 0; i < num_dialects; ++i) {
    std::string_view name;
    std::optional<Cursor> version_blob;
    if (version < kDialectVersioning) {
      JFT_RETURN_IF_ERROR(strings.read(in, name));
    } else {
      size_t at = in.fileOffset();
      uint64_t name_index = 0;
      bool has_version = false;
      JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(name_index, has_version));
      JFT_RETURN_IF_ERROR(strings.at(in, at, name_index, name));
      if (has_version) {
        size_t section_at = in.fileOffset();
        unsigned id = 0;
        Cursor body(nullptr, 0, 0, "");
        JFT_RETURN_IF_ERROR(readSection(in, id, body));
        if (id != kDialectVersionsSection) {
          return in.errorAt(section_at, "expected a dialect version section, found " +
                                            sectionLabel(id));
        }
        version_blob = body;
      }
    }
    table.names.emplace_back(name);
    table.version_blobs.push_back(version_blob);
  }

  if (version >= kElideUnknownBlockArgLocation) {
    uint64_t num_ops = 0;  // a reservation hint only
    JFT_RETURN_IF_ERROR(in.readVarInt(num_ops));
  }
  while (!in.empty()) {
    uint32_t dialect = 0;
    JFT_RETURN_IF_ERROR(readDialectIndex(in, table, dialect));
    uint64_t count = 0;
    JFT_RETURN_IF_ERROR(in.readCount(count, "op names"));
    for (uint64_t i = 0; i < count; ++i) {
      OpNameEntry entry;
      entry.dialect = dialect;
      std::string_view name;
      if (version < kNativePropertiesEncoding) {
        JFT_RETURN_IF_ERROR(strings.read(in, name));
      } else {
        size_t at = in.fileOffset();
        uint64_t index = 0;
        bool registered = false;
        JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(index, registered));
        JFT_RETURN_IF_ERROR(strings.at(in, at, index, name));
        entry.was_registered = registered;
      }
      // An empty name is an old spelling of an op named after its dialect.
      entry.full_name = table.names[dialect];
      if (!name.empty()) entry.full_name += "." + std::string(name);
      table.ops.push_back(std::move(entry));
    }
  }
  return table;
}

}  // namespace jft::frontend::bytecode
