// The epilogues a library product (cuBLASLt) fuses without changing what
// unfused StableHLO computes: D = relu(A x B + bias), each part optional.
//
//  - relu: maximum(d, zero) with `zero` a constant of +0 in every element
//    (a splat constant, or a broadcast_in_dim of one), in either operand
//    order, on any float result the library's epilogue takes (f16, bf16,
//    f32). relu commutes with rounding (rounding is monotone and keeps 0), so
//    max(round(x), 0) = round(max(x, 0)). NaN is the one difference, fused
//    anyway: StableHLO's maximum propagates it; cuBLASLt documents its RELU
//    epilogue only as x := max(x, 0), and a report on NVIDIA's developer
//    forum ("Incorrect result of cublasLtMatmul with CUBLASLT_EPILOGUE_RELU
//    when input is NaN") finds it gives 0 there. Fused because XLA's GPU
//    compiler fuses this same pattern (maximum of a cuBLASLt product and a
//    broadcast zero) into the same epilogue, so a NaN product gives here what
//    upstream XLA gives on that route; tests/gpu/test_matmul.py's NaN probe
//    (XLA_FLAGTREE_MATMUL=library) prints what the device does. To keep
//    StableHLO's NaN instead, drop the maximum branch of the matcher.
//  - bias: add(d, broadcast_in_dim(v)) (either order) with v of the result's
//    element type, holding the result's trailing dims that come from the
//    rhs free dims, broadcast along the batch and lhs free dims (v is the
//    n-vector of runtime/gemm.h, the same for every batch item: cuBLASLt's
//    bias batch stride defaults to 0). Only for f32 results: the library
//    adds the bias to the f32 accumulator before the one rounding to D's
//    type, which for an f32 D is exactly unfused f32 arithmetic (the
//    product rounded to f32, then the f32 add rounded); for bf16/f16 it
//    would skip the product's rounding, so those stay a separate kernel.
//  - gelu is never fused: the library's tanh approximation rounds
//    differently from the StableHLO ops that spell it.
//
// The broadcast of v must be an op of the group (its operand v is then a
// group input with a buffer); the zero may be inside or outside.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ir/module.h"

namespace jft::fusion {

struct LibraryEpilogue {
  size_t dot = 0;                        // index of the dot_general in the region
  std::optional<ir::ValueId> bias;       // the n-vector v
  std::optional<size_t> bias_broadcast;  // the broadcast_in_dim of v
  bool relu = false;
  ir::ValueId output = 0;  // what the fused product writes
};

// Whether `ops` (indices into `region`, any order) are exactly one
// dot_general and an epilogue above (with the zero's constant and broadcast
// when they are in `ops`), the dot's result read only by that epilogue and
// the intermediate sum (bias + relu) only by the maximum, neither returned.
// Nothing when there is no epilogue.
std::optional<LibraryEpilogue> libraryEpilogueOf(const ir::Module& module,
                                                 const ir::Region& region,
                                                 const std::vector<size_t>& ops);

}  // namespace jft::fusion
