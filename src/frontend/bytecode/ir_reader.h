// The IR section: the top-level block's ops, each with its name, location,
// attributes, properties, results, operands, successors and regions; blocks
// with their arguments.
//
// The bytecode numbers values per isolated-from-above scope (a region's
// values follow those of the regions around it, and an isolated region
// starts again at 0); the reader translates them to ids unique in the tree.
// Use-list orders are read and dropped. Region nesting is bounded.
#pragma once

#include "frontend/bytecode/attr_type_table.h"
#include "frontend/bytecode/cursor.h"
#include "frontend/bytecode/properties.h"
#include "frontend/bytecode/tables.h"
#include "frontend/mlir_tree.h"
#include "support/status.h"

namespace jft::frontend::bytecode {

inline constexpr int kMaxRegionNesting = 64;

Status readIrSection(Cursor section, uint64_t version, const DialectTable& dialects,
                     AttrTypeTable& attrs, const PropertiesTable& properties,
                     MTree& tree);

}  // namespace jft::frontend::bytecode
