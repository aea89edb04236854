#include "passes/complex_iota.h"

#include "passes/op_emitter.h"

namespace jft::passes {

bool splitComplexIotas(ir::Module& module) {
  return rewriteOps(module, [&](const ir::Op& op, std::vector<ir::Op>& out) {
    if (op.kind != ir::OpKind::Iota || op.results.size() != 1) return false;
    const ir::Type result = module.typeOf(op.results[0]);
    if (!result.isTensor() || !ir::isComplex(result.element)) return false;
    const ir::Type part = complexPartType(result);
    OpEmitter e(module, op, out);
    const ir::ValueId real = e.emit(ir::OpKind::Iota, {}, part, op.attrs);
    const ir::ValueId imag = e.constant(part.element, part.dims, 0);
    e.giveId(e.emit(ir::OpKind::Complex, {real, imag}, result), op.results[0]);
    return true;
  });
}

}  // namespace jft::passes
