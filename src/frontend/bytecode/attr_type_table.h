// The attribute/type table: offsets section + entry bytes, decoded lazily on
// first reference and cached.
//
// Entries with a custom encoding go to their dialect's codec (builtin, vhlo);
// entries of other dialects stay Opaque with their raw bytes. Entries without
// one hold their textual assembly form, parsed best-effort. An entry that is
// reached again while it is still being decoded is a cycle and an error;
// nesting is bounded (kMaxNesting) so hostile input cannot exhaust the stack.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/bytecode/cursor.h"
#include "frontend/bytecode/resources.h"
#include "frontend/bytecode/tables.h"
#include "frontend/mlir_tree.h"
#include "support/status.h"

namespace jft::frontend::bytecode {

class AttrTypeTable {
 public:
  static constexpr int kMaxNesting = 256;

  AttrTypeTable(const StringTable& strings, const DialectTable& dialects,
                const ResourceTable& resources, uint64_t version)
      : strings_(strings),
        dialects_(dialects),
        resources_(resources),
        version_(version) {}

  Status init(Cursor data, Cursor offsets);

  // Read an index from `in` and resolve it.
  Status readAttr(Cursor& in, MAttrPtr& out);
  // (index << 1) | present; `out` stays null when absent.
  Status readOptionalAttr(Cursor& in, MAttrPtr& out);
  Status readType(Cursor& in, MTypePtr& out);

  Status attrAt(Cursor& in, size_t at_offset, uint64_t index, MAttrPtr& out);
  Status typeAt(Cursor& in, size_t at_offset, uint64_t index, MTypePtr& out);

  const StringTable& strings() const { return strings_; }
  const ResourceTable& resources() const { return resources_; }
  uint64_t version() const { return version_; }
  size_t numAttrs() const { return attrs_.size(); }
  size_t numTypes() const { return types_.size(); }

 private:
  enum class State : uint8_t { kPending, kDecoding, kDone };
  struct Entry {
    uint32_t dialect = 0;
    bool custom = false;
    Cursor bytes{nullptr, 0, 0, ""};
    State state = State::kPending;
  };

  Status resolveAttr(size_t index, MAttrPtr& out);
  Status resolveType(size_t index, MTypePtr& out);
  Status enter(Cursor& in, size_t at_offset);

  const StringTable& strings_;
  const DialectTable& dialects_;
  const ResourceTable& resources_;
  uint64_t version_;
  std::vector<Entry> attr_entries_, type_entries_;
  std::vector<MAttrPtr> attrs_;
  std::vector<MTypePtr> types_;
  int depth_ = 0;
};

// What a dialect codec reads an entry with: the entry's bytes plus the
// table, for references to other attributes, types, strings and resources.
class EntryReader {
 public:
  EntryReader(Cursor& in, AttrTypeTable& table) : in(in), table(table) {}

  Cursor& in;
  AttrTypeTable& table;

  Status attr(MAttrPtr& out) { return table.readAttr(in, out); }
  Status optionalAttr(MAttrPtr& out) { return table.readOptionalAttr(in, out); }
  Status type(MTypePtr& out) { return table.readType(in, out); }
  Status string(std::string& out);
  Status varint(uint64_t& out) { return in.readVarInt(out); }
  Status svarint(int64_t& out) { return in.readSignedVarInt(out); }
  // count, then each element.
  Status attrs(std::vector<MAttrPtr>& out);
  Status types(std::vector<MTypePtr>& out);
  Status svarints(std::vector<int64_t>& out);
  // varint size, then the bytes.
  Status blob(const uint8_t*& data, size_t& size);
  // An integer of known bit width: one byte up to 8 bits, a zigzag varint up
  // to 64, else a count of 64-bit words each a zigzag varint. Words are
  // little-endian; at least one is returned.
  Status apInt(unsigned width, std::vector<uint64_t>& words);
};

// Dialect codecs (one file each). They return the decoded value or an error;
// `in` is positioned after the entry's dialect-specific code.
Status decodeBuiltinAttr(EntryReader& r, MAttrPtr& out);
Status decodeBuiltinType(EntryReader& r, MTypePtr& out);
Status decodeVhloAttr(EntryReader& r, MAttrPtr& out);
Status decodeVhloType(EntryReader& r, MTypePtr& out);

}  // namespace jft::frontend::bytecode
