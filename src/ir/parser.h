// IR text back into a Module: the inverse of printModule (printer.h) for
// everything it writes, in every PrintOptions mode but one: a literal elided
// by max_dense_elements has lost its elements and is refused.
//
// Also accepted, for hand-written IR (tests/passes/cases): a bare list of
// func.func without the `module { }` around it; any value names (%x, %sum),
// numbered or not; `// comments`; a `%a, %b = ...` list for a multi-result
// op. Types must agree with the values they name: an operand written with
// the wrong type is an error, as in MLIR.
//
// Errors are INVALID_ARGUMENT "IR text LINE:COL: expected ..., found ...".
// Malformed text never crashes (tests/ir/parser_test.cc damages printed IR;
// tests/fuzz mutates it under sanitizers).
// The result is not verified: run ir::verifyModule for the op rules.
#pragma once

#include <string_view>

#include "ir/module.h"
#include "support/status.h"

namespace jft::ir {

StatusOr<Module> parseModule(std::string_view text);

}  // namespace jft::ir
