// The two tt ops that build index tiles out of nothing and reshape them,
// spelled once: every family makes lane ranges and lifts a 1D tile (a range,
// a reduced row) to one axis of a 2D one.
#pragma once

#include <cstdint>

#include "codegen/ttir/ttir_writer.h"

namespace jft::codegen::ttir {

// tt.make_range: the i32 tile [0, 1, ..., n - 1].
Value makeRange(TtirWriter& w, int64_t n);

// tt.expand_dims: `v` (1D) with a unit dim inserted at `axis` (0: [1, n],
// 1: [n, 1]).
Value expandDims(TtirWriter& w, const Value& v, int axis);

}  // namespace jft::codegen::ttir
