#include "frontend/bytecode/attr_type_table.h"

#include "frontend/bytecode/asm_text.h"
#include "frontend/bytecode/values.h"

namespace jft::frontend::bytecode {
namespace {

// Entries of both kinds are grouped by dialect in the offsets section:
// dialect index, count, then (size << 1 | has_custom_encoding) per entry.
template <typename Entry>
Status readEntryOffsets(Cursor& offsets, const Cursor& data, const DialectTable& dialects,
                        std::vector<Entry>& entries, size_t& data_used) {
  size_t filled = 0;
  while (filled < entries.size()) {
    uint32_t dialect = 0;
    JFT_RETURN_IF_ERROR(readDialectIndex(offsets, dialects, dialect));
    size_t at = offsets.fileOffset();
    uint64_t count = 0;
    JFT_RETURN_IF_ERROR(offsets.readVarInt(count));
    if (count > entries.size() - filled) {
      return offsets.errorAt(
          at, "expected at most " + std::to_string(entries.size() - filled) +
                  " more entries in this group, found " + std::to_string(count));
    }
    for (uint64_t i = 0; i < count; ++i) {
      Entry& entry = entries[filled++];
      uint64_t size = 0;
      size_t size_at = offsets.fileOffset();
      JFT_RETURN_IF_ERROR(offsets.readVarIntWithFlag(size, entry.custom));
      if (size > data.remaining() - data_used) {
        return offsets.errorAt(size_at,
                               "expected an entry size within the attr/type "
                               "section, found " +
                                   std::to_string(size) + " bytes with " +
                                   std::to_string(data.remaining() - data_used) +
                                   " left");
      }
      Cursor whole = data;
      JFT_RETURN_IF_ERROR(whole.skip(data_used));
      JFT_RETURN_IF_ERROR(
          whole.subCursor(static_cast<size_t>(size), data.label(), entry.bytes));
      entry.dialect = dialect;
      data_used += static_cast<size_t>(size);
    }
  }
  return Status::ok();
}

bool hasEntryContext(const Status& status) {
  const std::string& m = status.message();
  return m.rfind("attribute #", 0) == 0 || m.rfind("type #", 0) == 0;
}

}  // namespace

Status AttrTypeTable::init(Cursor data, Cursor offsets) {
  uint64_t num_attrs = 0, num_types = 0;
  JFT_RETURN_IF_ERROR(offsets.readCount(num_attrs, "attributes"));
  JFT_RETURN_IF_ERROR(offsets.readCount(num_types, "types"));
  if (num_attrs + num_types > offsets.remaining())
    return offsets.error(
        "expected an offset entry per attribute and type, found too few bytes");
  attr_entries_.resize(num_attrs);
  type_entries_.resize(num_types);
  attrs_.resize(num_attrs);
  types_.resize(num_types);
  size_t used = 0;
  JFT_RETURN_IF_ERROR(readEntryOffsets(offsets, data, dialects_, attr_entries_, used));
  JFT_RETURN_IF_ERROR(readEntryOffsets(offsets, data, dialects_, type_entries_, used));
  if (!offsets.empty()) return offsets.error("expected the end of the attr/type offsets");
  return Status::ok();
}

Status AttrTypeTable::enter(Cursor& in, size_t at_offset) {
  if (depth_ >= kMaxNesting) {
    return in.errorAt(at_offset, "attributes and types nested deeper than " +
                                     std::to_string(kMaxNesting) + " levels");
  }
  return Status::ok();
}

Status AttrTypeTable::readAttr(Cursor& in, MAttrPtr& out) {
  size_t at = in.fileOffset();
  uint64_t index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(index));
  return attrAt(in, at, index, out);
}

Status AttrTypeTable::readOptionalAttr(Cursor& in, MAttrPtr& out) {
  size_t at = in.fileOffset();
  uint64_t index = 0;
  bool present = false;
  JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(index, present));
  out = nullptr;
  if (!present) return Status::ok();
  return attrAt(in, at, index, out);
}

Status AttrTypeTable::readType(Cursor& in, MTypePtr& out) {
  size_t at = in.fileOffset();
  uint64_t index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(index));
  return typeAt(in, at, index, out);
}

Status AttrTypeTable::attrAt(Cursor& in, size_t at_offset, uint64_t index,
                             MAttrPtr& out) {
  if (index >= attr_entries_.size()) {
    return in.errorAt(at_offset, "expected an attribute index below " +
                                     std::to_string(attr_entries_.size()) + ", found " +
                                     std::to_string(index));
  }
  if (attr_entries_[index].state == State::kDone) {
    out = attrs_[index];
    return Status::ok();
  }
  if (attr_entries_[index].state == State::kDecoding)
    return in.errorAt(at_offset,
                      "attribute #" + std::to_string(index) + " refers to itself");
  JFT_RETURN_IF_ERROR(enter(in, at_offset));
  return resolveAttr(static_cast<size_t>(index), out);
}

Status AttrTypeTable::typeAt(Cursor& in, size_t at_offset, uint64_t index,
                             MTypePtr& out) {
  if (index >= type_entries_.size()) {
    return in.errorAt(at_offset, "expected a type index below " +
                                     std::to_string(type_entries_.size()) + ", found " +
                                     std::to_string(index));
  }
  if (type_entries_[index].state == State::kDone) {
    out = types_[index];
    return Status::ok();
  }
  if (type_entries_[index].state == State::kDecoding)
    return in.errorAt(at_offset, "type #" + std::to_string(index) + " refers to itself");
  JFT_RETURN_IF_ERROR(enter(in, at_offset));
  return resolveType(static_cast<size_t>(index), out);
}

Status AttrTypeTable::resolveAttr(size_t index, MAttrPtr& out) {
  Entry& entry = attr_entries_[index];
  const std::string& dialect = dialects_.names[entry.dialect];
  Cursor in = entry.bytes;
  entry.state = State::kDecoding;
  ++depth_;
  Status status;
  MAttrPtr value;
  if (!entry.custom) {
    std::string_view text;
    status = in.readCString(text);
    if (status.isOk()) value = parseAttrAsm(dialect, text);
  } else {
    EntryReader reader(in, *this);
    if (dialect == "builtin") {
      status = decodeBuiltinAttr(reader, value);
    } else if (dialect == "vhlo") {
      status = decodeVhloAttr(reader, value);
    } else {
      auto opaque = newAttr(dialect, MAttr::Kind::Opaque);
      const uint8_t* bytes = nullptr;
      size_t n = in.remaining();
      status = in.readBytes(n, bytes);
      if (status.isOk()) opaque->data.assign(bytes, bytes + n);
      value = opaque;
    }
  }
  --depth_;
  if (status.isOk() && !in.empty())
    status = in.error("expected the end of the attribute entry, found " +
                      std::to_string(in.remaining()) + " more bytes");
  if (!status.isOk()) {
    entry.state = State::kPending;
    if (hasEntryContext(status)) return status;
    return status.withContext("attribute #" + std::to_string(index) + " (" + dialect +
                              ")");
  }
  entry.state = State::kDone;
  attrs_[index] = value;
  out = std::move(value);
  return Status::ok();
}

Status AttrTypeTable::resolveType(size_t index, MTypePtr& out) {
  Entry& entry = type_entries_[index];
  const std::string& dialect = dialects_.names[entry.dialect];
  Cursor in = entry.bytes;
  entry.state = State::kDecoding;
  ++depth_;
  Status status;
  MTypePtr value;
  if (!entry.custom) {
    std::string_view text;
    status = in.readCString(text);
    if (status.isOk()) value = parseTypeAsm(dialect, text);
  } else {
    EntryReader reader(in, *this);
    if (dialect == "builtin") {
      status = decodeBuiltinType(reader, value);
    } else if (dialect == "vhlo") {
      status = decodeVhloType(reader, value);
    } else {
      status = in.skip(in.remaining());
      value = newType(dialect, MType::Kind::Opaque);
    }
  }
  --depth_;
  if (status.isOk() && !in.empty())
    status = in.error("expected the end of the type entry, found " +
                      std::to_string(in.remaining()) + " more bytes");
  if (!status.isOk()) {
    entry.state = State::kPending;
    if (hasEntryContext(status)) return status;
    return status.withContext("type #" + std::to_string(index) + " (" + dialect + ")");
  }
  entry.state = State::kDone;
  types_[index] = value;
  out = std::move(value);
  return Status::ok();
}

Status EntryReader::string(std::string& out) {
  std::string_view view;
  JFT_RETURN_IF_ERROR(table.strings().read(in, view));
  out = std::string(view);
  return Status::ok();
}

Status EntryReader::attrs(std::vector<MAttrPtr>& out) {
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(in.readCount(count, "attributes"));
  out.resize(count);
  for (auto& attr : out) JFT_RETURN_IF_ERROR(table.readAttr(in, attr));
  return Status::ok();
}

Status EntryReader::types(std::vector<MTypePtr>& out) {
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(in.readCount(count, "types"));
  out.resize(count);
  for (auto& type : out) JFT_RETURN_IF_ERROR(table.readType(in, type));
  return Status::ok();
}

Status EntryReader::svarints(std::vector<int64_t>& out) {
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(in.readCount(count, "integers"));
  out.resize(count);
  for (auto& value : out) JFT_RETURN_IF_ERROR(in.readSignedVarInt(value));
  return Status::ok();
}

Status EntryReader::blob(const uint8_t*& data, size_t& size) {
  uint64_t n = 0;
  JFT_RETURN_IF_ERROR(in.readCount(n, "blob bytes"));
  size = static_cast<size_t>(n);
  return in.readBytes(size, data);
}

Status EntryReader::apInt(unsigned width, std::vector<uint64_t>& words) {
  words.clear();
  if (width <= 8) {
    uint8_t byte = 0;
    JFT_RETURN_IF_ERROR(in.readByte(byte));
    words.push_back(byte);
    return Status::ok();
  }
  if (width <= 64) {
    int64_t value = 0;
    JFT_RETURN_IF_ERROR(in.readSignedVarInt(value));
    words.push_back(static_cast<uint64_t>(value));
    return Status::ok();
  }
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(in.readCount(count, "integer words"));
  for (uint64_t i = 0; i < count; ++i) {
    int64_t word = 0;
    JFT_RETURN_IF_ERROR(in.readSignedVarInt(word));
    words.push_back(static_cast<uint64_t>(word));
  }
  if (words.empty()) words.push_back(0);
  return Status::ok();
}

}  // namespace jft::frontend::bytecode
