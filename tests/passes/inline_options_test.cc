// inline with InlineOptions, which a case file cannot set: a claimed
// composite is kept with its decomposition, and the depth bound is an
// error. Everything else inline does is tested as text in cases/inline.ir.
#include "pass_test_util.h"
#include "passes/inline_calls.h"

namespace jft::passes {
namespace {

using namespace testing;

// A composite chlo.erf(x) decomposed by @erf_impl(x) = tanh(x) (the body
// only has to be recognisable).
ir::Module erfComposite() {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("erf_impl", {f32({3})}, {f32({3})}, false);
  ValueId t = b.op1(OpKind::Tanh, {x[0]}, f32({3}));
  b.ret({b.op1(OpKind::Abs, {t}, f32({3}))});
  b.endFunction();
  auto a = b.beginFunction("main", {f32({3})}, {f32({3})});
  ValueId erf = b.op1(
      OpKind::Composite, {a[0]}, f32({3}),
      {{"name", std::string("chlo.erf")}, {"decomposition", ir::SymbolRef{"erf_impl"}}});
  b.ret({b.op1(OpKind::Exponential, {erf}, f32({3}))});
  b.endFunction();
  return m;
}

TEST(Inline, ClaimedCompositeIsKeptWithItsDecomposition) {
  ir::Module m = erfComposite();
  InlineOptions options;
  options.keep_composite = [](const ir::Op& op) {
    const auto* name = ir::findAttrAs<std::string>(op.attrs, "name");
    return name && *name == "chlo.erf";
  };
  StatusOr<bool> changed = inlineCalls(m, options);
  ASSERT_TRUE(changed.isOk());
  EXPECT_FALSE(*changed);
  expectVerifies(m);
  EXPECT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(mainOf(m).body.ops[0].kind, OpKind::Composite);
}

TEST(Inline, DepthBoundIsAnError) {
  ir::Module m;
  ir::Builder b(m);
  // f0 calls f1 calls f2 ... calls f5: six nested levels.
  for (int i = 0; i < 6; ++i) {
    auto x = b.beginFunction("f" + std::to_string(i), {f32()}, {f32()}, false);
    if (i == 5) {
      b.ret({x[0]});
    } else {
      b.ret({b.op1(OpKind::Call, {x[0]}, f32(),
                   {{"callee", ir::SymbolRef{"f" + std::to_string(i + 1)}}})});
    }
    b.endFunction();
  }
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Call, {a[0]}, f32(), {{"callee", ir::SymbolRef{"f0"}}})});
  b.endFunction();
  InlineOptions shallow;
  shallow.max_depth = 3;
  StatusOr<bool> result = inlineCalls(m, shallow);
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("calls nest deeper than 3"), std::string::npos)
      << result.status().message();
}

}  // namespace
}  // namespace jft::passes
