#include "passes/complex_reduce.h"

#include <utility>
#include <vector>

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

// A combiner that only takes complex values apart, builds them and selects
// among them (JAX's complex max and min): by parts it is real ops alone once
// simplify folds real/imag. Complex arithmetic (the reduction family's own
// complex add and multiply lanes, or anything else) is left where it was.
bool selectsWholeComplexValues(const ir::Module& module, const ir::Region& region) {
  if (region.ops.empty() || region.ops.back().kind != OpKind::Return) return false;
  for (const ir::Op& op : region.ops) {
    if (op.kind == OpKind::Return || op.kind == OpKind::Real || op.kind == OpKind::Imag ||
        op.kind == OpKind::Complex || op.kind == OpKind::Select || !op.regions.empty())
      continue;
    for (const auto* values : {&op.operands, &op.results})
      for (ValueId v : *values)
        if (ir::isComplex(module.typeOf(v).element)) return false;
  }
  return true;
}

class ComplexReduceSplit {
 public:
  ComplexReduceSplit(ir::Module& module, const ir::Op& op, std::vector<ir::Op>& out)
      : module_(module), op_(op), e_(module, op, out), out_(out) {}

  bool run() {
    const size_t n = op_.results.size();
    if (op_.kind != OpKind::Reduce || op_.regions.size() != 1 || n == 0 ||
        op_.operands.size() != 2 * n || op_.regions[0].args.size() != 2 * n)
      return false;
    bool any_complex = false;
    for (ValueId v : op_.operands)
      any_complex = any_complex || ir::isComplex(module_.typeOf(v).element);
    if (!any_complex || !selectsWholeComplexValues(module_, op_.regions[0])) return false;

    std::vector<ValueId> inputs, inits;
    for (size_t i = 0; i < n; ++i) {
      e_.appendParts(op_.operands[i], inputs);
      e_.appendParts(op_.operands[n + i], inits);
    }
    ir::Op reduce = e_.make(OpKind::Reduce, inputs, module_.typeOf(inputs[0]), op_.attrs);
    reduce.operands.insert(reduce.operands.end(), inits.begin(), inits.end());
    reduce.results.clear();
    for (size_t i = 0; i < n; ++i) {
      const ir::Type type = module_.typeOf(op_.results[i]);
      if (!ir::isComplex(type.element)) {
        reduce.results.push_back(op_.results[i]);
        continue;
      }
      reduce.results.push_back(module_.newValue(complexPartType(type)));
      reduce.results.push_back(module_.newValue(complexPartType(type)));
    }
    reduce.regions.push_back(splitCombiner());
    const std::vector<ValueId> parts = reduce.results;
    out_.push_back(std::move(reduce));
    size_t next = 0;
    for (size_t i = 0; i < n; ++i) {
      const ir::Type type = module_.typeOf(op_.results[i]);
      if (!ir::isComplex(type.element)) {
        ++next;
        continue;
      }
      e_.giveId(e_.emit(OpKind::Complex, {parts[next], parts[next + 1]}, type),
                op_.results[i]);
      next += 2;
    }
    return true;
  }

 private:
  // Arguments over the parts (accumulators, then values), `complex` ops that
  // give the old complex arguments their ids, the old body, and a return of
  // the parts.
  ir::Region splitCombiner() {
    const ir::Region& old = op_.regions[0];
    const size_t n = op_.results.size();
    ir::Region region;
    std::vector<ValueId> lhs, rhs;
    std::vector<ir::Op> ops;
    for (size_t half = 0; half < 2; ++half) {
      std::vector<ValueId>& args = half == 0 ? lhs : rhs;
      for (size_t i = 0; i < n; ++i) {
        const ValueId arg = old.args[half * n + i];
        const ir::Type type = module_.typeOf(arg);
        if (!ir::isComplex(type.element)) {
          args.push_back(arg);
          continue;
        }
        const ValueId re = module_.newValue(complexPartType(type));
        const ValueId im = module_.newValue(complexPartType(type));
        args.insert(args.end(), {re, im});
        ir::Op whole = e_.make(OpKind::Complex, {re, im}, type);
        whole.results[0] = arg;
        ops.push_back(std::move(whole));
      }
    }
    region.args = lhs;
    region.args.insert(region.args.end(), rhs.begin(), rhs.end());
    ops.insert(ops.end(), old.ops.begin(), old.ops.end() - 1);
    ir::Op ret = old.ops.back();
    std::vector<ValueId> returned;
    for (ValueId v : ret.operands) {
      const ir::Type type = module_.typeOf(v);
      if (!ir::isComplex(type.element)) {
        returned.push_back(v);
        continue;
      }
      for (OpKind part : {OpKind::Real, OpKind::Imag}) {
        ir::Op take = e_.make(part, {v}, complexPartType(type));
        returned.push_back(take.results[0]);
        ops.push_back(std::move(take));
      }
    }
    ret.operands = std::move(returned);
    ops.push_back(std::move(ret));
    region.ops = std::move(ops);
    return region;
  }

  ir::Module& module_;
  const ir::Op& op_;
  OpEmitter e_;
  std::vector<ir::Op>& out_;
};

}  // namespace

bool splitComplexReduces(ir::Module& module) {
  return rewriteOps(module, [&](const ir::Op& op, std::vector<ir::Op>& out) {
    return ComplexReduceSplit(module, op, out).run();
  });
}

}  // namespace jft::passes
