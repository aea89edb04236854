// A dot_general as the TTIR matmul family computes it, and the cost model
// that picks between that family and the cuBLASLt route.
//
// The result of dot_general is [batch dims..., lhs free dims..., rhs free
// dims...]; in row-major memory that is [batch][m][n] with m the product of
// the lhs free dims and n of the rhs free dims. The kernel computes
//   out[b][m][n] = sum_k lhs[b][m][k] * rhs[b][k][n]
// where b, m, n and k are linear indices over their dims (row-major, k over
// the contracting pairs in attribute order) and each operand is read in place
// through an index map per group of dims: any layout JAX emits (transposed
// operands, contracting dims outermost, batch dims anywhere), no copy.
//
// An index map is the group's dims in index order with size-1 dims dropped
// and neighbours adjacent in memory merged into one segment; the offset of
// linear index i is sum over segments of ((i / inner) % extent) * stride,
// inner being the product of the later segments' extents. One segment (the
// common case: a contiguous run) is a single multiply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::fusion {

// The refusal of the form readers below: `reason` into `why` when asked for,
// and no form.
template <class Form>
std::optional<Form> noForm(std::string* why, std::string reason) {
  if (why != nullptr) *why = std::move(reason);
  return std::nullopt;
}

struct MemorySegment {
  int64_t extent = 1;
  int64_t stride = 0;  // elements
};

// Outermost segment first; empty when the group has no dims of size > 1
// (every index maps to offset 0).
using IndexMap = std::vector<MemorySegment>;

struct MatmulForm {
  int64_t batch = 1, m = 1, n = 1, k = 1;
  IndexMap lhs_batch, lhs_m, lhs_k;
  IndexMap rhs_batch, rhs_k, rhs_n;
  // Operand (as the dot reads it, after any fused convert) and result types.
  ir::ElementType operand = ir::ElementType::F32;
  ir::ElementType result = ir::ElementType::F32;
  // tt.dot inputPrecision: "ieee" for f32 operands when precision_config asks
  // for HIGHEST (XLA's rule, as codegen/library/dot_to_gemm.h); "tf32" otherwise
  // (Triton ignores it for 16-bit operands, and writes tf32 there itself).
  std::string input_precision = "tf32";
};

// The form of `op`, or nothing (with the reason in `why`, which may be null)
// when the matmul family does not compute it: not a dot_general; operand
// types not both f16, both bf16 or both f32 (f64 stays on the library until
// Triton's f64 tt.dot is measured); a result other than f32 or the operand
// type; a dot algorithm; an empty product; more than 2^31 programs.
std::optional<MatmulForm> matmulFormOf(const ir::Module& module, const ir::Op& op,
                                       std::string* why = nullptr);

// tt.dot's inputPrecision for a dot_general or convolution `op` whose
// operands are `operand`: "ieee" for f32 under precision_config HIGHEST,
// "tf32" otherwise (matmulFormOf also makes it "ieee" where
// xlaComputesExactly).
std::string inputPrecisionOf(const ir::Op& op, ir::ElementType operand);

// Whether XLA's GPU compiler computes an f32 product of these unbatched
// extents (m lhs free, n rhs free, k contracting) without TF32 rounding: it
// leaves tiny products, (m + n) k < 100, to its loop emitter, and turns one
// with a vector side (m or n is 1) into multiply and reduce when both sides
// are vectors or (m + n) k < 10^7. Products of f32 under default precision
// follow it, so small ones are as exact as upstream's.
bool xlaComputesExactly(int64_t m, int64_t n, int64_t k);

// The index map of `dims` (in index order) of a row-major tensor `shape`.
IndexMap indexMapOf(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims);

// The route of a dot the matmul family can take. kLibrary: the library
// (unsupported when the plan has no library route); kTtir: TTIR. kAuto, the
// cost model (a first guess, to be measured on the device):
//  - no library route available: TTIR;
//  - f32 operands follow the same rules as 16-bit ones: the kernel rounds
//    f32 tiles to TF32 to nearest before tt.dot, as cuBLASLt rounds them
//    (codegen/ttir/tf32_rounding.h). Before it did, Triton's tf32 MMA
//    truncated them, measured up to 2.5x further from upstream than
//    cuBLASLt, and every f32 product went to the library;
//  - batch*m*n*k <= kSmallMatmulWork (2^24): TTIR (launch-bound; one kernel,
//    no workspace, no operand transposes);
//  - otherwise the library, unless an epilogue fuses into the dot (saving
//    the result's round trip through memory), k <= kMaxFusedEpilogueK (1024)
//    and the kernel has no slow path: f16/bf16 operands or f32 under tf32
//    (f32 "ieee" runs on FMA units, where cuBLAS's SGEMM wins), and every
//    operand index map a single segment per group (no div/rem per element).
//    The k bound: the epilogue's extra pass costs about 2*m*n*bytes of
//    memory traffic against 2*m*n*k flops of product, so on an H200 (~4 TB/s,
//    ~1 PFLOP/s dense 16-bit) it is worth ~500/k of the product's time; past
//    k = 1024 a kernel slower than cuBLASLt by more than that loses.
inline constexpr int64_t kSmallMatmulWork = int64_t{1} << 24;
inline constexpr int64_t kMaxFusedEpilogueK = 1024;
Route chooseMatmulRoute(const MatmulForm& form, const PlanOptions& options,
                        bool epilogue_fuses);

// What identifies a dot for measured decisions (the autotuner's choices and
// their cache): its operand and result types and its attributes (dimension
// numbers, precision), e.g. "stablehlo.dot_general (tensor<64x32xbf16>,
// tensor<32x16xbf16>) -> tensor<64x16xf32> {dot_dimension_numbers = ...}".
// Two dots with one signature compute the same product on the same layouts.
std::string matmulSignature(const ir::Module& module, const ir::Op& op);

// "auto", "library", "ttir".
const char* matmulRouteName(MatmulRoute route);

}  // namespace jft::fusion
