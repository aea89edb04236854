// Which ops the TTIR route can run: the contract between the planner and the
// TTIR emitters (src/codegen/ttir). An op listed here must be emitted by the
// loop or reduction emitter; anything else is another route's or unsupported.
//
// Element types: those Triton holds as scalars (i1, 8..64-bit integers,
// f16, bf16, f32, f64, f8E4M3FN, f8E5M2). Ops: elementwise math, compare,
// select, clamp, convert, equal-width bitcast_convert; broadcast_in_dim,
// reshape, transpose, slice, concatenate, pad (interior >= 0), iota, reverse,
// dynamic_slice, dynamic_update_slice, gather (integer start indices), splat
// constants; reduce whose combiner is scalar elementwise ops (any number of
// operands); cumulative reductions (scan_form.h: reduce_window over a whole
// dim, a kept chlo.scan composite); any other reduce_window (pooling) and
// select_and_scatter with scalar elementwise regions, in the loop family
// (codegen/ttir/window_emitter.h). Complex values only in the index ops, the
// complex elementwise ops of codegen/ttir/complex_emitter.h, reduces and
// cumulative reductions of one complex operand by complex add or multiply,
// and scatter set/add (loop, reduction, scan and scatter families);
// docs/ops.md lists what has no route.
#pragma once

#include <string>

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::fusion {

bool ttirHoldsElementType(ir::ElementType type);

// Elementwise ops (same shape in and out; select/clamp may take scalars).
bool isTtirElementwise(ir::OpKind kind);

// A constant whose elements are all one value (scalars included).
bool isSplatConstant(const ir::Op& op);

struct TtirSupport {
  bool ok = false;
  std::string reason;  // why not, when !ok: "no TTIR emitter for sort yet"
};

// The kernel family a TTIR group rooted at `op` belongs to: kReduction for a
// reduce, kScan/kScatter/kSort for the ops those single-op families run,
// kMatmul for a dot_general and kConv for a convolution (which the planner
// routes itself: grouping.cc, product_route.h), kLoop otherwise.
Family ttirFamilyOf(const ir::Module& module, const ir::Op& op);

// For passes::InlineOptions::keep_composite: the composites a TTIR kernel runs
// whole (a chlo.scan of scan_form.h's form), which must not be inlined.
bool ttirKeepsComposite(const ir::Module& module, const ir::Op& composite);

// The one op of a combiner over complex values that the reduction and scan
// families run: a complex add or multiply of the region's two arguments
// (what jnp.sum, mean, prod, cumsum and cumprod lower to). nullptr, with the
// reason in `why`, for any other combiner.
const ir::Op* complexReduceCombiner(const ir::Module& module, const ir::Region& region,
                                    std::string* why);

// Whether a TTIR kernel can compute `op` (an op of a function body or region).
TtirSupport ttirSupport(const ir::Module& module, const ir::Op& op);

}  // namespace jft::fusion
