// inline: calls replaced by callee bodies, composites by their decomposition
// (tagged with their name) or kept when claimed, unused functions removed,
// recursion and missing callees reported.
#include "passes/inline_calls.h"

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

// private @twice(x) = x + x; main(a) = twice(twice(a)) * a.
ir::Module nestedCalls() {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("twice", {f32({4})}, {f32({4})}, /*is_public=*/false);
  b.ret({b.op1(OpKind::Add, {x[0], x[0]}, f32({4}))});
  b.endFunction();
  auto a = b.beginFunction("main", {f32({4})}, {f32({4})});
  ValueId once =
      b.op1(OpKind::Call, {a[0]}, f32({4}), {{"callee", ir::SymbolRef{"twice"}}});
  ValueId again =
      b.op1(OpKind::Call, {once}, f32({4}), {{"callee", ir::SymbolRef{"twice"}}});
  b.ret({b.op1(OpKind::Multiply, {again, a[0]}, f32({4}))});
  b.endFunction();
  return m;
}

TEST(Inline, CallsBecomeTheCalleeBodyAndTheCalleeGoes) {
  ir::Module m = nestedCalls();
  StatusOr<bool> changed = inlineCalls(m);
  ASSERT_TRUE(changed.isOk()) << changed.status().toString();
  EXPECT_TRUE(*changed);
  expectVerifies(m);
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Function& main = mainOf(m);
  // main(a): %0 = a + a; %1 = %0 + %0; %2 = %1 * a; return %2
  ASSERT_EQ(kindsOf(main.body), (std::vector<OpKind>{OpKind::Add, OpKind::Add,
                                                     OpKind::Multiply, OpKind::Return}));
  const ValueId a = main.body.args[0];
  const auto& ops = main.body.ops;
  EXPECT_EQ(ops[0].operands, (std::vector<ValueId>{a, a}));
  EXPECT_EQ(ops[1].operands,
            (std::vector<ValueId>{ops[0].results[0], ops[0].results[0]}));
  EXPECT_EQ(ops[2].operands, (std::vector<ValueId>{ops[1].results[0], a}));
  EXPECT_EQ(returned(main), ops[2].results);
}

TEST(Inline, NothingToDoIsUnchanged) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Negate, {a[0]}, f32())});
  b.endFunction();
  StatusOr<bool> changed = inlineCalls(m);
  ASSERT_TRUE(changed.isOk());
  EXPECT_FALSE(*changed);
}

TEST(Inline, CallsInsideRegionsAreInlined) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("neg", {f32()}, {f32()}, false);
  b.ret({b.op1(OpKind::Negate, {x[0]}, f32())});
  b.endFunction();
  auto a = b.beginFunction("main", {pred(), f32()}, {f32()});
  b.beginRegion({});
  b.ret({b.op1(OpKind::Call, {a[1]}, f32(), {{"callee", ir::SymbolRef{"neg"}}})});
  ir::Region then_branch = b.endRegion();
  b.beginRegion({});
  b.ret({a[1]});
  ir::Region else_branch = b.endRegion();
  ValueId chosen = b.op1(OpKind::If, {a[0]}, f32(), {},
                         {std::move(then_branch), std::move(else_branch)});
  b.ret({chosen});
  b.endFunction();

  ASSERT_TRUE(inlineCalls(m).isOk());
  expectVerifies(m);
  ASSERT_EQ(m.functions.size(), 1u);
  const ir::Region& then_region = mainOf(m).body.ops[0].regions[0];
  EXPECT_EQ(kindsOf(then_region), (std::vector<OpKind>{OpKind::Negate, OpKind::Return}));
  EXPECT_EQ(then_region.ops[0].operands[0], mainOf(m).body.args[1]);
}

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

TEST(Inline, CompositeInlinedOpsCarryTheCompositeName) {
  ir::Module m = erfComposite();
  ASSERT_TRUE(inlineCalls(m).isOk());
  expectVerifies(m);
  ASSERT_EQ(m.functions.size(), 1u);
  const auto& ops = mainOf(m).body.ops;
  ASSERT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::Tanh, OpKind::Abs, OpKind::Exponential,
                                 OpKind::Return}));
  for (int i : {0, 1}) {
    const auto* tag = ir::findAttrAs<std::string>(ops[i].attrs, "jft.composite");
    ASSERT_NE(tag, nullptr) << "op " << i;
    EXPECT_EQ(*tag, "chlo.erf");
  }
  EXPECT_EQ(ir::findAttr(ops[2].attrs, "jft.composite"), nullptr);
  EXPECT_EQ(ops[2].operands[0], ops[1].results[0]);
}

// chlo.outer's decomposition holds a chlo.inner composite: the inner ops
// keep the innermost name, the outer decomposition's own ops get the outer one.
TEST(Inline, NestedCompositesKeepTheInnermostName) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("inner_impl", {f32()}, {f32()}, false);
  b.ret({b.op1(OpKind::Sine, {x[0]}, f32())});
  b.endFunction();
  auto y = b.beginFunction("outer_impl", {f32()}, {f32()}, false);
  ValueId inner = b.op1(OpKind::Composite, {y[0]}, f32(),
                        {{"name", std::string("chlo.inner")},
                         {"decomposition", ir::SymbolRef{"inner_impl"}}});
  b.ret({b.op1(OpKind::Cosine, {inner}, f32())});
  b.endFunction();
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Composite, {a[0]}, f32(),
               {{"name", std::string("chlo.outer")},
                {"decomposition", ir::SymbolRef{"outer_impl"}}})});
  b.endFunction();
  ASSERT_TRUE(inlineCalls(m).isOk());
  expectVerifies(m);
  ASSERT_EQ(m.functions.size(), 1u);
  const auto& ops = mainOf(m).body.ops;
  ASSERT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::Sine, OpKind::Cosine, OpKind::Return}));
  EXPECT_EQ(*ir::findAttrAs<std::string>(ops[0].attrs, "jft.composite"), "chlo.inner");
  EXPECT_EQ(*ir::findAttrAs<std::string>(ops[1].attrs, "jft.composite"), "chlo.outer");
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

TEST(Inline, InlinedOpsPointAtTheirLineThroughTheCallSite) {
  ir::Module m;
  ir::Builder b(m);
  b.setLoc(b.fileLoc("lib.py", 3, 5));
  auto x = b.beginFunction("f", {f32()}, {f32()}, false);
  b.ret({b.op1(OpKind::Negate, {x[0]}, f32())});
  b.endFunction();
  b.setLoc(b.fileLoc("user.py", 10, 1));
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Call, {a[0]}, f32(), {{"callee", ir::SymbolRef{"f"}}})});
  b.endFunction();
  ASSERT_TRUE(inlineCalls(m).isOk());
  const ir::Location& loc = m.locations.get(mainOf(m).body.ops[0].loc);
  ASSERT_EQ(loc.kind, ir::Location::Kind::CallSite);
  EXPECT_EQ(m.locations.get(loc.children[0]).text, "lib.py");
  EXPECT_EQ(m.locations.get(loc.children[1]).text, "user.py");
}

TEST(Inline, RecursionIsAnErrorNamingThePath) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("ping", {f32()}, {f32()}, false);
  b.ret({b.op1(OpKind::Call, {x[0]}, f32(), {{"callee", ir::SymbolRef{"pong"}}})});
  b.endFunction();
  auto y = b.beginFunction("pong", {f32()}, {f32()}, false);
  b.ret({b.op1(OpKind::Call, {y[0]}, f32(), {{"callee", ir::SymbolRef{"ping"}}})});
  b.endFunction();
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Call, {a[0]}, f32(), {{"callee", ir::SymbolRef{"ping"}}})});
  b.endFunction();
  StatusOr<bool> result = inlineCalls(m);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("recursive call: @ping -> @pong -> @ping"),
            std::string::npos)
      << result.status().message();
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

TEST(Inline, MissingCalleeIsAnError) {
  ir::Module m;
  ir::Builder b(m);
  b.setLoc(b.fileLoc("user.py", 7, 2));
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Call, {a[0]}, f32(), {{"callee", ir::SymbolRef{"nowhere"}}})});
  b.endFunction();
  StatusOr<bool> result = inlineCalls(m);
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("func.call at user.py:7:2"), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("@nowhere, which does not exist"),
            std::string::npos);
}

TEST(Inline, FunctionsNamedByCustomCallsStay) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("body", {f32()}, {f32()}, false);
  b.ret({x[0]});
  b.endFunction();
  auto u = b.beginFunction("unused", {f32()}, {f32()}, false);
  b.ret({u[0]});
  b.endFunction();
  auto a = b.beginFunction("main", {f32()}, {f32()});
  ir::AttrList called = {ir::Attribute(ir::SymbolRef{"body"})};
  b.ret({b.op1(OpKind::CustomCall, {a[0]}, f32(),
               {{"call_target_name", std::string("my_target")},
                {"called_computations", called}})});
  b.endFunction();
  ASSERT_TRUE(inlineCalls(m).isOk());
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_EQ(m.functions[0].name, "body");
  EXPECT_EQ(m.functions[1].name, "main");
}

}  // namespace
}  // namespace jft::passes
