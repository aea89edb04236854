// From a StableHLO dot_general to the library GEMM that computes it.
//
// dot_general's result is [batch dims..., lhs free dims..., rhs free dims...],
// which in row-major memory is exactly the library's D as [batch][m][n]
// (m = product of lhs free dims, n = of rhs free dims): the result never needs
// a permutation. An operand is read in place when, ignoring dims of size 1,
// its batch dims, its free dims and its contracting dims each form one
// contiguous run of memory (batch in batching order, free dims in their own
// order, contracting dims in an order both operands share) and the free or the
// contracting run is innermost: then a leading dimension, a transpose flag and
// a batch stride describe it. Otherwise the plan asks the compiler to
// materialise a transpose of that operand first, into [batch, m, k] for the
// lhs and [batch, k, n] for the rhs ([batch, n, k] for int8 products, which
// the library takes only as A x B^T).
//
// Precision (XLA's choice): f32 and complex<f32> products may use TF32 unless
// either operand's precision_config is HIGHEST, or an algorithm asks for f32
// operands; bf16/f16 accumulate in f32.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/module.h"
#include "runtime/gemm.h"
#include "support/status.h"

namespace jft::codegen::library {

// The library's operand and result types and arithmetic for a product.
struct GemmTypes {
  runtime::GemmType in, out;
  runtime::GemmCompute compute;
};

// For a dot_general or convolution `op` with these element types, by the
// precision rules above (its precision_config and algorithm attributes).
// UNIMPLEMENTED naming the op and the types when no library GEMM computes it.
StatusOr<GemmTypes> gemmTypesOf(const ir::Op& op, ir::ElementType lhs,
                                ir::ElementType rhs, ir::ElementType result);

struct DotGemmPlan {
  runtime::GemmDesc gemm;  // alpha 1, beta 0, no bias or activation
  // StableHLO transpose permutations (result dim i = operand dim perm[i]) to
  // apply to the lhs/rhs before the call; empty when read in place. The gemm's
  // strides describe the operand after its permutation.
  std::vector<int64_t> lhs_permutation, rhs_permutation;
};

// `op` is a verified dot_general of `module`. UNIMPLEMENTED (with the reason)
// when no library GEMM computes it: element types outside GemmDesc's table
// (mixed operand types, integer types other than int8 -> int32; float8
// products are widened before planning),
// algorithms other than plain f32/bf16/f16/f64 ones, or an empty product.
StatusOr<DotGemmPlan> planDotAsGemm(const ir::Module& module, const ir::Op& op);

}  // namespace jft::codegen::library
