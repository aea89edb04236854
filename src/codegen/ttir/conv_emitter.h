// The conv family: one convolution (fusion/conv_gemm_form.h) as an implicit
// GEMM kernel, with its operand converts and elementwise epilogue fused. The
// tile loop, operand loads and epilogue are the matmul family's (dot_tiles.h);
// what is the convolution's own is where the operand tiles come from.
//
// Program p computes one BLOCK_M x BLOCK_N tile of out[m][n] (tile rows
// grouped for L2 reuse). Before the K loop, each row m of the tile splits
// into the result's batch and output spatial indices, and the input
// coordinate of window position 0 is hoisted: t_i = o_i * stride_i - pad_lo_i.
// The scf.for walks K = (window positions..., input feature) in BLOCK_K
// steps. When BLOCK_K divides the input features (tile_choice.h picks it so
// when it can), a step lies in one window position: that position is scalar
// arithmetic on the loop counter, the channels a contiguous range, and the
// lhs tile's masks vary per row only. Otherwise every lane of the step splits
// its k into (window position, feature) with a div/rem by constants, and the
// K tail is masked. The lhs tile reads, for row m and column k, the input at
// p_i = t_i + w'_i * rhs_dilation_i (w' reversed under window_reversal),
// masked to zero outside the input or on a hole of lhs dilation (checks the
// shape proves unneeded are left out: p >= 0 only with a positive low pad,
// the upper bound only when the last window can reach past the input); the
// rhs tile is read in place through its index maps. tt.dot accumulates in
// f32; after the loop the accumulator is rounded to the result type and the
// epilogue stores every output at the tile's indices in the result's layout.
#pragma once

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// UNIMPLEMENTED when the group is not a conv group as the planner forms them
// (one convolution the conv family takes, operands read from inputs or
// through one convert of an input, outputs of the convolution's shape).
StatusOr<Launch> emitConvKernel(const KernelInputs& in);

}  // namespace jft::codegen::ttir
