// Checks shared by the strict and the loose comparison: the module's name and,
// per function, visibility and signature.
#pragma once

#include <string>
#include <vector>

#include "generic_text.h"
#include "ir/module.h"

namespace jft::conformance {

// The function's sym_name, unquoted ("" if missing).
std::string textFunctionName(const TextOp& function);

void compareModuleName(const TextModule& text, const ir::Module& module,
                       std::vector<std::string>& out);
// Visibility and argument/result types (from function_type and, when the
// text has a body, its block arguments).
void compareFunctionHeader(const TextOp& text, const ir::Function& function,
                           const ir::Module& module, std::vector<std::string>& out);

}  // namespace jft::conformance
