// hasSideEffect: the kinds the brief and the spec name, custom calls by their
// flag, and effects hidden in regions or called functions.
#include "passes/side_effects.h"

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

ir::Op opOf(OpKind kind, ir::NamedAttrs attrs = {}) {
  ir::Op op;
  op.kind = kind;
  op.attrs = std::move(attrs);
  return op;
}

TEST(SideEffects, ByKind) {
  ir::Module m;
  for (OpKind kind : {OpKind::Send, OpKind::Recv, OpKind::Infeed, OpKind::Outfeed,
                      OpKind::AllGather, OpKind::AllReduce, OpKind::AllToAll,
                      OpKind::ReduceScatter, OpKind::CollectivePermute,
                      OpKind::CollectiveBroadcast, OpKind::Rng, OpKind::RngBitGenerator})
    EXPECT_TRUE(hasSideEffect(m, opOf(kind))) << ir::opKindName(kind);
  for (OpKind kind : {OpKind::Add, OpKind::DotGeneral, OpKind::Constant, OpKind::Iota,
                      OpKind::OptimizationBarrier, OpKind::AfterAll})
    EXPECT_FALSE(hasSideEffect(m, opOf(kind))) << ir::opKindName(kind);
  EXPECT_TRUE(hasSideEffect(m, opOf(OpKind::CustomCall, {{"has_side_effect", true}})));
  EXPECT_FALSE(hasSideEffect(m, opOf(OpKind::CustomCall, {{"has_side_effect", false}})));
  EXPECT_FALSE(hasSideEffect(m, opOf(OpKind::CustomCall)));
}

TEST(SideEffects, DceSinkHasNoneSoDceDropsIt) {
  // jax.lax.dce_sink(y, prevent_mlir_dce=True): an FFI call marked effectful,
  // no results, and nothing to do.
  EXPECT_FALSE(hasSideEffect(
      ir::Module(),
      opOf(OpKind::CustomCall,
           {{"call_target_name", std::string("dce_sink")}, {"has_side_effect", true}})));
  EXPECT_TRUE(hasSideEffect(
      ir::Module(), opOf(OpKind::CustomCall, {{"call_target_name", std::string("other")},
                                              {"has_side_effect", true}})));
}

TEST(SideEffects, ThroughRegionsAndCalledFunctions) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("noisy", {Type::token()}, {Type::token()}, false);
  b.ret({b.op1(OpKind::Outfeed, {x[0], x[0]}, Type::token())});
  b.endFunction();
  auto y = b.beginFunction("quiet", {f32()}, {f32()}, false);
  b.ret({b.op1(OpKind::Negate, {y[0]}, f32())});
  b.endFunction();

  EXPECT_TRUE(hasSideEffect(m, opOf(OpKind::Call, {{"callee", ir::SymbolRef{"noisy"}}})));
  EXPECT_FALSE(
      hasSideEffect(m, opOf(OpKind::Call, {{"callee", ir::SymbolRef{"quiet"}}})));
  EXPECT_TRUE(hasSideEffect(
      m, opOf(OpKind::Composite, {{"decomposition", ir::SymbolRef{"noisy"}}})));
  // An unknown callee cannot be shown to be pure.
  EXPECT_TRUE(hasSideEffect(m, opOf(OpKind::Call, {{"callee", ir::SymbolRef{"gone"}}})));

  ir::Op loop = opOf(OpKind::While);
  ir::Region body;
  body.ops.push_back(opOf(OpKind::AllReduce));
  loop.regions.push_back(std::move(body));
  EXPECT_TRUE(hasSideEffect(m, loop));
}

}  // namespace
}  // namespace jft::passes
