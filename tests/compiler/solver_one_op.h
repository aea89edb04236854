// Solver plan tests: one linear-algebra op as the only op of main, the group
// the library route gives it, and the layouts attribute JAX writes.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/solver_plan.h"
#include "fusion/fusion.h"
#include "ir/builder.h"
#include "ir/module.h"

namespace jft::compiler::testing {

inline ir::AttrList layouts(std::vector<std::vector<int64_t>> each) {
  ir::AttrList list;
  for (auto& l : each) list.push_back(ir::Attribute(std::move(l)));
  return list;
}

// main(operands...) -> the op's results, the op the only one in the body.
struct OneOp {
  ir::Module m;
  fusion::Fusion group;
  OneOp(ir::OpKind kind, const std::vector<ir::Type>& operands,
        const std::vector<ir::Type>& results, ir::NamedAttrs attrs) {
    ir::Builder b(m);
    auto args = b.beginFunction("main", operands, results);
    b.setLoc(b.fileLoc("model.py", 3, 1));
    auto values = b.op(kind, args, results, std::move(attrs));
    b.ret(values);
    b.endFunction();
    group.name = "fusion_0";
    group.route = fusion::Route::kLibrary;
    group.ops = {0};
  }
  const ir::Op& op() const { return m.functions[0].body.ops[0]; }
  StatusOr<SolverPlan> plan() const { return planSolver(m, op()); }
};

}  // namespace jft::compiler::testing
