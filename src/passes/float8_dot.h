// float8_dot: a product of float8 operands becomes the same product of the
// operands widened to f16 (bf16 when the result is bf16). Every float8 value
// but f8E8M0FNU's is exactly an f16 and a bf16 value, so the library's
// 16-bit GEMM with f32 accumulation computes what a float8 tensor-core
// product does: exact products, f32 sums. A float8 result is accumulated
// in f32 and rounded once to it, as XLA does. A dot `algorithm` naming the
// float8 types is dropped: it asked for exactly that.
#pragma once

#include "ir/module.h"

namespace jft::passes {

// Returns true when a dot was rewritten.
bool widenFloat8Dots(ir::Module& module);

}  // namespace jft::passes
