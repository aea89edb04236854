// Rounding an f32 operand tile to TF32 (1 sign, 8 exponent, 10 mantissa bits)
// before tt.dot under inputPrecision = tf32.
//
// Triton hands the f32 registers to the tf32 MMA, which reads the top 19 bits
// and ignores the low 13 mantissa bits: truncation toward zero. cuBLAS (and so
// XLA) round the operands to nearest; truncation measured 1.3e-3 to 2.5e-3 off
// upstream on the zoo's f32 programs against 1e-3 for cuBLASLt. So the kernel
// rounds each loaded tile itself, with integer ops every backend lowers (no
// inline PTX: HIP keeps working; on AMD the result is the same rounded value):
//   bits = bitcast(x) : i32
//   finite: (bits + 0x1000) & ~0x1FFF   round half away from zero in
//                                       magnitude (sign-magnitude: adding to
//                                       the bits grows |x|), as PTX's
//                                       cvt.rna.tf32.f32; a carry out of the
//                                       mantissa bumps the exponent, so the
//                                       largest finite values round to +-inf
//                                       (correct rounding) and subnormals
//                                       round like any other value
//   +-inf:  unchanged
//   NaN:    bits | 0x00400000 (the quiet bit): still NaN with its sign even
//           after the MMA drops the low 13 bits (an sNaN whose payload sits
//           only there would otherwise be read as infinity)
// Ties away rather than to even: a tie is exactly 0x1000 in the low 13 bits,
// and ties-away is the rule of cvt.rna.tf32.f32, the conversion every
// tf32-capable NVIDIA GPU has (sm_80+), one add and one mask. The finite add
// never overflows i32: |bits| <= 0x7F7FFFFF there.
#pragma once

#include "codegen/ttir/ttir_writer.h"

namespace jft::codegen::ttir {

// `tile` (f32, any shape) rounded to TF32 as above, still f32.
Value roundToTf32(TtirWriter& w, const Value& tile);

}  // namespace jft::codegen::ttir
