// Solver ops -> a library call, with the column-major copies its plan asks
// for as TTIR transpose kernels of scratch functions.
#include "codegen/library/solver_call.h"

#include <string>
#include <utility>

#include "codegen/library/scratch_kernel.h"
#include "codegen/library/solver_plan.h"

namespace jft::codegen::library {
namespace {

// The permutation swapping the last two dims of a rank-`rank` value.
std::vector<int64_t> swapLastTwo(int64_t rank) {
  std::vector<int64_t> permutation;
  for (int64_t d = 0; d < rank; ++d) permutation.push_back(d);
  std::swap(permutation[static_cast<size_t>(rank - 2)],
            permutation[static_cast<size_t>(rank - 1)]);
  return permutation;
}

// Kernel names: buffer 0 keeps the plain name, others add their index.
std::string indexSuffix(size_t i) {
  return i == 0 ? "" : "_" + std::to_string(i);
}

ir::Type swappedType(const ir::Type& type) {
  std::vector<int64_t> dims = type.dims;
  std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
  return ir::Type::tensor(type.element, std::move(dims));
}

}  // namespace

bool isSolverOp(const ir::Op& op) {
  return op.kind == ir::OpKind::TriangularSolve || op.kind == ir::OpKind::Cholesky ||
         op.kind == ir::OpKind::CustomCall;
}

Status checkSolverCall(const ir::Module& module, const ir::Op& op) {
  return planSolver(module, op).status();
}

StatusOr<LibraryCall> lowerSolverCall(ir::Module& module, const fusion::Fusion& group,
                                      const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, planSolver(module, op));
  LibraryOpCall other;
  other.op = plan.desc;
  other.inputs = plan.inputs;
  other.outputs = plan.outputs;
  other.workspace_bytes = plan.workspace_bytes;
  LibraryCall call;
  // Matrices the library reads column-major are copied so by a kernel
  // before the call; those it writes column-major are moved into the op's
  // results by a kernel after it.
  for (size_t i : plan.column_major_inputs) {
    const ir::ValueId column =
        module.newValue(swappedType(module.typeOf(plan.inputs[i])));
    ScratchKernel k(module, group, op, "to_column_major" + indexSuffix(i),
                    {plan.inputs[i]});
    k.finish(
        k.transpose(plan.inputs[i], swapLastTwo(module.typeOf(column).rank()), column),
        call.transposes);
    other.inputs[i] = column;
  }
  for (size_t i : plan.column_major_outputs) {
    const ir::ValueId column =
        module.newValue(swappedType(module.typeOf(plan.outputs[i])));
    ScratchKernel k(module, group, op, "from_column_major" + indexSuffix(i), {column});
    k.finish(
        k.transpose(column, swapLastTwo(module.typeOf(column).rank()), plan.outputs[i]),
        call.after);
    other.outputs[i] = column;
  }
  call.other = std::move(other);
  return call;
}

}  // namespace jft::codegen::library
