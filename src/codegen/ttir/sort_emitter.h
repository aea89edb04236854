// The sort family: one stablehlo.sort (any number of operands, one
// comparator) along one dim of up to kMaxLongSortRow elements.
//
// One program per row. The row is loaded into N = nextPow2(n) lanes and
// sorted by a bitonic network written as loops: two nested scf.for (the
// stage, then the partner distance) around one compare-and-swap step for
// the distances from kRegisterDistances up (below, see there), in which
// every lane stores itself into the row's scratch (one buffer per
// operand and one of i32 positions, N lanes per row), a barrier, reads its
// partner (lane ^ distance) back, a barrier, and keeps its own or the
// partner's. The TTIR is one step whatever N is (the network unrolled in
// registers took Triton 9 s at 1024 lanes and 27 s at 4096). The values
// are moved as values (select), never through arithmetic, so NaNs, -0.0
// and integers survive exactly, and every operand follows the same swap
// decisions.
// Order: the comparator (written lane by lane; constants it captures are
// splatted), then the original position as a tie-break, which makes the
// order total and the network stable (is_stable or not); lanes past the row
// (position >= n) order after every real element, so the first n lanes are
// the sorted row.
//
// Rows longer than a tile (n > 4096) are still one program per row: every
// tile of 4096 is first sorted ascending as above into scratch; then each
// merge of sorted blocks of 2^(s-1) into 2^s runs the bitonic network in
// its "flip" form (all comparisons ascending): the mirror pairs (i,
// block-end - i) of each block, then pairs 2^(s-2) .. 4096 apart, through
// memory, T pairs per step, then the steps below a tile on each tile (the
// loop's last stage alone). Padding past n is the largest of all and never
// moves, so pairs reaching past the row are skipped; the last merge stores
// the outputs.
#pragma once

#include <cstdint>

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// Rows longer than this are not one tile.
inline constexpr int64_t kMaxSortRow = 4096;
// The longest row sorted (through scratch); the planner checks it.
inline constexpr int64_t kMaxLongSortRow = int64_t{1} << 17;

// Steps whose partner distance is below this are done in registers: the
// tile reshaped so that the pairs are its two halves (tt.split / tt.join),
// which Triton compiles to register moves and shared-memory shuffles; the
// longer distances go through scratch. Each stage of the loop network holds
// log2 of this many such steps, unrolled (the TTIR grows with this, not
// with the row), and the exchanges through memory, with their two barriers,
// fall from log2(T)(log2(T)+1)/2 per row to those of the long distances.
inline constexpr int64_t kRegisterDistances = 32;

// One kernel with its scratch buffers; `register_steps` off, every step is an
// exchange through scratch (the form measured on the GPU; the register steps
// await a device run).
StatusOr<StagedKernels> emitSortKernels(const GroupInputs& group,
                                        bool register_steps = false);

}  // namespace jft::codegen::ttir
