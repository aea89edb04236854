// stablehlo.convolution as one cuDNN convolution (runtime/conv.h): which of
// the library's three operations computes it, and its tensors as the
// library's roles over the operands' memory.
//
// StableHLO's convolution and cuDNN's default mode are both cross-correlation.
//  - No lhs dilation, no batch groups, window smaller than the output: the
//    forward convolution, x = lhs, w = rhs, y = result; feature groups are
//    cuDNN groups; window_reversal on every spatial dim is cuDNN's
//    convolution mode.
//  - lhs dilation (JAX's input gradient: dy convolved with the reversed
//    filter, lhs dilation = the forward's strides): backward data, which is
//    exact when the window strides are 1 and there are no groups: dy = lhs,
//    dx = result, the filter is the rhs with its feature roles swapped
//    (K = the rhs's input feature, C = its output feature) and its window
//    reversed (undoing JAX's rev(w); a reversing kernel, folded into the
//    filter's permutation, so cuDNN cross-correlates: its best-covered mode),
//    cuDNN stride = lhs dilation, pre padding = (window - 1) * rhs dilation -
//    pad_lo.
//  - batch groups, or a window larger than the output (JAX's weight
//    gradient: x convolved with dy, batch and feature roles swapped, rhs
//    dilation = the forward's strides): backward filter, x = lhs with its
//    batch and feature roles swapped, dy = rhs, dw = result, cuDNN stride =
//    rhs dilation, dilation = window strides, pre padding = pad_lo; batch
//    groups are cuDNN groups.
// Filters and results are handed over in the packed layouts cuDNN's engines
// take (KRSC/NHWC beside a channels-last input, KCRS/NCHW otherwise): a
// kernel permutes the rhs before, or transposes a temp into the result after.
// Post paddings are solved so the library's output-size formula gives the
// exact extent (every position the formula adds is one the sum never
// reaches). One spatial dim gets a second of extent 1 (cuDNN takes 2 or 3).
// What none of these computes exactly (negative pre padding, mixed window
// reversal, lhs dilation with strides or groups, 4+ spatial dims, complex
// or integer types, mixed element types, empty tensors) is UNIMPLEMENTED,
// and the caller keeps the patches + GEMM route.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/module.h"
#include "runtime/conv.h"
#include "support/status.h"

namespace jft::codegen::library {

struct CudnnConv {
  runtime::ConvDesc desc;
  // Non-empty: the rhs is first permuted by this StableHLO transpose
  // permutation (into the filter layout cuDNN's engines take: KRSC beside a
  // channel-innermost input, KCRS otherwise), and desc.w describes that.
  std::vector<int64_t> rhs_permutation;
  // Non-empty: before that, the rhs is reversed along these dims (its window
  // dims, for the input gradient: cuDNN then cross-correlates).
  std::vector<int64_t> rhs_reverse;
  // Non-empty: the library writes a temp holding the result's dims in this
  // order (the packed layout its engines take beside the input's: e.g. KRSC
  // for a weight gradient whose result is HWIO), and a kernel transposes it
  // into the result; the result tensor of desc describes the temp.
  std::vector<int64_t> result_order;
};

// The cuDNN convolution computing `conv` (a verified convolution of
// `module`), or UNIMPLEMENTED saying why none does exactly.
StatusOr<CudnnConv> cudnnConvOf(const ir::Module& module, const ir::Op& conv);

// The smallest post padding >= 0 for which the forward output-size formula
// floor((in + pre + post - window) / stride) + 1 gives `out`; nullopt when
// none does (window = the dilated window's extent).
std::optional<int64_t> solvePostPadding(int64_t in, int64_t pre, int64_t window,
                                        int64_t stride, int64_t out);

}  // namespace jft::codegen::library
