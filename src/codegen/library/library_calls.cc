// Library groups -> library calls: which ops have one, and the GEMM (with
// its operand transposes) for each dot.
#include "codegen/library/library_calls.h"

#include <iostream>
#include <utility>

#include "codegen/library/conv_kernels.h"
#include "codegen/library/convolution_call.h"
#include "codegen/library/cudnn_conv.h"
#include "codegen/library/fft_call.h"
#include "codegen/library/scratch_kernel.h"
#include "codegen/library/solver_call.h"
#include "fusion/library_epilogue.h"
#include "fusion/op_route.h"

namespace jft::codegen::library {
namespace {

bool isDot(const ir::Op& op) {
  return op.kind == ir::OpKind::DotGeneral || op.kind == ir::OpKind::Dot;
}

// dot, the form before dot_general, contracts the lhs's last dim with the
// rhs's first (vectors and matrices only); as a dot_general the GEMM planner
// reads it like any other.
ir::Op asDotGeneral(const ir::Module& module, const ir::Op& op) {
  if (op.kind != ir::OpKind::Dot || op.operands.size() != 2) return op;
  const int64_t lhsRank = module.typeOf(op.operands[0]).rank();
  if (lhsRank < 1 || module.typeOf(op.operands[1]).rank() < 1) return op;
  ir::Op general = op;
  general.kind = ir::OpKind::DotGeneral;
  ir::DotDimensionNumbers numbers;
  numbers.lhs_contracting_dims = {lhsRank - 1};
  numbers.rhs_contracting_dims = {0};
  general.attrs.emplace_back("dot_dimension_numbers", numbers);
  return general;
}

// Whether a library call other than a product computes `op`: the reason
// when none does.
Status otherCallSupport(const ir::Module& module, const ir::Op& op) {
  switch (op.kind) {
    case ir::OpKind::Fft:
      return lowerFftCall(module, op).status();
    case ir::OpKind::Convolution:
      return checkConvolution(module, op);
    default:
      if (isSolverOp(op)) return checkSolverCall(module, op);
      return unimplemented("no library route for " + fusion::opNameWithTarget(op) +
                           " yet");
  }
}

StatusOr<DotGemmPlan> planDot(const ir::Module& module, const ir::Op& op) {
  return planDotAsGemm(module, asDotGeneral(module, op));
}

// The operand `index` of `dot` permuted by `permutation` into a new value,
// computed by a one-op TTIR group of a scratch function.
ir::ValueId addTranspose(ir::Module& module, const fusion::Fusion& owner,
                         const ir::Op& dot, size_t index,
                         const std::vector<int64_t>& permutation,
                         std::vector<OperandTranspose>& transposes) {
  const ir::ValueId source = dot.operands[index];
  const ir::Type from = module.typeOf(source);  // a copy: newValue moves the table
  std::vector<int64_t> dims;
  for (int64_t p : permutation) dims.push_back(from.dims[static_cast<size_t>(p)]);
  const ir::ValueId result =
      module.newValue(ir::Type::tensor(from.element, std::move(dims)));
  ScratchKernel k(module, owner, dot, index == 0 ? "lhs_transpose" : "rhs_transpose",
                  {source});
  k.finish(k.transpose(source, permutation, result), transposes);
  return result;
}

// The dot's GEMM and its operand transposes.
Status lowerProduct(ir::Module& module, const fusion::Fusion& group, const ir::Op& dot,
                    LibraryCall& call) {
  JFT_ASSIGN_OR_RETURN(call.dot, planDot(module, dot));
  call.a = dot.operands[0];
  call.b = dot.operands[1];
  call.d = dot.results[0];
  if (!call.dot.lhs_permutation.empty())
    call.a =
        addTranspose(module, group, dot, 0, call.dot.lhs_permutation, call.transposes);
  if (!call.dot.rhs_permutation.empty())
    call.b =
        addTranspose(module, group, dot, 1, call.dot.rhs_permutation, call.transposes);
  return Status::ok();
}

// A dot and the epilogue the planner fused into its library group: one
// product writing the epilogue's result.
StatusOr<LibraryCall> lowerFusedProduct(ir::Module& module, const ir::Function& function,
                                        const fusion::Fusion& group, size_t g) {
  std::optional<fusion::LibraryEpilogue> epilogue =
      fusion::libraryEpilogueOf(module, function.body, group.ops);
  if (!epilogue)
    return internalError(group.name +
                         ": a library group of several ops is not a product with a "
                         "fused epilogue");
  if (group.outputs != std::vector<ir::ValueId>{epilogue->output})
    return internalError(group.name +
                         ": a fused product writes its epilogue's result only");
  // A copy: planDot may add values to the module's table.
  const ir::Op dot = function.body.ops[epilogue->dot];
  LibraryCall call;
  call.group = g;
  JFT_RETURN_IF_ERROR(lowerProduct(module, group, dot, call));
  call.d = epilogue->output;
  call.bias = epilogue->bias;
  call.dot.gemm.bias = epilogue->bias.has_value();
  call.dot.gemm.epilogue =
      epilogue->relu ? runtime::GemmEpilogue::kRelu : runtime::GemmEpilogue::kNone;
  JFT_RETURN_IF_ERROR(runtime::validateGemm(call.dot.gemm));
  return call;
}

// `conv` as one convolution-library call (its rhs first permuted when the
// library's layout asks for it), if the library takes it.
StatusOr<LibraryCall> lowerLibraryConvolution(ir::Module& module,
                                              const fusion::Fusion& group,
                                              const ir::Op& conv,
                                              const LibraryContext& context) {
  if (context.conv_library == nullptr)
    return unavailable("no convolution library (cuDNN) on the device compiled for");
  JFT_ASSIGN_OR_RETURN(CudnnConv planned, cudnnConvOf(module, conv));
  JFT_RETURN_IF_ERROR(context.conv_library->check(planned.desc));
  LibraryCall call;
  ir::ValueId rhs = conv.operands[1];
  if (!planned.rhs_permutation.empty() || !planned.rhs_reverse.empty())
    rhs = addRhsFilterKernel(module, group, conv, planned.rhs_reverse,
                             planned.rhs_permutation, call.transposes);
  ir::ValueId written = conv.results[0];
  if (!planned.result_order.empty())
    written = addResultKernel(module, group, conv, planned.result_order, call.after);
  call.other = LibraryOpCall{planned.desc, {conv.operands[0], rhs}, {written}, 0};
  return call;
}

}  // namespace

bool libraryTakesCall(const ir::Module& module, const ir::Op& call) {
  return otherCallSupport(module, call).isOk();
}

std::vector<fusion::UnsupportedOp> libraryRejects(const ir::Module& module,
                                                  const ir::Function& function,
                                                  const fusion::Plan& plan) {
  std::vector<fusion::UnsupportedOp> rejects;
  for (const fusion::Fusion& group : plan.fusions) {
    if (group.route != fusion::Route::kLibrary) continue;
    if (group.ops.size() > 1) {  // a product with a fused epilogue
      std::optional<fusion::LibraryEpilogue> epilogue =
          fusion::libraryEpilogueOf(module, function.body, group.ops);
      if (!epilogue) {
        rejects.push_back({group.ops[0], "", "",
                           group.name + ": a library group of several ops that is not "
                                        "a product with a fused epilogue"});
        continue;
      }
      StatusOr<DotGemmPlan> planned = planDot(module, function.body.ops[epilogue->dot]);
      if (!planned.isOk())
        rejects.push_back({epilogue->dot, "", "", planned.status().message()});
      continue;
    }
    for (size_t index : group.ops) {
      if (index >= function.body.ops.size()) continue;
      const ir::Op& op = function.body.ops[index];
      if (!isDot(op)) {
        if (Status s = otherCallSupport(module, op); !s.isOk())
          rejects.push_back({index, "", "", s.message()});
        continue;
      }
      StatusOr<DotGemmPlan> planned = planDot(module, op);
      if (!planned.isOk()) rejects.push_back({index, "", "", planned.status().message()});
    }
  }
  return rejects;
}

bool libraryTakesConvolution(const ir::Module& module, const ir::Op& conv,
                             ConvLibrary& library) {
  StatusOr<CudnnConv> planned = cudnnConvOf(module, conv);
  return planned.isOk() && library.check(planned->desc).isOk();
}

StatusOr<LibraryCall> lowerLibraryGroup(ir::Module& module, const ir::Function& function,
                                        const fusion::Plan& plan, size_t g,
                                        const LibraryContext& context) {
  const fusion::Fusion& group = plan.fusions.at(g);
  if (group.ops.size() > 1) return lowerFusedProduct(module, function, group, g);
  if (group.ops.size() != 1 || group.ops[0] >= function.body.ops.size())
    return internalError(group.name + ": a library group is one op");
  const ir::Op& dot = function.body.ops[group.ops[0]];
  LibraryCall call;
  call.group = g;
  if (dot.kind == ir::OpKind::Convolution) {
    StatusOr<LibraryCall> library = lowerLibraryConvolution(module, group, dot, context);
    if (library.isOk()) {
      call = std::move(library).value();
      call.group = g;
      return call;
    }
    if (context.conv == fusion::ConvRoute::kCudnn &&
        library.status().code() == StatusCode::kUnavailable)
      return failedPrecondition(
          group.name + ": XLA_FLAGTREE_CONV=cudnn: " + library.status().message());
    // Never the user's failure: the patches + GEMM route computes it.
    if (context.log)
      std::cerr << "jax-flagtree: " << group.name
                << ": convolution on patches + cuBLASLt, not cuDNN: "
                << library.status().message() << "\n";
    JFT_ASSIGN_OR_RETURN(call, lowerConvolution(module, group, dot));
    call.group = g;
    return call;
  }
  if (isSolverOp(dot)) {
    StatusOr<LibraryCall> solver = lowerSolverCall(module, group, dot);
    if (!solver.isOk()) return solver.status().withContext(group.name);
    call = std::move(solver).value();
    call.group = g;
    return call;
  }
  if (!isDot(dot)) {
    StatusOr<LibraryOpCall> other = lowerFftCall(module, dot);
    if (!other.isOk()) return other.status().withContext(group.name);
    call.other = std::move(other).value();
    return call;
  }
  JFT_RETURN_IF_ERROR(lowerProduct(module, group, dot, call));
  return call;
}

std::string libraryCallText(const LibraryCall& call) {
  if (call.other) return runtime::libraryOpText(call.other->op);
  const runtime::GemmDesc& g = call.dot.gemm;
  std::string text = "cublaslt m=" + std::to_string(g.m) + " n=" + std::to_string(g.n) +
                     " k=" + std::to_string(g.k) + " batch=" + std::to_string(g.batch);
  if (g.compute == runtime::GemmCompute::kTf32) text += " tf32";
  if (g.bias) text += " bias";
  if (g.epilogue == runtime::GemmEpilogue::kRelu) text += " relu";
  if (!call.convolution.empty()) return text + " conv kernels=" + call.convolution;
  const bool lhs = !call.dot.lhs_permutation.empty();
  const bool rhs = !call.dot.rhs_permutation.empty();
  if (lhs || rhs)
    text += std::string(" transpose=") + (lhs ? "lhs" : "") + (lhs && rhs ? "," : "") +
            (rhs ? "rhs" : "");
  return text;
}

}  // namespace jft::codegen::library
