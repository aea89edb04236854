// Tree locations (MLIR builtin locations) into a module's LocationTable.
//
// Location attributes are shared in the bytecode, so each distinct tree
// node becomes one table entry. Malformed locations never fail an import:
// whatever cannot be read becomes the unknown location.
#pragma once

#include <string>
#include <unordered_map>

#include "frontend/mlir_tree.h"
#include "ir/location.h"

namespace jft::frontend::vhlo {

class LocationImporter {
 public:
  explicit LocationImporter(ir::LocationTable& table) : table_(table) {}

  ir::LocId import(const MAttr* loc) { return importAt(loc, 0); }

  // For messages: "zoo.py:17:20" when a file position is known, else the
  // table's one-line description ("jit(f)/mul" or "unknown location").
  std::string where(ir::LocId id) const;

 private:
  ir::LocId importAt(const MAttr* loc, int depth);

  ir::LocationTable& table_;
  // Keyed by node identity only to share entries; ids are handed out in
  // traversal order, so output never depends on pointer values.
  std::unordered_map<const MAttr*, ir::LocId> imported_;
};

}  // namespace jft::frontend::vhlo
