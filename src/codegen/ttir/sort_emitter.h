// The sort family: one stablehlo.sort (any number of operands, one
// comparator) along one dim of up to kMaxLongSortRow elements.
//
// One program per row. The row is loaded into N = nextPow2(n) lanes and
// sorted by a bitonic network, as triton.language's sort does it: for each
// compare-and-swap step the [N] tile is reshaped to [A, 2, B] (B = the
// partner distance), transposed to [A, B, 2] and split into the two halves,
// which are swapped where needed, joined, transposed back and reshaped. The
// halves are moved as values (select), never through arithmetic, so NaNs,
// -0.0 and integers survive exactly, and every operand follows the same
// swap decisions.
// Order: the comparator (written lane by lane on [A, B] tiles; constants it
// captures are splatted), then the original position as a tie-break, which
// makes the order total and the network stable (is_stable or not); lanes past
// the row (position >= n) order after every real element, so the first n
// lanes are the sorted row.
//
// Rows longer than a tile (n > 4096) are still one program per row, working
// through scratch memory (one buffer per operand and one of i32 positions,
// [rows, n] each) with a gpu.barrier between passes: every tile of 4096 is
// first sorted ascending in registers as above; then each merge of sorted
// blocks of 2^(s-1) into 2^s runs the bitonic network in its "flip" form
// (all comparisons ascending): the mirror pairs (i, block-end - i) of each
// block, then pairs 2^(s-2) .. 4096 apart, through memory, T pairs per
// step, then the steps below a tile on each tile in registers. Padding past
// n is the largest of all and never moves, so pairs reaching past the row
// are skipped and the scratch holds only the n real elements; the last
// merge stores the outputs.
#pragma once

#include <cstdint>

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// Rows longer than this are not one tile.
inline constexpr int64_t kMaxSortRow = 4096;
// The longest row sorted (through scratch); the planner checks it.
inline constexpr int64_t kMaxLongSortRow = int64_t{1} << 17;

// One kernel; a long row's has the scratch buffers.
StatusOr<StagedKernels> emitSortKernels(const GroupInputs& group);

}  // namespace jft::codegen::ttir
