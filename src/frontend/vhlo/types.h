// VHLO/builtin types of the generic tree to ir types.
//
// ir only has statically shaped tensors, tokens and tuples: a dynamic
// dimension or an unranked tensor is an INVALID_ARGUMENT error, an element
// type ir cannot hold (quantized, index, tf32, ...) is UNIMPLEMENTED. Both
// name the op and its source position.
#pragma once

#include <string>

#include "frontend/mlir_tree.h"
#include "frontend/vhlo/diag.h"
#include "ir/type.h"
#include "support/status.h"

namespace jft::frontend::vhlo {

// A value type: tensor, token or tuple of those.
StatusOr<ir::Type> convertType(const MType* type, const OpSite& site);

// The element type of a tensor (or a bare scalar type such as a dot
// algorithm's precision type).
StatusOr<ir::ElementType> convertElementType(const MType* type, const OpSite& site);

// Best-effort text for messages: "tensor<4x?xf32>", "!quant.uniform<...>".
std::string describeType(const MType* type);

}  // namespace jft::frontend::vhlo
