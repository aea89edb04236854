// The library route's groups as library calls: dot_general (and the older
// dot) as one cuBLASLt product (dot_to_gemm.h), with its bias and relu
// epilogue when the planner fused one (fusion/library_epilogue.h); convolution as one
// cuDNN call where the device's library takes it (cudnn_conv.h), else a product fed
// by TTIR kernels (convolution_call.h); fft and the solver ops as one library
// operation each (fft_call.h, solver_call.h). An operand the product cannot
// read in place is first permuted by a TTIR loop kernel: a synthetic op in a
// scratch function, emitted like any fused op, writing a new value (a temp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "codegen/library/conv_library.h"
#include "codegen/library/dot_to_gemm.h"
#include "fusion/fusion.h"
#include "ir/module.h"
#include "runtime/library_op.h"
#include "support/status.h"

namespace jft::codegen::library {

// One operand permutation as a TTIR group of its own scratch function: the
// function's body is {transpose, return}, the group is {0}, loop family,
// reading the operand and writing the permuted value.
struct OperandTranspose {
  ir::Function scratch;
  fusion::Fusion group;
};

// A library operation other than a product (runtime/library_op.h) and the
// values it reads and writes, in its description's buffer order.
struct LibraryOpCall {
  runtime::LibraryOp op;
  std::vector<ir::ValueId> inputs;
  std::vector<ir::ValueId> outputs;
  uint64_t workspace_bytes = 0;  // a temp after the outputs when not 0
};

struct LibraryCall {
  size_t group = 0;          // index into plan.fusions
  DotGemmPlan dot;           // unused when `other` is set
  ir::ValueId a = 0, b = 0;  // what the product reads: operands or their transposes
  ir::ValueId d = 0;         // what the product writes: the result or a temp
  // A product with a fused epilogue (fusion/library_epilogue.h): the bias
  // vector when gemm.bias; `d` is then the epilogue's result.
  std::optional<ir::ValueId> bias;
  std::optional<LibraryOpCall> other;        // a library operation instead of a product
  std::vector<OperandTranspose> transposes;  // kernels to run first, in order
  std::vector<OperandTranspose> after;       // kernels to run after it, in order
  // A convolution's kernels for the report ("patches,rhs_transpose", or
  // "none"); empty for other calls.
  std::string convolution;
};

// The ops of library groups that no library call runs, each with the reason
// (not a dot; or a dot no GEMM computes, in planDotAsGemm's words).
std::vector<fusion::UnsupportedOp> libraryRejects(const ir::Module& module,
                                                  const ir::Function& function,
                                                  const fusion::Plan& plan);

// What a library group's lowering may use beyond the IR: a convolution goes
// to the convolution library (cudnn_conv.h) when `conv_library` accepts its
// description, else to the patches + GEMM route (convolution_call.h), which
// `log` reports on stderr. Under XLA_FLAGTREE_CONV=cudnn a library that
// cannot be loaded (no `conv_library`, or UNAVAILABLE) fails the lowering.
struct LibraryContext {
  ConvLibrary* conv_library = nullptr;
  fusion::ConvRoute conv = fusion::ConvRoute::kAuto;
  bool log = false;
};

// Whether the library plans custom call `call` (fusion::PlanOptions::
// library_takes_call): a target it lowers, with the operands it expects.
bool libraryTakesCall(const ir::Module& module, const ir::Op& call);

// Whether `library` takes `conv` as one call (fusion::PlanOptions::
// conv_library_takes): its description exists and the library accepts it.
bool libraryTakesConvolution(const ir::Module& module, const ir::Op& conv,
                             ConvLibrary& library);

// The call for library group `g`, which passed libraryRejects. Adds the
// permuted operands' values to `module` (references into its value table
// taken before the call do not survive it).
StatusOr<LibraryCall> lowerLibraryGroup(ir::Module& module, const ir::Function& function,
                                        const fusion::Plan& plan, size_t g,
                                        const LibraryContext& context = {});

// For the route report: the library operation's text, or "cublaslt m=8 n=16 k=32
// batch=1", then " tf32" when the product may round to TF32, " bias" and " relu" for a
// fused epilogue, and " transpose=lhs,rhs" for
// the permuted operands; a convolution's adds " conv" and its kernels
// ("kernels=patches,rhs_transpose").
std::string libraryCallText(const LibraryCall& call);

}  // namespace jft::codegen::library
