// Pooling and its gradient in the loop family (window_emitter.h), in the
// forms jax.lax.reduce_window and the max-pool VJP emit: max pool 2x2/2 on
// NHWC, average pool 3x3/1 with SAME padding (the divide fused after), base
// and window dilations, a window too large to unroll (scf.for), a
// two-operand reduce_window, and select_and_scatter with disjoint and with
// overlapping windows. The numbers are checked on a GPU by
// tests/codegen/run_window_check.py against numpy.
#include <gtest/gtest.h>

#include <limits>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "fusion/ttir_support.h"
#include "launch_dump.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

ir::Region combiner(ir::Builder& b, ElementType element, OpKind kind) {
  const Type scalar = Type::scalar(element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(kind, {args[0], args[1]}, scalar)});
  return b.endRegion();
}

struct WindowAttrs {
  std::vector<int64_t> window, strides, base, dilations, padding;
};

ir::NamedAttrs attrsOf(const WindowAttrs& w) {
  const size_t rank = w.window.size();
  auto orOnes = [&](const std::vector<int64_t>& v) {
    return v.empty() ? std::vector<int64_t>(rank, 1) : v;
  };
  return {{"window_dimensions", w.window},
          {"window_strides", orOnes(w.strides)},
          {"base_dilations", orOnes(w.base)},
          {"window_dilations", orOnes(w.dilations)},
          {"padding", w.padding.empty() ? std::vector<int64_t>(2 * rank, 0) : w.padding}};
}

ir::Module pool(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                const WindowAttrs& w, OpKind kind, double init) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32(in)}, {f32(out)});
  ir::Region body = combiner(b, ElementType::F32, kind);
  b.ret({b.op1(OpKind::ReduceWindow, {a[0], scalarConstant(b, f32(), init)}, f32(out),
               attrsOf(w), {std::move(body)})});
  b.endFunction();
  return m;
}

TEST(EmitWindow, MaxPool2x2Stride2ReadsFourElementsWithoutMasks) {
  const double ninf = -std::numeric_limits<double>::infinity();
  ir::Module m = pool({2, 8, 8, 3}, {2, 4, 4, 3},
                      {{1, 2, 2, 1}, {1, 2, 2, 1}, {}, {}, {}}, OpKind::Maximum, ninf);
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 4);  // one per window element
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  EXPECT_EQ(count(k.ttir, "scf.for"), 0);
  // Every window lies inside the input: no padding compare.
  EXPECT_EQ(count(k.ttir, "arith.cmpi ult"), 0);
  EXPECT_NE(k.ttir.find("0xFF800000"), std::string::npos) << k.ttir;  // init -inf
}

TEST(EmitWindow, AvgPoolSamePaddingMasksThePaddingAndFusesTheDivide) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({6, 10})}, {f32({6, 10})});
  ir::Region body = combiner(b, ElementType::F32, OpKind::Add);
  ValueId sum =
      b.op1(OpKind::ReduceWindow, {a[0], scalarConstant(b, f32(), 0)}, f32({6, 10}),
            attrsOf({{3, 3}, {}, {}, {}, {1, 1, 1, 1}}), {std::move(body)});
  ValueId nine = b.op1(OpKind::BroadcastInDim, {scalarConstant(b, f32(), 9)},
                       f32({6, 10}), {{"broadcast_dimensions", std::vector<int64_t>{}}});
  b.ret({b.op1(OpKind::Divide, {sum, nine}, f32({6, 10}))});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty());
  ASSERT_EQ(plan.fusions.size(), 1u);  // the divide joins the window's kernel
  EXPECT_EQ(plan.fusions[0].family, Family::kLoop);
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 9);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 9);  // init + 9 elements
  EXPECT_EQ(count(k.ttir, "tt.precise_divf"), 1);
  EXPECT_GE(count(k.ttir, "arith.cmpi ult"), 2);  // row and column padding
}

TEST(EmitWindow, BaseAndWindowDilationsSkipTheHoles) {
  // in [5], base dilation 2 (dilated extent 9), window 3 dilated by 2 (span
  // 5), padding (1, 1): 11 padded positions, (11 - 5) / 1 + 1 = 7 outputs.
  ir::Module m = pool({5}, {7}, {{3}, {1}, {2}, {2}, {1, 1}}, OpKind::Add, 0);
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 3);
  EXPECT_GE(count(k.ttir, "arith.remsi"), 3);  // on a dilated element?
  EXPECT_GE(count(k.ttir, "arith.divsi"), 3);  // its input index
  EXPECT_NE(k.ttir.find("arith.constant dense<9> : "), std::string::npos);
}

TEST(EmitWindow, LargeWindowLoopsInsteadOfUnrolling) {
  // Global average pool's sum over 16x16 = 256 elements > kUnrolledWindow.
  ir::Module m =
      pool({4, 16, 16}, {4, 1, 1}, {{1, 16, 16}, {}, {}, {}, {}}, OpKind::Add, 0);
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
  EXPECT_EQ(count(k.ttir, "tt.load "), 1);
  EXPECT_EQ(count(k.ttir, "scf.yield"), 1);
  EXPECT_NE(k.ttir.find("arith.constant 256 : i32"), std::string::npos);
}

TEST(EmitWindow, TwoOperandWindowWalksOnceForBothResults) {
  // (max value, its index) over windows of 4 along the last dim, stride 4.
  ir::Module m;
  ir::Builder b(m);
  auto a =
      b.beginFunction("main", {f32({3, 16}), i32({3, 16})}, {f32({3, 4}), i32({3, 4})});
  const Type fs = Type::scalar(ElementType::F32), is = Type::scalar(ElementType::I32);
  auto r = b.beginRegion({fs, is, fs, is});
  ValueId gt = b.op1(OpKind::Compare, {r[2], r[0]}, pred(),
                     {{"comparison_direction", ir::ComparisonDirection::GT}});
  b.ret({b.op1(OpKind::Select, {gt, r[2], r[0]}, fs),
         b.op1(OpKind::Select, {gt, r[3], r[1]}, is)});
  ir::Region body = b.endRegion();
  const double ninf = -std::numeric_limits<double>::infinity();
  std::vector<ValueId> outs =
      b.op(OpKind::ReduceWindow,
           {a[0], a[1], scalarConstant(b, f32(), ninf), scalarConstant(b, i32(), -1)},
           {f32({3, 4}), i32({3, 4})}, attrsOf({{1, 4}, {1, 4}, {}, {}, {}}),
           {std::move(body)});
  b.ret(outs);
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 8);  // 4 window elements x 2 inputs
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
  EXPECT_EQ(count(k.ttir, "arith.cmpf ogt"), 4);
}

ir::Module selectAndScatter(const std::vector<int64_t>& in,
                            const std::vector<int64_t>& src, const WindowAttrs& w) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32(in), f32(src)}, {f32(in)});
  const Type fs = Type::scalar(ElementType::F32);
  auto s = b.beginRegion({fs, fs});
  b.ret({b.op1(OpKind::Compare, {s[0], s[1]}, pred(),
               {{"comparison_direction", ir::ComparisonDirection::GE}})});
  ir::Region select = b.endRegion();
  ir::Region scatter = combiner(b, ElementType::F32, OpKind::Add);
  ir::NamedAttrs attrs = {{"window_dimensions", w.window},
                          {"window_strides", w.strides},
                          {"padding", w.padding}};
  b.ret({b.op1(OpKind::SelectAndScatter, {a[0], a[1], scalarConstant(b, f32(), 0)},
               f32(in), std::move(attrs), {std::move(select), std::move(scatter)})});
  b.endFunction();
  return m;
}

TEST(EmitWindow, SelectAndScatterDisjointWindowsVisitOneWindow) {
  // Max-pool 2x2/2 gradient on [4, 8]: every element is in one window.
  ir::Module m = selectAndScatter({4, 8}, {2, 4}, {{2, 2}, {2, 2}, {}, {}, {0, 0, 0, 0}});
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty());
  EXPECT_EQ(plan.fusions.at(0).family, Family::kLoop);
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 5);  // 4 window elements + the source
  EXPECT_EQ(count(k.ttir, "arith.cmpf oge"), 3);
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
}

TEST(EmitWindow, SelectAndScatterOverlappingPaddedWindows) {
  // 3x3/2 with padding 1 on [7, 9]: source [4, 5]; each element lies in up
  // to 2 x 2 windows, each re-run over its 9 elements.
  ir::Module m = selectAndScatter({7, 9}, {4, 5}, {{3, 3}, {2, 2}, {}, {}, {1, 1, 1, 1}});
  TtirKernel k = emitWhole(m, Family::kLoop);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "tt.load "), 4 * 9 + 4);
  EXPECT_EQ(count(k.ttir, "arith.cmpf oge"), 4 * 8);
}

TEST(EmitWindow, SelectAndScatterRereadingTooMuchIsNotTtir) {
  ir::Module m =
      selectAndScatter({64, 64}, {1, 1}, {{64, 64}, {64, 64}, {}, {}, {0, 0, 0, 0}});
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_NE(plan.unsupported[0].reason.find("more than 1024"), std::string::npos);
}

TEST(EmitWindow, AReduceOfAPoolIsItsOwnKernel) {
  // sum(maxpool(x)): the reduce does not pull the window into its space.
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8, 8})}, {f32({4})});
  ir::Region body = combiner(b, ElementType::F32, OpKind::Maximum);
  ValueId pooled =
      b.op1(OpKind::ReduceWindow, {a[0], scalarConstant(b, f32(), 0)}, f32({4, 4}),
            attrsOf({{2, 2}, {2, 2}, {}, {}, {}}), {std::move(body)});
  ir::Region add = combiner(b, ElementType::F32, OpKind::Add);
  b.ret({b.op1(OpKind::Reduce, {pooled, scalarConstant(b, f32(), 0)}, f32({4}),
               {{"dimensions", std::vector<int64_t>{1}}}, {std::move(add)})});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty());
  int loops = 0, reductions = 0;
  for (const fusion::Fusion& f : plan.fusions) {
    loops += f.family == Family::kLoop;
    reductions += f.family == Family::kReduction;
  }
  EXPECT_EQ(loops, 1);
  EXPECT_EQ(reductions, 1);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
