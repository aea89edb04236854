// A convolution's dim roles, in the terms the library lowering uses
// (convolution_call.h); the attributes themselves are fusion/conv_form.h's.
//
// Roles name the dims the lowering moves around: the lhs batch dim (per
// batch group), the input feature dim (per feature group), each output
// spatial dim and each window (kernel spatial) dim, the group index and the
// output feature (per group). A patch matrix, the GEMM's operand A, is laid
// out as [group, m roles..., k roles...] with m roles drawn from {batch,
// output spatial} and k roles from {input feature, window}.
#pragma once

#include <cstdint>
#include <vector>

#include "fusion/conv_form.h"

namespace jft::codegen::library {

using fusion::ConvForm;
using fusion::convText;
using fusion::readConvForm;

// Dim roles: output spatial i is i, window i is kWindowRole + i.
enum : int64_t { kGroupRole = -3, kChannelRole = -2, kBatchRole = -1 };
inline constexpr int64_t kWindowRole = int64_t{1} << 20;
// The output feature within a group (GEMM's n) and the whole output feature.
inline constexpr int64_t kFeatureRole = -4, kAllFeaturesRole = -5;

// The extent of a patch-matrix or product role.
int64_t roleExtent(const ConvForm& form, int64_t role);

// Row-major strides of `dims` (elements), as the libraries' descriptions and
// the patch kernels address a dense tensor.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims);

}  // namespace jft::codegen::library
