// The op classes the planner groups TTIR kernels by: elementwise ops, splat
// constants, the kernel family of an op, the complex combiners the reduction
// and scan families run. What the TTIR backend can emit (ops, element types)
// is not decided here: it is the backend's own table (codegen/ttir/
// capability.h), handed to the planner as PlanOptions::ttir (fusion.h's
// TtirCapability); docs/ops.md lists what has no route.
#pragma once

#include <string>

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::fusion {

// Elementwise ops (same shape in and out; select/clamp may take scalars).
bool isTtirElementwise(ir::OpKind kind);

// A constant whose elements are all one value (scalars included).
bool isSplatConstant(const ir::Op& op);

// The kernel family a TTIR group rooted at `op` belongs to: kReduction for a
// reduce, kScan/kScatter/kSort for the ops those single-op families run,
// kMatmul for a dot_general and kConv for a convolution (which the planner
// routes itself: grouping.cc, product_route.h), kLoop otherwise.
Family ttirFamilyOf(const ir::Module& module, const ir::Op& op);

// The one op of a combiner over complex values that the reduction and scan
// families run: a complex add or multiply of the region's two arguments
// (what jnp.sum, mean, prod, cumsum and cumprod lower to). nullptr, with the
// reason in `why`, for any other combiner.
const ir::Op* complexReduceCombiner(const ir::Module& module, const ir::Region& region,
                                    std::string* why);

}  // namespace jft::fusion
