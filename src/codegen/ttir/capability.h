// What the TTIR backend can emit: its one table, owned here, handed to the
// planner as fusion::TtirCapability (PlanOptions::ttir, filled by the
// compiler) and the element-type sets its emitters compute with. An op
// listed here must be emitted by one of the families; anything else is
// another route's or unsupported.
//
// Element types: those Triton holds as scalars (i1, 8..64-bit integers, the
// floats of isTtirFloat). Ops: elementwise math, compare, select, clamp,
// convert, equal-width bitcast_convert; broadcast_in_dim, reshape, transpose,
// slice, concatenate, pad (interior >= 0), iota, reverse, dynamic_slice,
// dynamic_update_slice, gather (integer start indices), splat constants;
// reduce whose combiner is scalar elementwise ops (any number of operands);
// cumulative reductions (fusion/scan_form.h: reduce_window over a whole dim, a
// kept chlo.scan composite); any other reduce_window (pooling) and
// select_and_scatter with scalar elementwise regions, in the loop family
// (window_emitter.h); sort rows of 2..2^17; scatter (fusion/scatter_form.h).
// Complex values only in the index ops, the complex elementwise ops of
// complex_emitter.h, reduces and cumulative reductions of one complex operand
// by complex add or multiply, and scatter set/add.
#pragma once

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::ttir {

// The floats Triton computes on: f16, bf16, f32, f64, f8E4M3FN, f8E5M2.
bool isTtirFloat(ir::ElementType type);

// The element types a kernel holds as scalars: pred, 8- to 64-bit integers
// and the floats of isTtirFloat.
bool ttirHoldsElementType(ir::ElementType type);

// Whether a TTIR kernel can compute `op` (an op of a function body or
// region); the reason when not ("no TTIR emitter for sort yet").
fusion::TtirSupport ttirSupport(const ir::Module& module, const ir::Op& op);

// For passes::InlineOptions::keep_composite: the composites a TTIR kernel runs
// whole (a chlo.scan of fusion/scan_form.h's form), which must not be inlined.
bool ttirKeepsComposite(const ir::Module& module, const ir::Op& composite);

// The table as the planner asks it.
fusion::TtirCapability ttirCapability();

// `options` with ttirCapability() as PlanOptions::ttir.
fusion::PlanOptions withTtir(fusion::PlanOptions options = {});

}  // namespace jft::codegen::ttir
