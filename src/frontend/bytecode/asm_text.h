// Attributes and types that the bytecode holds as their textual assembly
// form (entries without a custom encoding). The forms that builtin and VHLO
// print for scalar types, tensors, enums and plain literals are parsed; any
// other text is kept as an Opaque value carrying the text, never an error.
#pragma once

#include <string_view>

#include "frontend/mlir_tree.h"

namespace jft::frontend::bytecode {

MAttrPtr parseAttrAsm(std::string_view dialect, std::string_view text);
MTypePtr parseTypeAsm(std::string_view dialect, std::string_view text);

}  // namespace jft::frontend::bytecode
