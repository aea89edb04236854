// The library route's groups as library calls. Today that is dot_general (and
// the older dot) as one cuBLASLt product (dot_to_gemm.h); other library ops
// are listed as unsupported. An operand the product cannot read in place is
// first permuted by a TTIR loop kernel: a synthetic transpose op in a scratch
// function, emitted like any fused transpose, writing a new value (a temp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "compiler/dot_to_gemm.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

// One operand permutation as a TTIR group of its own scratch function: the
// function's body is {transpose, return}, the group is {0}, loop family,
// reading the operand and writing the permuted value.
struct OperandTranspose {
  ir::Function scratch;
  fusion::Fusion group;
};

struct LibraryCall {
  size_t group = 0;  // index into plan.fusions
  DotGemmPlan dot;
  ir::ValueId a = 0, b = 0;  // what the product reads: operands or their transposes
  ir::ValueId d = 0;         // the dot's result, written by the product
  std::vector<OperandTranspose> transposes;  // to run first, in order
};

// The ops of library groups that no library call runs, each with the reason
// (not a dot; or a dot no GEMM computes, in planDotAsGemm's words).
std::vector<fusion::UnsupportedOp> libraryRejects(const ir::Module& module,
                                                  const ir::Function& function,
                                                  const fusion::Plan& plan);

// The call for library group `g`, which passed libraryRejects. Adds the
// permuted operands' values to `module` (references into its value table
// taken before the call do not survive it).
StatusOr<LibraryCall> lowerLibraryGroup(ir::Module& module, const ir::Function& function,
                                        const fusion::Plan& plan, size_t g);

// For the route report: "cublaslt m=8 n=16 k=32 batch=1", then " tf32" when
// the product may round to TF32 and " transpose=lhs,rhs" for the permuted
// operands.
std::string libraryCallText(const LibraryCall& call);

}  // namespace jft::compiler
