// Windowed ops as index ops of the elemental emitter (loop family): each
// output lane walks its window(s) and reads the input through the elemental
// emitter, so the input's producers fuse (recomputed per window element).
//
// reduce_window (pooling): out[o] = init (+) every element of the window at
// o * stride - pad_low, padded input positions (outside the input, or between
// base-dilated elements) giving the init value, as StableHLO pads its inputs
// with the init values before reducing. Any number of operands; the body is
// applied lane by lane. Windows of up to kUnrolledWindow elements are
// unrolled; larger ones are an scf.for over the window's linear index.
//
// select_and_scatter (max-pool gradient): out[q] = init (+) source[j] for
// every window j containing q whose selected element is q. Each lane visits
// the ceil(W / stride) windows per dim that can contain it and re-runs that
// window's selection (row-major walk over the non-padding elements; the
// candidate replaces the selection when select(selected, candidate) is false,
// as XLA does), so no atomics and no second pass are needed.
#pragma once

#include <vector>

#include "codegen/ttir/elemental.h"

namespace jft::codegen::ttir {

// Windows with at most this many elements are unrolled.
inline constexpr int64_t kUnrolledWindow = 64;
// A select_and_scatter lane re-reads at most this many operand elements
// (windows containing it x window size); beyond, the op is not TTIR.
inline constexpr int64_t kMaxSelectReads = 1024;

// All results of a reduce_window at `space` (of the results' shape).
StatusOr<std::vector<Value>> emitReduceWindow(Elemental& elemental, const ir::Op& op,
                                              int space);

StatusOr<Value> emitSelectAndScatter(Elemental& elemental, const ir::Op& op, int space);

}  // namespace jft::codegen::ttir
