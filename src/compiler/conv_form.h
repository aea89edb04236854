// A stablehlo.convolution's attributes read once, defaults filled in, in the
// terms the library lowering uses (convolution_call.h).
//
// Roles name the dims the lowering moves around: the lhs batch dim (per
// batch group), the input feature dim (per feature group), each output
// spatial dim and each window (kernel spatial) dim, the group index and the
// output feature (per group). A patch matrix, the GEMM's operand A, is laid
// out as [group, m roles..., k roles...] with m roles drawn from {batch,
// output spatial} and k roles from {input feature, window}.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

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
};

// Dim roles: output spatial i is i, window i is kWindowRole + i.
enum : int64_t { kGroupRole = -3, kChannelRole = -2, kBatchRole = -1 };
inline constexpr int64_t kWindowRole = int64_t{1} << 20;
// The output feature within a group (GEMM's n) and the whole output feature.
inline constexpr int64_t kFeatureRole = -4, kAllFeaturesRole = -5;

// The extent of a patch-matrix or product role.
int64_t roleExtent(const ConvForm& form, int64_t role);

// `op` is a verified convolution of `module`.
StatusOr<ConvForm> readConvForm(const ir::Module& module, const ir::Op& op);

// "stablehlo.convolution (tensor<..>, tensor<..>) -> tensor<..> at loc" for errors.
std::string convText(const ir::Module& module, const ir::Op& op);

}  // namespace jft::compiler
