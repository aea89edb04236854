// The loop family: one program per output tile, every value of the group
// computed on that tile through the elemental emitter.
//
// A group of only elementwise ops on equal shapes (or rank <= 1) uses a flat
// 1D tile over the linear index, as Triton's own elementwise kernels do: no
// index arithmetic at all. Otherwise the output is viewed as [outer, inner]
// (inner = its last dim) and tiled [BR, BC]: columns come straight from a
// make_range, so row-major loads and stores stay contiguous, and a transpose
// reads through make_range-based indices along the other tile axis (Triton
// converts the layout between load and store, both coalesced). All outputs
// of a loop group have one shape and are stored at the same index.
#pragma once

#include "codegen/ttir/kernel_inputs.h"
#include "support/status.h"

namespace jft::codegen::ttir {

StatusOr<Launch> emitLoopKernel(const KernelInputs& in);

}  // namespace jft::codegen::ttir
