// Which epilogues join a library product's group (fusion/library_epilogue.h):
// relu on any float result, an f32 bias vector broadcast along the rows (and
// along the batch), and nothing that would change unfused StableHLO's
// numerics (a bf16/f16 bias, a residual, a per-batch bias, a non-zero
// threshold, gelu) or what the program reads (a dot result also returned).
#include "fusion/library_epilogue.h"

#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion_test_util.h"
#include "ir/dense_elements.h"
#include "plan_checks.h"
#include "planned_module.h"

namespace jft::fusion {
namespace {

using namespace testing;

Plan libraryPlan(const Built& built) {
  expectVerifies(built.m);
  PlanOptions options;
  options.library_route = true;
  options.matmul = MatmulRoute::kLibrary;
  Plan plan = planFusions(built.m, built.main(), ::jft::codegen::ttir::withTtir(options));
  checkPlan(built.m, built.main(), plan);
  return plan;
}

ValueId plainDot(ir::Builder& b, ValueId lhs, ValueId rhs, const Type& result,
                 bool batched = false) {
  ir::DotDimensionNumbers dn;
  if (batched) {
    dn.lhs_batching_dims = {0};
    dn.rhs_batching_dims = {0};
  }
  dn.lhs_contracting_dims = {batched ? 2 : 1};
  dn.rhs_contracting_dims = {batched ? 1 : 0};
  return b.op1(OpKind::DotGeneral, {lhs, rhs}, result, {{"dot_dimension_numbers", dn}});
}

ValueId zeros(ir::Builder& b, const Type& t) {
  return b.constant(ir::DenseElements::makeSplat(
      t, std::vector<uint8_t>(static_cast<size_t>(ir::storageBytes(t.element)), 0)));
}

Type tensor(ElementType e, std::vector<int64_t> dims) {
  return Type::tensor(e, std::move(dims));
}

// What an epilogue looks like around x [m, k] @ w [k, n] in element type e.
enum class Shape { kBiasRelu, kBias, kRelu, kReluZeroFirst, kResidual, kThreshold };

struct Dense {
  Built built;
  ValueId x, w, v, d, out;
  Dense(Shape shape, ElementType e, int64_t m = 20, int64_t k = 8, int64_t n = 24) {
    ir::Builder b(built.m);
    const Type t = tensor(e, {m, n});
    const Type extra = shape == Shape::kResidual ? t : tensor(e, {n});
    auto a = b.beginFunction("main", {tensor(e, {m, k}), tensor(e, {k, n}), extra}, {t});
    x = a[0], w = a[1], v = a[2];
    d = plainDot(b, x, w, t);
    ValueId y = d;
    if (shape == Shape::kBiasRelu || shape == Shape::kBias)
      y = b.op1(OpKind::Add, {y, broadcast(b, v, t, {1})}, t);
    if (shape == Shape::kResidual) y = b.op1(OpKind::Add, {y, v}, t);
    if (shape == Shape::kBiasRelu || shape == Shape::kRelu)
      y = b.op1(OpKind::Maximum, {y, zeros(b, t)}, t);
    if (shape == Shape::kReluZeroFirst) y = b.op1(OpKind::Maximum, {zeros(b, t), y}, t);
    if (shape == Shape::kThreshold) y = b.op1(OpKind::Maximum, {y, splat(b, t, 1.0)}, t);
    out = y;
    b.ret({out});
    b.endFunction();
  }
};

TEST(LibraryEpilogue, F32BiasAndReluJoinTheProduct) {
  Dense p(Shape::kBiasRelu, ElementType::F32);
  Plan plan = libraryPlan(p.built);
  ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
  const Fusion& g = plan.fusions[0];
  EXPECT_EQ(g.route, Route::kLibrary);
  EXPECT_EQ(g.ops.size(), 5u);  // dot, broadcast, add, constant, maximum
  EXPECT_EQ(g.inputs, (std::vector<ValueId>{p.x, p.w, p.v}));
  EXPECT_EQ(g.outputs, std::vector<ValueId>{p.out});
  std::optional<LibraryEpilogue> e =
      libraryEpilogueOf(p.built.m, p.built.main().body, g.ops);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->bias, std::optional<ValueId>(p.v));
  EXPECT_TRUE(e->relu);
  EXPECT_EQ(e->output, p.out);
  EXPECT_EQ(e->dot, opOf(p.built.main(), p.d));
}

TEST(LibraryEpilogue, F32BiasAloneJoins) {
  Dense p(Shape::kBias, ElementType::F32);
  Plan plan = libraryPlan(p.built);
  ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
  std::optional<LibraryEpilogue> e =
      libraryEpilogueOf(p.built.m, p.built.main().body, plan.fusions[0].ops);
  ASSERT_TRUE(e.has_value());
  EXPECT_FALSE(e->relu);
  EXPECT_EQ(e->bias, std::optional<ValueId>(p.v));
}

// relu commutes with rounding to bf16/f16: it joins whatever the result type.
TEST(LibraryEpilogue, ReluJoinsOnEveryFloatResult) {
  for (ElementType e : {ElementType::F32, ElementType::BF16, ElementType::F16}) {
    for (Shape shape : {Shape::kRelu, Shape::kReluZeroFirst}) {
      Dense p(shape, e);
      Plan plan = libraryPlan(p.built);
      ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
      EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
      EXPECT_EQ(plan.fusions[0].outputs, std::vector<ValueId>{p.out});
      std::optional<LibraryEpilogue> ep =
          libraryEpilogueOf(p.built.m, p.built.main().body, plan.fusions[0].ops);
      ASSERT_TRUE(ep.has_value());
      EXPECT_TRUE(ep->relu);
      EXPECT_FALSE(ep->bias.has_value());
    }
  }
}

// A bf16 or f16 bias would be added before the product's rounding to bf16:
// the dot stays alone and a loop kernel adds the bias (and the relu).
TEST(LibraryEpilogue, HalfBiasDoesNotJoin) {
  for (ElementType e : {ElementType::BF16, ElementType::F16}) {
    Dense p(Shape::kBiasRelu, e);
    Plan plan = libraryPlan(p.built);
    ASSERT_EQ(plan.fusions.size(), 2u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
    EXPECT_EQ(plan.fusions[0].ops.size(), 1u);
    EXPECT_EQ(plan.fusions[1].route, Route::kTtir);
  }
}

TEST(LibraryEpilogue, ResidualAndNonZeroThresholdDoNotJoin) {
  for (Shape shape : {Shape::kResidual, Shape::kThreshold}) {
    Dense p(shape, ElementType::F32);
    Plan plan = libraryPlan(p.built);
    ASSERT_EQ(plan.fusions.size(), 2u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].ops.size(), 1u);
  }
}

// gelu (the tanh form JAX writes) is never fused: different roundings.
TEST(LibraryEpilogue, GeluDoesNotJoin) {
  Built built;
  ir::Builder b(built.m);
  const Type t = f32({20, 24});
  auto a = b.beginFunction("main", {f32({20, 8}), f32({8, 24})}, {t});
  ValueId d = plainDot(b, a[0], a[1], t);
  ValueId th = b.op1(OpKind::Tanh, {d}, t);
  ValueId one = b.op1(OpKind::Add, {th, splat(b, t, 1.0)}, t);
  ValueId half = b.op1(OpKind::Multiply, {d, splat(b, t, 0.5)}, t);
  b.ret({b.op1(OpKind::Multiply, {half, one}, t)});
  b.endFunction();
  Plan plan = libraryPlan(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].ops.size(), 1u);
}

// The dot's result also returned: the library must write it, so no fusion.
TEST(LibraryEpilogue, ReturnedProductDoesNotJoin) {
  Built built;
  ir::Builder b(built.m);
  const Type t = f32({20, 24});
  auto a = b.beginFunction("main", {f32({20, 8}), f32({8, 24})}, {t, t});
  ValueId d = plainDot(b, a[0], a[1], t);
  b.ret({d, b.op1(OpKind::Maximum, {d, zeros(b, t)}, t)});
  b.endFunction();
  Plan plan = libraryPlan(built);
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].ops.size(), 1u);
}

// Batched [3, 20, 24]: a bias [24] (the same for every batch item, cuBLASLt's
// bias batch stride 0) joins; a bias [3, 24] (one per batch item) does not.
TEST(LibraryEpilogue, BatchedBiasJoinsOnlyWhenSharedByEveryItem) {
  for (bool per_item : {false, true}) {
    Built built;
    ir::Builder b(built.m);
    const Type t = f32({3, 20, 24});
    const Type bias = per_item ? f32({3, 24}) : f32({24});
    auto a = b.beginFunction("main", {f32({3, 20, 8}), f32({3, 8, 24}), bias}, {t});
    ValueId d = plainDot(b, a[0], a[1], t, true);
    ValueId bb = broadcast(
        b, a[2], t, per_item ? std::vector<int64_t>{0, 2} : std::vector<int64_t>{2});
    b.ret({b.op1(OpKind::Maximum, {b.op1(OpKind::Add, {d, bb}, t), zeros(b, t)}, t)});
    b.endFunction();
    Plan plan = libraryPlan(built);
    ASSERT_EQ(plan.fusions.size(), per_item ? 2u : 1u) << built.text(plan);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  }
}

// JAX's order: the zero (a broadcast scalar) and the bias broadcast written
// before the dot. Both still join (the broadcast is taken along).
TEST(LibraryEpilogue, BroadcastsBeforeTheDotJoin) {
  Built built;
  ir::Builder b(built.m);
  const Type t = f32({20, 24});
  auto a = b.beginFunction("main", {f32({20, 8}), f32({8, 24}), f32({24})}, {t});
  ValueId zero = broadcast(b, zeros(b, f32()), t, {});
  ValueId bias = broadcast(b, a[2], t, {1});
  ValueId d = plainDot(b, a[0], a[1], t);
  ValueId out = b.op1(OpKind::Maximum, {b.op1(OpKind::Add, {d, bias}, t), zero}, t);
  b.ret({out});
  b.endFunction();
  Plan plan = libraryPlan(built);
  const Fusion* library = nullptr;
  for (const Fusion& g : plan.fusions) {
    EXPECT_NE(g.route, Route::kTtir) << built.text(plan);
    if (g.route == Route::kLibrary) library = &g;
  }
  ASSERT_NE(library, nullptr) << built.text(plan);
  EXPECT_EQ(library->outputs, std::vector<ValueId>{out});
  std::optional<LibraryEpilogue> e =
      libraryEpilogueOf(built.m, built.main().body, library->ops);
  ASSERT_TRUE(e.has_value()) << built.text(plan);
  EXPECT_TRUE(e->relu);
  EXPECT_EQ(e->bias, std::optional<ValueId>(a[2]));
}

}  // namespace
}  // namespace jft::fusion
