// A stablehlo.convolution's attributes read once, defaults filled in: what
// both of its routes (the library's patches + GEMM, codegen/library/convolution_call.h,
// and the TTIR implicit GEMM, conv_gemm_form.h) start from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::fusion {

struct ConvForm {
  ir::ConvDimensionNumbers dn;
  ir::Type lhs, rhs, out;
  int64_t spatial = 0;  // number of spatial dims
  std::vector<int64_t> strides, pad_lo, pad_hi, lhs_dilation, rhs_dilation;
  std::vector<bool> reversal;
  int64_t feature_groups = 1, batch_groups = 1;

  int64_t groups() const { return feature_groups * batch_groups; }
  int64_t batchPerGroup() const { return lhs.dims[dn.input_batch_dim] / batch_groups; }
  int64_t featuresPerGroup() const { return rhs.dims[dn.kernel_input_feature_dim]; }
  int64_t outFeatures() const { return rhs.dims[dn.kernel_output_feature_dim]; }
  int64_t outSpatial(int64_t i) const { return out.dims[dn.output_spatial_dims[i]]; }
  int64_t window(int64_t i) const { return rhs.dims[dn.kernel_spatial_dims[i]]; }
  int64_t inSpatial(int64_t i) const { return lhs.dims[dn.input_spatial_dims[i]]; }
};

// `op` is a verified convolution of `module`; INVALID_ARGUMENT otherwise.
StatusOr<ConvForm> readConvForm(const ir::Module& module, const ir::Op& op);

// "stablehlo.convolution (tensor<..>, tensor<..>) -> tensor<..> at loc" for errors.
std::string convText(const ir::Module& module, const ir::Op& op);

}  // namespace jft::fusion
