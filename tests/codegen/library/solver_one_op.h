// Solver plan tests: one linear-algebra op as the only op of main, the group
// the library route gives it, and the layouts attribute JAX writes.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "codegen/library/solver_call.h"
#include "codegen/library/solver_plan.h"
#include "compiler/compiler.h"
#include "fusion/fusion.h"
#include "ir/builder.h"
#include "ir/module.h"

namespace jft::compiler::testing {

using namespace jft::codegen::library;

// Minor-to-major layouts of a rank-`rank` matrix batch: column-major
// matrices (JAX's solver operands) and plain row-major.
inline std::vector<int64_t> columnMajor(int64_t rank) {
  std::vector<int64_t> l = {rank - 2, rank - 1};
  for (int64_t d = rank - 3; d >= 0; --d) l.push_back(d);
  return l;
}
inline std::vector<int64_t> rowMajor(int64_t rank) {
  std::vector<int64_t> l;
  for (int64_t d = rank - 1; d >= 0; --d) l.push_back(d);
  return l;
}

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

// checkSolverCall refuses `x` as unimplemented with a message holding each
// of `words`.
inline void expectRejected(const OneOp& x, const std::vector<std::string>& words) {
  Status s = checkSolverCall(x.m, x.op());
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  for (const std::string& w : words)
    EXPECT_NE(s.message().find(w), std::string::npos) << s.message() << " lacks " << w;
}

// The op of `one` in a program `name` returning only its result `kept`, at
// model.py:9, compiled in fl_only.
inline StatusOr<Executable> compileAtLine9(const OneOp& one, const std::string& name,
                                           size_t kept) {
  ir::Module m;
  m.name = name;
  ir::Builder b(m);
  const ir::Op& op = one.op();
  std::vector<ir::Type> all;
  for (ir::ValueId r : op.results) all.push_back(one.m.typeOf(r));
  auto args = b.beginFunction("main", {one.m.typeOf(op.operands[0])}, {all[kept]});
  b.setLoc(b.fileLoc("model.py", 9, 1));
  auto values = b.op(ir::OpKind::CustomCall, args, all, op.attrs);
  b.ret({values[kept]});
  b.endFunction();
  Options options;
  options.mode = Mode::kFlOnly;
  return compileModule(std::move(m), options, nullptr);
}

}  // namespace jft::compiler::testing
