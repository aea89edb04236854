// Loads and stores through a kernel's pointer parameters: the tile of
// addresses (tt.splat of the pointer, tt.addptr of the offsets), and masked
// tt.load / tt.store converting between memory and register types
// (elementwise.h). Every family that reads inputs or scratch writes them so.
#pragma once

#include <optional>
#include <string>

#include "codegen/ttir/index_space.h"
#include "codegen/ttir/ttir_writer.h"
#include "ir/element_type.h"

namespace jft::codegen::ttir {

// `param` (a pointer to `element`s, complex ones by component) plus each of
// `offset`'s lanes: addresses of `offset`'s shape.
Value pointerTile(TtirWriter& writer, const std::string& param, ir::ElementType element,
                  const Value& offset);

// The `element`s at `address`, in register type; `mask` (broadcast to the
// address's shape) leaves the other lanes unread.
Value loadTile(IndexBuilder& index, ir::ElementType element, const Value& address,
               const std::optional<Value>& mask);

// `value` (broadcast to the address's shape) stored as `element`s at
// `address`, where `mask` holds.
void storeTile(IndexBuilder& index, ir::ElementType element, const Value& address,
               const Value& value, const std::optional<Value>& mask);

}  // namespace jft::codegen::ttir
