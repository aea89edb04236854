#include "passes/complex_sort.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

bool hasComplexOperand(const ir::Module& module, const ir::Op& op) {
  return std::any_of(op.operands.begin(), op.operands.end(),
                     [&](ValueId v) { return ir::isComplex(module.typeOf(v).element); });
}

// The comparator over the parts: new arguments, then `complex` ops that give
// the old complex arguments their ids back, then the old body.
ir::Region splitComparator(ir::Module& module, OpEmitter& e, const ir::Op& sort) {
  const ir::Region& old = sort.regions[0];
  ir::Region region;
  std::vector<ir::Op> rebuilt;
  for (size_t i = 0; i < sort.operands.size(); ++i) {
    const ValueId lhs = old.args[2 * i], rhs = old.args[2 * i + 1];
    const ir::Type arg = module.typeOf(lhs);
    if (!ir::isComplex(arg.element)) {
      region.args.push_back(lhs);
      region.args.push_back(rhs);
      continue;
    }
    const ValueId re_l = module.newValue(complexPartType(arg)),
                  re_r = module.newValue(complexPartType(arg));
    const ValueId im_l = module.newValue(complexPartType(arg)),
                  im_r = module.newValue(complexPartType(arg));
    region.args.insert(region.args.end(), {re_l, re_r, im_l, im_r});
    for (auto [re, im, id] : {std::tuple{re_l, im_l, lhs}, std::tuple{re_r, im_r, rhs}}) {
      ir::Op make = e.make(OpKind::Complex, {re, im}, arg);
      make.results[0] = id;
      rebuilt.push_back(std::move(make));
    }
  }
  rebuilt.insert(rebuilt.end(), old.ops.begin(), old.ops.end());
  region.ops = std::move(rebuilt);
  return region;
}

bool splitComplexSort(ir::Module& module, const ir::Op& op, std::vector<ir::Op>& out) {
  if (op.kind != OpKind::Sort || op.regions.size() != 1 ||
      op.operands.size() != op.results.size() ||
      op.regions[0].args.size() != 2 * op.operands.size() ||
      !hasComplexOperand(module, op))
    return false;
  OpEmitter e(module, op, out);
  std::vector<ValueId> operands;
  for (ValueId x : op.operands) e.appendParts(x, operands);
  ir::Op sort = e.make(OpKind::Sort, operands, module.typeOf(operands[0]), op.attrs);
  sort.results.clear();
  for (ValueId x : operands) sort.results.push_back(module.newValue(module.typeOf(x)));
  sort.regions.push_back(splitComparator(module, e, op));
  const std::vector<ValueId> sorted = sort.results;
  const size_t at = out.size();
  out.push_back(std::move(sort));
  size_t next = 0;
  for (size_t i = 0; i < op.results.size(); ++i) {
    const ir::Type type = module.typeOf(op.results[i]);
    if (!ir::isComplex(type.element)) {
      out[at].results[next++] = op.results[i];
      continue;
    }
    const ValueId whole = e.emit(OpKind::Complex, {sorted[next], sorted[next + 1]}, type);
    e.giveId(whole, op.results[i]);
    next += 2;
  }
  return true;
}

}  // namespace

bool splitComplexSorts(ir::Module& module) {
  return rewriteOps(module, splitComplexSort);
}

}  // namespace jft::passes
