// Convolutions for the conv family's tests (planner, emitter, pipeline):
// layouts spelled as letters, the result shape by the StableHLO spec's
// formula.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/builder.h"

namespace jft::testing::conv {

// Layout letters: lhs "b" batch "f" feature, rhs "i"/"o", out "b"/"f",
// digits the spatial dims ("b01f", "01io", "b01f" is NHWC, HWIO, NHWC).
struct ConvSpec {
  std::vector<int64_t> lhs, rhs;
  std::string lhs_layout = "b01f", rhs_layout = "01io", out_layout = "b01f";
  std::vector<int64_t> strides, padding, lhs_dilation, rhs_dilation;  // empty: defaults
  std::vector<bool> reversal;
  int64_t feature_groups = 1, batch_groups = 1;
  ir::ElementType element = ir::ElementType::F32;
  ir::ElementType result = ir::ElementType::F32;
  bool highest = false;  // precision_config HIGHEST
};

inline ir::ConvDimensionNumbers convNumbers(const ConvSpec& s) {
  ir::ConvDimensionNumbers dn;
  const size_t n = s.lhs_layout.size() - 2;
  dn.input_spatial_dims.resize(n);
  dn.kernel_spatial_dims.resize(n);
  dn.output_spatial_dims.resize(n);
  for (size_t d = 0; d < s.lhs_layout.size(); ++d) {
    const int64_t i = static_cast<int64_t>(d);
    const char l = s.lhs_layout[d], r = s.rhs_layout[d], o = s.out_layout[d];
    if (l == 'b')
      dn.input_batch_dim = i;
    else if (l == 'f')
      dn.input_feature_dim = i;
    else
      dn.input_spatial_dims[static_cast<size_t>(l - '0')] = i;
    if (r == 'i')
      dn.kernel_input_feature_dim = i;
    else if (r == 'o')
      dn.kernel_output_feature_dim = i;
    else
      dn.kernel_spatial_dims[static_cast<size_t>(r - '0')] = i;
    if (o == 'b')
      dn.output_batch_dim = i;
    else if (o == 'f')
      dn.output_feature_dim = i;
    else
      dn.output_spatial_dims[static_cast<size_t>(o - '0')] = i;
  }
  return dn;
}

inline std::vector<int64_t> orFill(const std::vector<int64_t>& v, size_t n,
                                   int64_t fill) {
  return v.empty() ? std::vector<int64_t>(n, fill) : v;
}

// The spec's shape formula: dilated input (with padding) against the
// dilated window, stepped by the stride.
inline std::vector<int64_t> convOutShape(const ConvSpec& s) {
  const ir::ConvDimensionNumbers dn = convNumbers(s);
  const size_t n = s.lhs.size() - 2;
  const std::vector<int64_t> st = orFill(s.strides, n, 1),
                             pad = orFill(s.padding, 2 * n, 0),
                             ld = orFill(s.lhs_dilation, n, 1),
                             rd = orFill(s.rhs_dilation, n, 1);
  std::vector<int64_t> out(s.lhs.size());
  out[static_cast<size_t>(dn.output_batch_dim)] =
      s.lhs[static_cast<size_t>(dn.input_batch_dim)] / s.batch_groups;
  out[static_cast<size_t>(dn.output_feature_dim)] =
      s.rhs[static_cast<size_t>(dn.kernel_output_feature_dim)];
  for (size_t i = 0; i < n; ++i) {
    const int64_t in = s.lhs[static_cast<size_t>(dn.input_spatial_dims[i])];
    const int64_t win = s.rhs[static_cast<size_t>(dn.kernel_spatial_dims[i])];
    const int64_t dilated = (in - 1) * ld[i] + 1 + pad[2 * i] + pad[2 * i + 1];
    const int64_t window = (win - 1) * rd[i] + 1;
    out[static_cast<size_t>(dn.output_spatial_dims[i])] =
        dilated < window ? 0 : (dilated - window) / st[i] + 1;
  }
  return out;
}

inline ir::Type convResultType(const ConvSpec& s) {
  return ir::Type::tensor(s.result, convOutShape(s));
}

inline ir::ValueId addConv(ir::Builder& b, ir::ValueId x, ir::ValueId w,
                           const ConvSpec& s) {
  const size_t n = s.lhs.size() - 2;
  ir::NamedAttrs attrs = {
      {"dimension_numbers", convNumbers(s)},
      {"window_strides", orFill(s.strides, n, 1)},
      {"padding", orFill(s.padding, 2 * n, 0)},
      {"lhs_dilation", orFill(s.lhs_dilation, n, 1)},
      {"rhs_dilation", orFill(s.rhs_dilation, n, 1)},
      {"window_reversal", s.reversal.empty() ? std::vector<bool>(n, false) : s.reversal},
      {"feature_group_count", s.feature_groups},
      {"batch_group_count", s.batch_groups}};
  if (s.highest)
    attrs.emplace_back(
        "precision_config",
        std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGHEST});
  return b.op1(ir::OpKind::Convolution, {x, w}, convResultType(s), attrs);
}

}  // namespace jft::testing::conv
