// The one error listing every unsupported op.
#include "compiler/unsupported_ops.h"

#include <gtest/gtest.h>

#include "ir/builder.h"

namespace jft::compiler {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

struct Fixture {
  ir::Module m;
  const ir::Function* f = nullptr;
  fusion::Plan plan;
  Fixture() {
    m.name = "jit_model";
    ir::Builder b(m);
    ir::Type t = ir::Type::tensor(ir::ElementType::F32, {8});
    auto args = b.beginFunction("main", {t}, {t});
    b.setLoc(b.fileLoc("model.py", 10, 2));
    ir::ValueId s = b.op1(ir::OpKind::Sort, {args[0]}, t);  // 0
    b.setLoc(b.fileLoc("model.py", 11, 2));
    ir::ValueId e = b.op1(ir::OpKind::Exponential, {s}, t);  // 1
    b.setLoc(b.fileLoc("model.py", 12, 2));
    ir::ValueId r = b.op1(ir::OpKind::Cholesky, {e}, t);  // 2
    b.ret({r});
    f = &b.endFunction();
    fusion::Fusion g;
    g.name = "fusion_1_loop_exponential";
    g.route = fusion::Route::kTtir;
    g.ops = {1};
    plan.fusions.push_back(g);
    // The planner's order need not be the body's; the same op twice is listed once.
    plan.unsupported = {{2, "", "", "no route for cholesky yet"},
                        {0, "stablehlo.sort (tensor<8xf32>) -> tensor<8xf32>",
                         "model.py:10:2", "no TTIR emitter for sort yet"},
                        {2, "", "", "no route for cholesky yet"}};
  }
};

TEST(UnsupportedOps, EveryOpOnceInBodyOrderWithTypesLineAndReason) {
  Fixture x;
  Status s = unsupportedOpsError(x.m, *x.f, Mode::kFlOnly, x.plan.unsupported);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  const std::string& m = s.message();
  EXPECT_EQ(m.rfind("jit_model: 2 ops cannot be compiled", 0), 0u) << m;
  EXPECT_NE(m.find("fl_only"), std::string::npos) << m;
  EXPECT_EQ(count(m, "stablehlo.sort"), 1u) << m;
  EXPECT_EQ(count(m, "stablehlo.cholesky (tensor<8xf32>) -> tensor<8xf32>"), 1u) << m;
  EXPECT_EQ(count(m, "no route for cholesky yet"), 1u) << m;
  EXPECT_NE(m.find("model.py:12:2"), std::string::npos) << m;
  EXPECT_LT(m.find("stablehlo.sort"), m.find("stablehlo.cholesky")) << m;
  EXPECT_NE(m.back(), '\n');
}

TEST(UnsupportedOps, TheModeSaysWhatItTried) {
  Fixture x;
  for (Mode mode : {Mode::kBackUnsupported, Mode::kBackFail}) {
    std::string m = unsupportedOpsError(x.m, *x.f, mode, x.plan.unsupported).message();
    EXPECT_NE(m.find("neither the TTIR route nor the native route can run them"),
              std::string::npos)
        << m;
    EXPECT_NE(m.find(modeName(mode)), std::string::npos) << m;
    EXPECT_EQ(m.find("does not exist yet"), std::string::npos) << m;
  }
  std::string native =
      unsupportedOpsError(x.m, *x.f, Mode::kNative, x.plan.unsupported).message();
  EXPECT_NE(native.find("XLA_MODE=native: the native route cannot run them"),
            std::string::npos)
      << native;
  EXPECT_EQ(native.find("does not exist yet"), std::string::npos) << native;
}

}  // namespace
}  // namespace jft::compiler
