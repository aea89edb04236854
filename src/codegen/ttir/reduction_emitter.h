// The reduction family: reduce ops over one full shape F and one set of
// reduced dims D, with their elementwise prologue and epilogue.
//
// Tile [BO, BK] over (kept index o, reduced index k); a program owns BO kept
// positions. When the reduced extent fits one tile every value stays in
// registers: a reduce is one "tt.reduce" along axis 1 (several operands for
// a multi-operand reduce such as argmax), its [BO, 1] result broadcasts
// straight back to F, so softmax and layer norm are one kernel. Otherwise
// (only when nothing of shape F needs a reduce's result) an scf.for walks k
// in chunks of BK, carrying per-lane accumulators combined with the reduce's
// own combiner, all reduces of the group in one pass. Lanes outside the
// shape are set to the reduce's init value before they are combined.
//
// Split (tile_choice.h's chooseReductionSplit): a looped reduction with too
// few kept tiles to fill the device runs as two kernels. "<name>_partials"
// gives each (kept tile, chunk of the reduced extent) its own program, which
// loops over its chunk only and stores its [BO] accumulators to scratch (one
// buffer per accumulator, [chunks, kept] row-major); "<name>" reads the
// [BO, chunks] partials, reduces them with the same combiner (lanes past the
// chunks set to the init value) and computes the epilogue and outputs as
// the whole kernel would. It reassociates the reduction, as XLA's split
// reductions do, and is deterministic.
//
// A complex accumulator (a reduce of one complex operand by complex add or
// multiply) is two real lanes throughout: two tt.reduce operands combined
// by complex_emitter's combiner, two loop-carried accumulators, two scratch
// buffers, and the complex outputs stored part by part.
//
// Addresses: with D the trailing dims, an F-shaped input is read at o*R + k
// (contiguous along k); with D the leading dims, at k*O + o (a column
// reduction: o is the contiguous tile axis); otherwise through the
// multi-index. Outputs of K's size are stored at o, those of F's size at the
// F index. An F-sized output that needs no reduce result (a summand returned
// beside its sum) is stored inside the loop, chunk by chunk, as the loop
// reads F (by the partials stage when split; the finishing stage skips it),
// so it does not force the whole reduced extent into one tile.
#pragma once

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// One kernel, or the two stages of a split reduction with their scratch.
StatusOr<StagedKernels> emitReductionKernels(const GroupInputs& group);

}  // namespace jft::codegen::ttir
