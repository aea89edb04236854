// The attention family: the pattern of fusion/attention_form.h as one
// flash-attention kernel (online softmax over key blocks; the [batch, Tq, Tk]
// scores never reach memory).
//
// Grid (ceil(Tq / BLOCK_M), batch items): program (i, b) holds the
// [BLOCK_M, D] tile of Q rows i*BLOCK_M.. of item b, and walks the keys in
// BLOCK_N steps with an scf.for carrying the row maxima m, the row sums l
// (both [BLOCK_M, 1] f32) and the [BLOCK_M, Dv] f32 accumulator:
//   s   = tt.dot(q, trans(k))                 f32, rounded to the qk dot's
//                                             result type as StableHLO does
//   x   = the pattern's ops on s              elemental emitter at the score
//                                             tile's (batch, q, k) indices:
//                                             converts, scale, positional
//                                             masks exactly as written
//   m'  = max(m, rowmax(x)); c = m' or 0 where m' = -inf (so that a block of
//         -inf scores gives 0, not NaN)
//   p   = exp(x - c); alpha = exp(m - c)
//   l'  = l * alpha + rowsum(p)
//   acc = acc * alpha + tt.dot(p as V's type, v)
// then out = acc / l, rounded to the pv dot's result type and stored. Key
// lanes past Tk are -inf (excluded); with a causal mask (causal_offset) the
// loop stops at the last key a row of the block keeps.
//
// Operands are read in place through their index maps (any layout, as the
// matmul family), f32 operand tiles rounded to TF32 when the dot's
// precision is tf32 (as the matmul family and cuBLASLt do).
#pragma once

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// The tiles the kernel runs with.
struct AttentionTile {
  int64_t m = 128;   // query rows per program
  int64_t n = 64;    // keys per loop step
  int64_t d = 128;   // the head dim of Q and K, padded to a power of two
  int64_t dv = 128;  // V's head dim, padded
  int num_warps = 8;
  int num_stages = 3;
};

// For query/key extents `tq`, `tk`, head dims `d`, `dv` and operands of
// `operand_bits`: 128 x 64 with 8 warps for 16-bit operands and head dims up
// to 128 (the Hopper choice of Triton's flash-attention tutorial); 64-row
// tiles past that (the accumulator and Q tile stay within the registers);
// shrunk to cover small extents.
AttentionTile chooseAttentionTile(int64_t tq, int64_t tk, int64_t d, int64_t dv,
                                  int operand_bits);

// UNIMPLEMENTED when the group is not an attention group as the planner
// forms it (attention_form.h), or reads Q, K or V from other than its inputs.
StatusOr<Launch> emitAttentionKernel(const KernelInputs& in);

}  // namespace jft::codegen::ttir
