// The resource sections: external resource groups (skipped) and dialect
// resources, whose keys dense_resource attributes refer to by index.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontend/bytecode/cursor.h"
#include "frontend/bytecode/tables.h"
#include "support/status.h"

namespace jft::frontend::bytecode {

struct DialectResource {
  std::string dialect;
  std::string key;
  bool has_blob = false;
  std::vector<uint8_t> blob;  // the blob's bytes when the entry is a blob
};

class ResourceTable {
 public:
  // Both sections absent is fine: the table stays empty.
  Status init(const std::optional<Cursor>& data, const std::optional<Cursor>& offsets,
              const StringTable& strings, const DialectTable& dialects);
  // Reads a resource handle index from `in`.
  Status read(Cursor& in, const DialectResource*& out) const;

 private:
  Status readGroup(Cursor& offsets, Cursor& data, const StringTable& strings,
                   const std::string* dialect);
  std::vector<DialectResource> resources_;
};

}  // namespace jft::frontend::bytecode
