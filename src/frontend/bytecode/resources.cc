#include "frontend/bytecode/resources.h"

namespace jft::frontend::bytecode {
namespace {

enum ResourceKind : uint8_t { kBlobResource = 0, kBoolResource = 1, kStringResource = 2 };

}  // namespace

Status ResourceTable::readGroup(Cursor& offsets, Cursor& data, const StringTable& strings,
                                const std::string* dialect) {
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(offsets.readCount(count, "resources", 3));
  for (uint64_t i = 0; i < count; ++i) {
    std::string_view key;
    uint64_t size = 0;
    uint8_t kind = 0;
    JFT_RETURN_IF_ERROR(strings.read(offsets, key));
    JFT_RETURN_IF_ERROR(offsets.readVarInt(size));
    JFT_RETURN_IF_ERROR(offsets.readByte(kind));
    if (size > data.remaining()) {
      return data.error("expected resource '" + std::string(key) + "' of " +
                        std::to_string(size) + " bytes, found only " +
                        std::to_string(data.remaining()));
    }
    Cursor entry(nullptr, 0, 0, "");
    JFT_RETURN_IF_ERROR(data.subCursor(static_cast<size_t>(size), data.label(), entry));
    if (!dialect) continue;  // external resources: nothing of ours refers to them

    DialectResource resource;
    resource.dialect = *dialect;
    resource.key = std::string(key);
    // An empty entry only declares the key.
    if (kind == kBlobResource && !entry.empty()) {
      uint64_t alignment = 0, blob_size = 0;
      const uint8_t* bytes = nullptr;
      JFT_RETURN_IF_ERROR(entry.readVarInt(alignment));
      JFT_RETURN_IF_ERROR(entry.readVarInt(blob_size));
      JFT_RETURN_IF_ERROR(entry.alignTo(alignment));
      if (blob_size > entry.remaining())
        return entry.error("expected a resource blob of " + std::to_string(blob_size) +
                           " bytes, found only " + std::to_string(entry.remaining()));
      JFT_RETURN_IF_ERROR(entry.readBytes(static_cast<size_t>(blob_size), bytes));
      resource.has_blob = true;
      resource.blob.assign(bytes, bytes + blob_size);
    } else if (kind > kStringResource) {
      return offsets.error("expected a resource kind (0..2), found " +
                           std::to_string(kind));
    }
    resources_.push_back(std::move(resource));
  }
  return Status::ok();
}

Status ResourceTable::init(const std::optional<Cursor>& data_section,
                           const std::optional<Cursor>& offset_section,
                           const StringTable& strings, const DialectTable& dialects) {
  if (!data_section || !offset_section) return Status::ok();
  Cursor data = *data_section;
  Cursor offsets = *offset_section;
  uint64_t external_groups = 0;
  JFT_RETURN_IF_ERROR(offsets.readCount(external_groups, "external resource groups"));
  for (uint64_t i = 0; i < external_groups; ++i) {
    std::string_view key;
    JFT_RETURN_IF_ERROR(strings.read(offsets, key));
    JFT_RETURN_IF_ERROR(readGroup(offsets, data, strings, nullptr));
  }
  while (!offsets.empty()) {
    uint32_t dialect = 0;
    JFT_RETURN_IF_ERROR(readDialectIndex(offsets, dialects, dialect));
    JFT_RETURN_IF_ERROR(readGroup(offsets, data, strings, &dialects.names[dialect]));
  }
  return Status::ok();
}

Status ResourceTable::read(Cursor& in, const DialectResource*& out) const {
  size_t at = in.fileOffset();
  uint64_t index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(index));
  if (index >= resources_.size()) {
    return in.errorAt(at, "expected a resource index below " +
                              std::to_string(resources_.size()) + ", found " +
                              std::to_string(index));
  }
  out = &resources_[index];
  return Status::ok();
}

}  // namespace jft::frontend::bytecode
