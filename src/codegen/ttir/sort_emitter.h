// The sort family: one stablehlo.sort (any number of operands, one
// comparator) along one dim whose extent fits a tile (<= 4096 lanes).
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
#pragma once

#include <string>

#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/ttir_writer.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::codegen::ttir {

// Rows longer than this are not one tile (the planner checks it).
inline constexpr int64_t kMaxSortRow = 4096;

StatusOr<Launch> emitSortKernel(TtirWriter& writer, const ir::Module& module,
                                const ir::Function& function,
                                const fusion::Fusion& fusion,
                                const KernelSignature& signature,
                                const std::string& index_type);

}  // namespace jft::codegen::ttir
