// A checker of TTIR module text for tests: is it well-formed the way Triton
// 3.6 prints and parses it, using only ops its TTIR -> TTGIR conversion
// accepts?
//
// Checked: balanced regions (module, tt.func, scf.for/if/while bodies,
// tt.reduce/scan combiners); every SSA use defined earlier in an enclosing
// scope (results of a region op only after its region); op names from the
// accepted set (arith.negf, arith.bitcast and math ops such as math.tanh
// are not in it: Triton rejects them on tensors); operand counts; the
// ` : type` suffix of each op form ("T", "T to U", "T -> U", "T, U",
// "(T...) -> U", "A * B -> C"); tensor types with power-of-two dims;
// pointer types; operand types against the types the suffix names; f32-only
// ops (tt.precise_divf/precise_sqrt) on f32.
// Not checked: attribute values beyond make_range and cmp predicates.
#pragma once

#include <string_view>

#include "support/status.h"

namespace jft::codegen::ttir::testing {

// OK, or INVALID_ARGUMENT "line N: what is wrong: the line".
Status checkTtirSyntax(std::string_view module_text);

}  // namespace jft::codegen::ttir::testing
