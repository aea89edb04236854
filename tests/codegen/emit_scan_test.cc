// The scan family on hand-built cumulative reductions: the reduce_window
// form (forward along the last dim, reverse along a major dim, a row longer
// than a tile), the chlo.scan composite with its final carry, and the
// planner's choice of family (a real pooling window is a loop, not a scan).
#include <gtest/gtest.h>

#include <limits>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "fusion/ttir_support.h"
#include "launch_dump.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

ir::Region scalarCombiner(ir::Builder& b, ElementType element, OpKind kind) {
  const Type scalar = Type::scalar(element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(kind, {args[0], args[1]}, scalar)});
  return b.endRegion();
}

// reduce_window over the whole of `axis` with padding (n-1, 0) (or (0, n-1)).
ValueId cumulative(ir::Builder& b, ValueId x, ValueId init, size_t axis, bool reverse,
                   OpKind kind) {
  const Type t = b.typeOf(x);  // a copy: new values move the table
  std::vector<int64_t> window(t.dims.size(), 1), ones(t.dims.size(), 1),
      padding(2 * t.dims.size(), 0);
  window[axis] = t.dims[axis];
  padding[2 * axis + (reverse ? 1 : 0)] = t.dims[axis] - 1;
  ir::Region body = scalarCombiner(b, t.element, kind);
  return b.op1(OpKind::ReduceWindow, {x, init}, t,
               {{"window_dimensions", window},
                {"window_strides", ones},
                {"base_dilations", ones},
                {"window_dilations", ones},
                {"padding", padding}},
               {std::move(body)});
}

ir::Module cumsum(std::vector<int64_t> dims, size_t axis, bool reverse, OpKind kind,
                  double init) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32(dims)}, {f32(dims)});
  b.ret({cumulative(b, a[0], scalarConstant(b, f32(), init), axis, reverse, kind)});
  b.endFunction();
  return m;
}

TEST(EmitScan, CumsumAlongTheLastDimIsOneTtScanPerTile) {
  ir::Module m = cumsum({8, 100}, 1, false, OpKind::Add, 0);
  TtirKernel k = emitWhole(m, Family::kScan);
  dumpLaunch(k);
  EXPECT_EQ(k.tile, "8x128");  // 100 lanes -> 128; all 8 rows in one program
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(count(k.ttir, "\"tt.scan\""), 1);
  EXPECT_NE(k.ttir.find("<{axis = 1 : i32, reverse = false}>"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "tt.scan.return"), 1);
  EXPECT_EQ(count(k.ttir, "scf.for"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 1);
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  // One add in the scan combiner, one to combine the init in.
  EXPECT_EQ(count(k.ttir, "arith.addf"), 2);
  EXPECT_NE(k.ttir.find("arith.cmpi slt"), std::string::npos);  // 100 of 128 lanes
}

TEST(EmitScan, ReverseScanAlongAMajorDimReadsRowsBackToFront) {
  ir::Module m = cumsum({50, 3}, 0, true, OpKind::Multiply, 1);
  TtirKernel k = emitWhole(m, Family::kScan);
  dumpLaunch(k);
  EXPECT_EQ(k.tile, "4x64");  // rows are the 3 columns; 50 lanes -> 64
  EXPECT_EQ(count(k.ttir, "\"tt.scan\""), 1);
  EXPECT_EQ(count(k.ttir, "reverse = true"), 0);  // lanes are reversed instead
  // position = 49 - lane; element = position * 3 + column.
  EXPECT_NE(k.ttir.find("arith.constant dense<49> : tensor<1x64xi32>"),
            std::string::npos);
  EXPECT_NE(k.ttir.find("arith.subi"), std::string::npos);
  EXPECT_GE(count(k.ttir, "arith.mulf"), 2);
}

TEST(EmitScan, LongRowsLoopCarryingTheRunningTotal) {
  ir::Module m = cumsum({4, 5000}, 1, false, OpKind::Maximum,
                        -std::numeric_limits<double>::infinity());
  TtirKernel k = emitWhole(m, Family::kScan);
  dumpLaunch(k);
  EXPECT_EQ(k.tile, "4x1024 looped");
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
  EXPECT_EQ(count(k.ttir, "\"tt.scan\""), 1);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);  // the carry: the last valid lane
  EXPECT_EQ(count(k.ttir, "scf.yield"), 1);
  // 5000 is not a multiple of 1024: lanes past the row are -1 for the carry.
  EXPECT_NE(k.ttir.find("arith.constant dense<-1> : tensor<1x1024xi32>"),
            std::string::npos);
  EXPECT_LT(k.ttir.find("scf.for"), k.ttir.find("tt.store "));
}

TEST(EmitScan, ChloScanCompositeStoresTheScanAndTheFinalCarry) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8, 100}), f32({8})}, {f32({8, 100}), f32({8})});
  auto args = b.beginRegion({f32({8}), f32({8})});
  ValueId sum = b.op1(OpKind::Add, {args[0], args[1]}, f32({8}));
  b.ret({sum, sum});
  ir::Region body = b.endRegion();
  ir::NamedAttrs comp{
      {"dimension", int64_t{1}}, {"is_associative", true}, {"is_reverse", false}};
  auto r = b.op(OpKind::Composite, {a[0], a[1]}, {f32({8, 100}), f32({8})},
                {{"name", std::string("chlo.scan")},
                 {"composite_attributes", comp},
                 {"decomposition", ir::SymbolRef{"chlo.scan.impl"}}},
                {std::move(body)});
  b.ret({r[0], r[1]});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].family, Family::kScan);
  EXPECT_TRUE(::jft::codegen::ttir::ttirKeepsComposite(m, m.entry()->body.ops[0]));
  TtirKernel k = emitWhole(m, Family::kScan);
  dumpLaunch(k);
  EXPECT_EQ(count(k.ttir, "\"tt.scan\""), 1);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
  EXPECT_EQ(count(k.ttir, "tt.load "), 2);  // the input and the initial carry
}

TEST(EmitScan, PlannerRoutesCumulativeWindowsToScanAndPoolingToLoop) {
  ir::Module m = cumsum({8, 100}, 1, false, OpKind::Add, 0);
  fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty());
  bool scan = false;
  for (const fusion::Fusion& f : plan.fusions) scan = scan || f.family == Family::kScan;
  EXPECT_TRUE(scan);
  // A 2-wide max pool is a reduce_window but not a scan: the loop family
  // walks its windows (window_emitter.h).
  ir::Module pool;
  ir::Builder b(pool);
  auto a = b.beginFunction("main", {f32({8, 100})}, {f32({8, 99})});
  ir::Region body = scalarCombiner(b, ElementType::F32, OpKind::Maximum);
  b.ret({b.op1(OpKind::ReduceWindow, {a[0], scalarConstant(b, f32(), 0)}, f32({8, 99}),
               {{"window_dimensions", std::vector<int64_t>{1, 2}}}, {std::move(body)})});
  b.endFunction();
  plan = fusion::planFusions(pool, *pool.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty());
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].family, Family::kLoop);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
