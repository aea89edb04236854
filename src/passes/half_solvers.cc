#include "passes/half_solvers.h"

#include <vector>

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

bool isHalf(ElementType t) {
  return t == ElementType::F16 || t == ElementType::BF16;
}

bool widenHalfSolver(ir::Module& module, const ir::Op& op, std::vector<ir::Op>& out) {
  if ((op.kind != OpKind::TriangularSolve && op.kind != OpKind::Cholesky) ||
      op.results.size() != 1)
    return false;
  const ir::Type result = module.typeOf(op.results[0]);
  if (!result.isTensor() || !isHalf(result.element)) return false;
  for (ValueId operand : op.operands)
    if (module.typeOf(operand).element != result.element) return false;
  OpEmitter e(module, op, out);
  std::vector<ValueId> wide;
  for (ValueId operand : op.operands)
    wide.push_back(e.convert(operand, ElementType::F32));
  const ValueId solved =
      e.emit(op.kind, wide, ir::Type::tensor(ElementType::F32, result.dims), op.attrs);
  e.giveId(e.convert(solved, result.element), op.results[0]);
  return true;
}

}  // namespace

bool widenHalfSolvers(ir::Module& module) {
  return rewriteOps(module, widenHalfSolver);
}

}  // namespace jft::passes
