// Which axis of a reduce's operand lies contiguously in memory. A reduce over
// the logical minor axis of transpose(x) reads x with a stride when x's own
// minor axis is a kept one (a bias gradient: x[tokens, features] transposed
// and summed over tokens); a row tile of one kept lane then reads one element
// per memory transaction. The reduction emitter takes a column tile there.
#pragma once

#include <optional>

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::ttir {

// The axis of `value` along which the kernel input it is computed from
// (through elementwise ops, converts, transposes and reshapes that keep the
// input's minor axis minor, all inside `fusion`) is contiguous; none when the
// chain holds other ops, the input's minor extent is too short to matter, or
// no full-size input is found.
std::optional<int64_t> contiguousAxis(const ir::Module& module,
                                      const ir::Function& function,
                                      const fusion::Fusion& fusion, ir::ValueId value);

}  // namespace jft::codegen::ttir
