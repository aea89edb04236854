// Kernels of groups the planner gave extra outputs (multi-output fusion):
// each output is stored once, through its own pointer parameter, by the loop,
// reduction and matmul families alike.
#include <gtest/gtest.h>

#include <string>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "fusion/fusion.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

// Every TTIR group of the plan emits; a group with n outputs stores n times
// (real f32 outputs: one store each), each through %out<k>. Returns the
// kernels of the group of `family`, which must have `outputs` outputs.
std::string checkPlanKernels(const ir::Module& m, const fusion::Plan& plan, Family family,
                             size_t outputs) {
  std::string found;
  for (const fusion::Fusion& group : plan.fusions) {
    if (group.route != fusion::Route::kTtir) continue;
    StatusOr<std::vector<TtirKernel>> kernels = emitKernels(m, *m.entry(), group);
    EXPECT_TRUE(kernels.isOk()) << group.name << ": " << kernels.status().toString();
    if (!kernels.isOk()) continue;
    EXPECT_EQ(kernels->size(), 1u) << group.name;
    for (const TtirKernel& k : *kernels) {
      const Status syntax = checkTtirSyntax(k.ttir);
      EXPECT_TRUE(syntax.isOk()) << syntax.toString() << "\n" << k.ttir;
      EXPECT_EQ(count(k.ttir, "tt.store "), static_cast<int>(group.outputs.size()))
          << k.ttir;
      for (size_t o = 0; o < group.outputs.size(); ++o)
        EXPECT_NE(k.ttir.find("tt.splat %out" + std::to_string(o) + " "),
                  std::string::npos)
            << "output " << o << " of " << group.name << " never stored:\n"
            << k.ttir;
      if (group.family == family) {
        EXPECT_EQ(group.outputs.size(), outputs) << group.name;
        found = k.ttir;
      }
    }
  }
  EXPECT_FALSE(found.empty()) << "no group of the family";
  return found;
}

// e = exp(x) is read by y = 2e (returned) and by a row sum: the loop kernel
// of y stores e too.
TEST(EmitMultiOutput, LoopKernelStoresTheSharedIntermediate) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("main", {f32({16, 32})}, {f32({16, 32}), f32({16})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({16, 32}));
  ValueId two =
      b.constant(ir::denseFromValues(f32({16, 32}), std::vector<double>(16 * 32, 2.0)));
  ValueId y = b.op1(OpKind::Multiply, {e, two}, f32({16, 32}));
  ValueId zero = scalarConstant(b, f32(), 0);
  auto args = b.beginRegion({f32(), f32()});
  b.ret({b.op1(OpKind::Add, {args[0], args[1]}, f32())});
  ir::Region body = b.endRegion();
  ValueId r = b.op1(OpKind::Reduce, {e, zero}, f32({16}),
                    {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
  b.ret({y, r});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.fusions.size(), 2u) << fusion::describePlan(m, *m.entry(), plan);
  const std::string loop = checkPlanKernels(m, plan, Family::kLoop, 2);
  EXPECT_EQ(count(loop, "tt.extern_elementwise"), 1);  // exp, computed once
  EXPECT_EQ(count(loop, "tt.load "), 1);               // x, once for both outputs
}

// Layer norm whose centred input is also transposed: the reduction kernel
// stores the centred rows (shape F) and the result.
TEST(EmitMultiOutput, ReductionKernelStoresAFullShapeValue) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({8, 64}), kept = f32({8});
  auto x = b.beginFunction("main", {full}, {full, f32({64, 8})});
  auto sum = [&](ValueId v) {
    ValueId zero = scalarConstant(b, f32(), 0);
    auto args = b.beginRegion({f32(), f32()});
    b.ret({b.op1(OpKind::Add, {args[0], args[1]}, f32())});
    ir::Region body = b.endRegion();
    return b.op1(OpKind::Reduce, {v, zero}, kept,
                 {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
  };
  auto wide = [&](ValueId v) {
    return b.op1(OpKind::BroadcastInDim, {v}, full,
                 {{"broadcast_dimensions", std::vector<int64_t>{0}}});
  };
  ValueId n = b.constant(ir::denseFromValues(kept, std::vector<double>(8, 64.0)));
  ValueId mean = b.op1(OpKind::Divide, {sum(x[0]), n}, kept);
  ValueId xc = b.op1(OpKind::Subtract, {x[0], wide(mean)}, full);
  ValueId var =
      b.op1(OpKind::Divide, {sum(b.op1(OpKind::Multiply, {xc, xc}, full)), n}, kept);
  ValueId y =
      b.op1(OpKind::Multiply, {xc, wide(b.op1(OpKind::Rsqrt, {var}, kept))}, full);
  ValueId t = b.op1(OpKind::Transpose, {xc}, f32({64, 8}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({y, t});
  b.endFunction();
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.fusions.size(), 2u) << fusion::describePlan(m, *m.entry(), plan);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{xc, y}));
  const std::string norm = checkPlanKernels(m, plan, Family::kReduction, 2);
  EXPECT_EQ(count(norm, "\"tt.reduce\""), 2);
  EXPECT_EQ(count(norm, "tt.load "), 1);  // x, once
}

// A dot's epilogue value read by the epilogue (tanh) and by a transpose: the
// matmul kernel stores it beside its result.
TEST(EmitMultiOutput, MatmulEpilogueStoresAnIntermediate) {
  ir::Module m;
  ir::Builder b(m);
  const Type out = f32({64, 64});
  auto a = b.beginFunction("main", {f32({64, 32}), f32({32, 64}), f32({64})}, {out, out});
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  ValueId d =
      b.op1(OpKind::DotGeneral, {a[0], a[1]}, out, {{"dot_dimension_numbers", dn}});
  ValueId bias = b.op1(OpKind::BroadcastInDim, {a[2]}, out,
                       {{"broadcast_dimensions", std::vector<int64_t>{1}}});
  ValueId z = b.op1(OpKind::Add, {d, bias}, out);
  ValueId y = b.op1(OpKind::Tanh, {z}, out);
  ValueId t =
      b.op1(OpKind::Transpose, {z}, out, {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({y, t});
  b.endFunction();
  fusion::PlanOptions options;
  options.library_route = true;
  options.matmul = fusion::MatmulRoute::kTtir;
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir(options));
  ASSERT_EQ(plan.fusions.size(), 2u) << fusion::describePlan(m, *m.entry(), plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{z, y}));
  const std::string mm = checkPlanKernels(m, plan, Family::kMatmul, 2);
  EXPECT_EQ(count(mm, "tt.dot"), 1);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
