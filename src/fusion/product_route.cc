#include "fusion/product_route.h"

#include "fusion/conv_gemm_form.h"
#include "fusion/matmul_form.h"

namespace jft::fusion {

std::optional<ProductChoice> productChoice(const ir::Module& module, const ir::Op& op,
                                           const PlanOptions& options,
                                           bool epilogue_fuses) {
  if (op.kind == ir::OpKind::DotGeneral) {
    std::optional<MatmulForm> form = matmulFormOf(module, op);
    if (!form) return std::nullopt;
    // A route the autotuner measured for this dot beats the cost model's guess.
    if (options.matmul == MatmulRoute::kAuto && options.library_route) {
      auto measured = options.matmul_decisions.find(matmulSignature(module, op));
      if (measured != options.matmul_decisions.end())
        return ProductChoice{Family::kMatmul, measured->second};
    }
    return ProductChoice{Family::kMatmul,
                         chooseMatmulRoute(*form, options, epilogue_fuses)};
  }
  if (op.kind == ir::OpKind::Convolution) {
    std::optional<ConvGemmForm> form = convGemmFormOf(module, op);
    if (!form) return std::nullopt;
    if (options.conv == ConvRoute::kAuto && options.library_route &&
        options.conv_library_takes && options.conv_library_takes(op))
      return ProductChoice{Family::kConv, Route::kLibrary};
    return ProductChoice{Family::kConv, chooseConvRoute(*form, options)};
  }
  return std::nullopt;
}

bool isProductFamily(Family family) {
  return family == Family::kMatmul || family == Family::kConv;
}

}  // namespace jft::fusion
