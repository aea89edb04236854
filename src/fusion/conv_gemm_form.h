// A convolution as the TTIR implicit GEMM computes it (the conv family,
// codegen/ttir/conv_emitter.h), and the cost model that picks between that
// family and the library route (patches kernel + cuBLASLt).
//
// The kernel computes the product
//   out[m][n] = sum_k A[m][k] * W[k][n]
// without writing A: m runs over the result's dims other than its feature
// dim, row-major in the result's memory order (batch and output spatial dims
// wherever the layout puts them); n over the output features; k over
// (window position 0, ..., window position s-1, input feature), row-major.
// A[m][k] is the lhs element at the input coordinate of output position o
// and window position w in each spatial dim i:
//   p_i = o_i * stride_i + w'_i * rhs_dilation_i - pad_lo_i,
//   w'_i = window_i - 1 - w_i under window_reversal, else w_i,
// which is a real element iff p_i >= 0, p_i % lhs_dilation_i == 0 and
// p_i / lhs_dilation_i < input size_i; elsewhere A is zero (padding and the
// holes of lhs dilation). W[k][n] is the rhs read in place through index
// maps (matmul_form.h), any layout.
//
// Taken: one group (feature_group_count = batch_group_count = 1), operands
// both f16, both bf16 or both f32, a result of f32 or the operand type.
// Grouped convolutions and f64 stay on the library route.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fusion/conv_form.h"
#include "fusion/fusion.h"
#include "fusion/matmul_form.h"
#include "ir/module.h"

namespace jft::fusion {

struct ConvGemmForm {
  ConvForm conv;
  int64_t m = 1, n = 1, k = 1;
  // The result's dims other than its feature dim, ascending (memory order):
  // m's components, outermost first.
  std::vector<int64_t> m_dims;
  int64_t channels = 1;   // input features: k's innermost component
  IndexMap rhs_k, rhs_n;  // the rhs through (window..., input feature) and n
  ir::ElementType operand = ir::ElementType::F32;
  ir::ElementType result = ir::ElementType::F32;
  std::string input_precision = "tf32";  // as MatmulForm's
};

// The form of `op`, or nothing (the reason in `why`, which may be null) when
// the conv family does not compute it (see the file comment; also an empty
// convolution, or more tiles than one grid axis holds).
std::optional<ConvGemmForm> convGemmFormOf(const ir::Module& module, const ir::Op& op,
                                           std::string* why = nullptr);

// The route of a convolution the conv family can take. kLibrary: the library;
// kTtir: TTIR. kAuto, the cost model (first guesses, to be measured):
//  - no library route available: TTIR;
//  - f32 operands: the library (Triton's tf32 truncates the operands where
//    cuBLASLt rounds them, as for matmul_form.h's products);
//  - lhs dilation > 1 (the input gradient of a strided convolution): the
//    library (most lanes of each gathered tile are holes, zeros loaded for
//    nothing);
//  - k > kMaxAutoConvK (4608 = 3 x 3 x 512) or n > kMaxAutoConvN (512): the
//    library. A long K is the weight gradient's shape (batch and output
//    positions contracted, a few outputs), where cuBLASLt's split-K wins and
//    the patch matrix is small next to the work; a wide N means many tile
//    columns re-gathering the same lhs rows.
//  - otherwise TTIR: one kernel instead of three, no patch matrix written
//    and read back (231 MB for the [64,56,56,64] x [3,3,64,64] bf16 case),
//    and the epilogue (bias, relu, ...) fused.
inline constexpr int64_t kMaxAutoConvK = 4608;
inline constexpr int64_t kMaxAutoConvN = 512;
Route chooseConvRoute(const ConvGemmForm& form, const PlanOptions& options);

// "auto", "library", "ttir".
const char* convRouteName(ConvRoute route);

}  // namespace jft::fusion
