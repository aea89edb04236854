#include "fusion/conv_gemm_form.h"

#include <algorithm>

namespace jft::fusion {
namespace {

using ir::ElementType;

bool isProductType(ElementType t) {
  return t == ElementType::F16 || t == ElementType::BF16 || t == ElementType::F32;
}

}  // namespace

std::optional<ConvGemmForm> convGemmFormOf(const ir::Module& module, const ir::Op& op,
                                           std::string* why) {
  if (op.kind != ir::OpKind::Convolution)
    return noForm<ConvGemmForm>(why, "not a convolution");
  StatusOr<ConvForm> read = readConvForm(module, op);
  if (!read.isOk()) return noForm<ConvGemmForm>(why, read.status().message());
  ConvGemmForm form;
  form.conv = std::move(*read);
  const ConvForm& c = form.conv;
  if (!c.lhs.isTensor() || !c.rhs.isTensor() || !c.out.isTensor())
    return noForm<ConvGemmForm>(why, "convolution of non-tensor values");
  if (c.groups() != 1)
    return noForm<ConvGemmForm>(
        why,
        "grouped convolutions (feature_group_count or batch_group_count > "
        "1) stay on the library route");
  if (c.lhs.element != c.rhs.element || !isProductType(c.lhs.element))
    return noForm<ConvGemmForm>(
        why,
        "the TTIR convolution takes f16, bf16 or f32 operands of one type "
        "(not " +
            std::string(ir::elementTypeName(c.lhs.element)) + " x " +
            std::string(ir::elementTypeName(c.rhs.element)) + ")");
  if (c.out.element != ElementType::F32 && c.out.element != c.lhs.element)
    return noForm<ConvGemmForm>(
        why, "the TTIR convolution writes f32 or the operand type, not " +
                 std::string(ir::elementTypeName(c.out.element)));
  if (c.lhs.numElements() == 0 || c.rhs.numElements() == 0 || c.out.numElements() == 0)
    return noForm<ConvGemmForm>(why, "a convolution with an empty dimension");
  form.n = c.outFeatures();
  form.channels = c.featuresPerGroup();
  form.k = form.channels;
  std::vector<int64_t> k_dims;
  for (int64_t i = 0; i < c.spatial; ++i) {
    form.k *= c.window(i);
    k_dims.push_back(c.dn.kernel_spatial_dims[static_cast<size_t>(i)]);
  }
  k_dims.push_back(c.dn.kernel_input_feature_dim);
  for (int64_t d = 0; d < c.out.rank(); ++d) {
    if (d == c.dn.output_feature_dim) continue;
    form.m_dims.push_back(d);
    form.m *= c.out.dims[static_cast<size_t>(d)];
  }
  // The smallest tile is 16 x 16: the grid must stay within one i32 axis.
  if (((form.m + 15) / 16) * ((form.n + 15) / 16) >= (int64_t{1} << 31))
    return noForm<ConvGemmForm>(why,
                                "a convolution with more tiles than one grid axis holds");
  form.rhs_k = indexMapOf(c.rhs.dims, k_dims);
  form.rhs_n = indexMapOf(c.rhs.dims, {c.dn.kernel_output_feature_dim});
  form.operand = c.lhs.element;
  form.result = c.out.element;
  form.input_precision = inputPrecisionOf(op, c.lhs.element);
  return form;
}

Route chooseConvRoute(const ConvGemmForm& form, const PlanOptions& options) {
  switch (options.conv) {
    case ConvRoute::kLibrary:
    case ConvRoute::kCudnn:
      return Route::kLibrary;
    case ConvRoute::kTtir:
      return Route::kTtir;
    case ConvRoute::kAuto:
      break;
  }
  if (!options.library_route) return Route::kTtir;
  if (form.operand == ElementType::F32) return Route::kLibrary;
  const std::vector<int64_t>& dilation = form.conv.lhs_dilation;
  if (std::any_of(dilation.begin(), dilation.end(), [](int64_t d) { return d > 1; }))
    return Route::kLibrary;
  if (form.k > kMaxAutoConvK || form.n > kMaxAutoConvN) return Route::kLibrary;
  return Route::kTtir;
}

const char* convRouteName(ConvRoute route) {
  switch (route) {
    case ConvRoute::kAuto:
      return "auto";
    case ConvRoute::kLibrary:
      return "library";
    case ConvRoute::kTtir:
      return "ttir";
    case ConvRoute::kCudnn:
      return "cudnn";
  }
  return "?";
}

}  // namespace jft::fusion
