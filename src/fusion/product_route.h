// The TTIR product families in the planner: whether the matmul family
// (matmul_form.h: dot_general) or the conv family (conv_gemm_form.h:
// convolution) takes an op, and the route their setting and cost model give
// it. grouping.cc forms both families' groups alike: the product, the
// converts feeding it, and an elementwise epilogue.
#pragma once

#include <optional>

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::fusion {

struct ProductChoice {
  Family family = Family::kMatmul;  // kMatmul or kConv
  Route route = Route::kLibrary;    // kTtir or kLibrary
};

// Nothing when neither family computes `op`; else its family and route.
// `epilogue_fuses`: an elementwise epilogue would join the product's group.
std::optional<ProductChoice> productChoice(const ir::Module& module, const ir::Op& op,
                                           const PlanOptions& options,
                                           bool epilogue_fuses);

// kMatmul or kConv: a group of one product with its converts and epilogue.
bool isProductFamily(Family family);

}  // namespace jft::fusion
