// Op-by-op checks of the loose comparison for a function whose non-constant
// ops line up one to one with the import's (no chlo op in the text): result
// types, properties (one the import lacks is accepted when the text gives it
// its StableHLO default, which serialization omits), and operand wiring where
// a constant operand counts as its value, wherever the serializer moved or
// merged it.
#pragma once

#include <string>
#include <vector>

#include "generic_text.h"
#include "ir/module.h"

namespace jft::conformance {

void compareWiringModuloConstants(const TextOp& text_function,
                                  const ir::Function& function, const ir::Module& module,
                                  std::vector<std::string>& out);

}  // namespace jft::conformance
