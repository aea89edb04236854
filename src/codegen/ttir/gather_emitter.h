// stablehlo.gather as an index op of the elemental emitter (loop family, and
// any group the elemental emitter serves).
//
// For each lane of an output space: the batch part of the output index picks
// a row of the start indices, whose components (one per start_index_map
// entry, read through the elemental emitter so the index computation fuses)
// are clamped to [0, operand_dim - slice_size] as StableHLO says; batching
// dims take the batch index itself; offset dims add the output's offset
// index. The operand is then read at that index, again through the elemental
// emitter (its own producers fuse too).
#pragma once

#include "codegen/ttir/elemental.h"

namespace jft::codegen::ttir {

StatusOr<Value> emitGather(Elemental& elemental, const ir::Op& op, int space);

}  // namespace jft::codegen::ttir
