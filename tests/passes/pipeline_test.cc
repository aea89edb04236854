// runPasses: the passes in order to a fixed point, with verification, a
// per-pass record and dumps.
#include "passes/pipeline.h"

#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;

// private @scale(x) = x * 1.0; main(a) = (transpose(exp(scale(a)), [0]),
// exp(scale(a))).
ir::Module redundantProgram() {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("scale", {f32({4})}, {f32({4})}, false);
  b.ret({b.op1(OpKind::Multiply, {x[0], splat(b, f32({4}), 1.0)}, f32({4}))});
  b.endFunction();
  auto a = b.beginFunction("main", {f32({4})}, {f32({4}), f32({4})});
  ValueId s1 =
      b.op1(OpKind::Call, {a[0]}, f32({4}), {{"callee", ir::SymbolRef{"scale"}}});
  ValueId s2 =
      b.op1(OpKind::Call, {a[0]}, f32({4}), {{"callee", ir::SymbolRef{"scale"}}});
  ValueId e1 = b.op1(OpKind::Exponential, {s1}, f32({4}));
  ValueId e2 = b.op1(OpKind::Exponential, {s2}, f32({4}));
  ValueId t = b.op1(OpKind::Transpose, {e1}, f32({4}), ints("permutation", {0}));
  b.ret({t, e2});
  b.endFunction();
  return m;
}

TEST(Pipeline, RedundantProgramShrinksToOneExponential) {
  ir::Module m = redundantProgram();
  PipelineOptions options;
  options.verify = true;
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  EXPECT_EQ(ir::printModule(m),
            "module {\n"
            "  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>, "
            "tensor<4xf32>) {\n"
            "    %0 = stablehlo.exponential %arg0 : tensor<4xf32>\n"
            "    return %0, %0 : tensor<4xf32>, tensor<4xf32>\n"
            "  }\n"
            "}\n");
  EXPECT_TRUE(report->reached_fixed_point);
  // Round 1 changes things, round 2 finds nothing left to do.
  EXPECT_EQ(report->rounds, 2);
  std::vector<std::string> order;
  for (const PassRecord& record : report->passes) order.push_back(record.pass);
  EXPECT_EQ(order, (std::vector<std::string>{"inline",
                                             "sink_constants",
                                             "collectives",
                                             "syrk_expand",
                                             "approx_top_k",
                                             "integer_dot",
                                             "float8_dot",
                                             "half_solvers",
                                             "bitcast_widths",
                                             "rng_expand",
                                             "complex_iota",
                                             "complex_sort",
                                             "complex_reduce",
                                             "complex_scatter",
                                             "canonicalize",
                                             "simplify",
                                             "cse",
                                             "dce",
                                             "canonicalize",
                                             "simplify",
                                             "cse",
                                             "dce"}));
  EXPECT_TRUE(report->passes[0].changed);
  // No constant to sink, no collective, syrk or ApproxTopK call, integer or
  // float8 product, 16-bit solver, bitcast, rng_bit_generator, complex iota,
  // sort, reduce or scatter to expand.
  for (size_t i = 1; i < 14; ++i) EXPECT_FALSE(report->passes[i].changed) << order[i];
  for (size_t i = 14; i < 18; ++i) EXPECT_TRUE(report->passes[i].changed) << order[i];
  for (size_t i = 18; i < 22; ++i) EXPECT_FALSE(report->passes[i].changed) << order[i];
  EXPECT_NE(describeReport(*report).find("round 2 dce: unchanged"), std::string::npos);
}

TEST(Pipeline, DumpsTheModuleAfterEachChangingPass) {
  ir::Module m = redundantProgram();
  std::vector<std::pair<std::string, std::string>> dumps;
  PipelineOptions options;
  options.dump = [&](const PassRecord& record, const std::string& text) {
    dumps.emplace_back(record.pass, text);
  };
  ASSERT_TRUE(runPasses(m, options).isOk());
  ASSERT_EQ(dumps.size(), 22u);
  EXPECT_EQ(dumps[0].first, "inline");
  EXPECT_NE(dumps[0].second.find("stablehlo.multiply"), std::string::npos);
  EXPECT_EQ(dumps[0].second.find("call @scale"), std::string::npos);
  EXPECT_EQ(dumps[1].first, "sink_constants");
  EXPECT_EQ(dumps[1].second, "");  // unchanged
  EXPECT_EQ(dumps[2].first, "collectives");
  EXPECT_EQ(dumps[2].second, "");  // unchanged
  EXPECT_EQ(dumps[3].first, "syrk_expand");
  EXPECT_EQ(dumps[3].second, "");  // unchanged
  EXPECT_EQ(dumps[4].first, "approx_top_k");
  EXPECT_EQ(dumps[4].second, "");  // unchanged
  EXPECT_EQ(dumps[5].first, "integer_dot");
  EXPECT_EQ(dumps[5].second, "");  // unchanged
  EXPECT_EQ(dumps[7].first, "half_solvers");
  EXPECT_EQ(dumps[7].second, "");  // unchanged
  EXPECT_EQ(dumps[9].first, "rng_expand");
  EXPECT_EQ(dumps[9].second, "");  // unchanged
  EXPECT_EQ(dumps[10].first, "complex_iota");
  EXPECT_EQ(dumps[10].second, "");  // unchanged
  EXPECT_EQ(dumps[11].first, "complex_sort");
  EXPECT_EQ(dumps[11].second, "");  // unchanged
  EXPECT_EQ(dumps[12].first, "complex_reduce");
  EXPECT_EQ(dumps[12].second, "");  // unchanged
  EXPECT_EQ(dumps[13].first, "complex_scatter");
  EXPECT_EQ(dumps[13].second, "");  // unchanged
  EXPECT_EQ(dumps[14].first, "canonicalize");
  EXPECT_EQ(dumps[14].second.find("stablehlo.transpose"), std::string::npos);
  EXPECT_EQ(dumps[21].second, "");  // unchanged
}

TEST(Pipeline, RoundsAreBounded) {
  ir::Module m = redundantProgram();
  PipelineOptions options;
  options.max_rounds = 1;
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_TRUE(report.isOk());
  EXPECT_EQ(report->rounds, 1);
  EXPECT_FALSE(report->reached_fixed_point);
  EXPECT_EQ(report->passes.size(), 18u);
}

TEST(Pipeline, BrokenInputIsRejectedWhenVerifying) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({4}), f32({8})}, {f32({4})});
  b.ret({b.op1(OpKind::Add, {a[0], a[1]}, f32({4}))});
  b.endFunction();
  PipelineOptions options;
  options.verify = true;
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_FALSE(report.isOk());
  EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
}

TEST(Pipeline, InlineErrorsStopThePipeline) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32()}, {f32()});
  b.ret({b.op1(OpKind::Call, {a[0]}, f32(), {{"callee", ir::SymbolRef{"main"}}})});
  b.endFunction();
  StatusOr<PipelineReport> report = runPasses(m);
  ASSERT_FALSE(report.isOk());
  EXPECT_NE(report.status().message().find("recursive call: @main -> @main"),
            std::string::npos)
      << report.status().message();
}

}  // namespace
}  // namespace jft::passes
