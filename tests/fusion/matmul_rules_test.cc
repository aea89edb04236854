// The matmul family in the planner: a dot with its elementwise epilogue and
// operand converts is one group; XLA_FLAGTREE_MATMUL's three settings; the
// cost model; and the index maps an operand is read through.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion/matmul_form.h"
#include "fusion_test_util.h"
#include "ir/dense_elements.h"
#include "plan_checks.h"
#include "planned_module.h"

namespace jft::fusion {
namespace {

using namespace testing;

PlanOptions withMatmul(MatmulRoute route) {
  PlanOptions options;
  options.library_route = true;
  options.matmul = route;
  return options;
}

ir::DotDimensionNumbers plainNumbers() {
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  return dn;
}

ValueId dot(ir::Builder& b, ValueId lhs, ValueId rhs, const Type& result,
            const ir::DotDimensionNumbers& dn = plainNumbers(), bool highest = false) {
  ir::NamedAttrs attrs{{"dot_dimension_numbers", dn}};
  if (highest)
    attrs.emplace_back(
        "precision_config",
        std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGHEST});
  return b.op1(OpKind::DotGeneral, {lhs, rhs}, result, attrs);
}

// relu(x @ w + bias) with x [m, k], w [k, n], bias [n].
struct DenseRelu {
  Built built;
  ValueId x, w, bias, d, sum, out;
  DenseRelu(int64_t m, int64_t k, int64_t n, bool highest = false,
            ElementType e = ElementType::F32) {
    ir::Builder b(built.m);
    const Type t = Type::tensor(e, {m, n});
    auto a = b.beginFunction(
        "main", {Type::tensor(e, {m, k}), Type::tensor(e, {k, n}), Type::tensor(e, {n})},
        {t});
    x = a[0], w = a[1], bias = a[2];
    d = dot(b, x, w, t, plainNumbers(), highest);
    sum = b.op1(OpKind::Add, {d, broadcast(b, bias, t, {1})}, t);
    const ValueId zero = b.constant(ir::DenseElements::makeSplat(
        t, std::vector<uint8_t>(static_cast<size_t>(ir::storageBytes(e)), 0)));
    out = b.op1(OpKind::Maximum, {sum, zero}, t);
    b.ret({out});
    b.endFunction();
  }
};

TEST(MatmulRules, DotBiasReluIsOneGroup) {
  DenseRelu p(50, 30, 70);
  Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kTtir));
  ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
  const Fusion& g = plan.fusions[0];
  EXPECT_EQ(g.route, Route::kTtir);
  EXPECT_EQ(g.family, Family::kMatmul);
  EXPECT_EQ(g.ops.size(), 5u);  // dot, broadcast, add, constant, maximum
  EXPECT_EQ(g.inputs, (std::vector<ValueId>{p.x, p.w, p.bias}));
  EXPECT_EQ(g.outputs, std::vector<ValueId>{p.out});
  EXPECT_EQ(g.name.rfind("fusion_0_matmul_dot_general", 0), 0u) << g.name;
}

// library: the dot on cuBLASLt and, where the library cannot fuse it (a
// bf16 bias: library_epilogue_test.cc), the epilogue a loop kernel reading
// its result.
TEST(MatmulRules, LibrarySettingKeepsEveryDotOnTheLibrary) {
  DenseRelu p(50, 30, 70, false, ElementType::BF16);
  Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kLibrary));
  ASSERT_EQ(plan.fusions.size(), 2u) << p.built.text(plan);
  EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  EXPECT_EQ(plan.fusions[1].family, Family::kLoop);
  EXPECT_EQ(plan.fusions[1].inputs,
            (std::vector<ValueId>{p.bias, p.d}));  // first use first
  // Without a library route, `library` leaves the dot unsupported as before.
  PlanOptions none;
  none.matmul = MatmulRoute::kLibrary;
  Plan unrouted = planAndCheck(p.built, none);
  ASSERT_EQ(unrouted.unsupported.size(), 1u);
  EXPECT_EQ(unrouted.unsupported[0].reason, "no library route for dot_general yet");
}

// auto: small products and fused epilogues on TTIR (f32 as 16-bit: the
// kernel rounds f32 tiles to TF32 to nearest), the rest on the library.
TEST(MatmulRules, AutoCostModel) {
  const ElementType bf16 = ElementType::BF16;
  {  // 50 * 30 * 70 <= 2^24: small, TTIR with its epilogue.
    DenseRelu p(50, 30, 70, false, bf16);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  }
  {  // The same in f32 (tf32 tiles rounded to nearest): TTIR too.
    DenseRelu p(50, 30, 70);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  }
  {  // f32 1024^3 with an epilogue, DEFAULT precision: TTIR like bf16.
    DenseRelu p(1024, 1024, 1024);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  }
  {  // Small f32 under HIGHEST: small work is launch-bound, TTIR.
    DenseRelu p(50, 30, 70, true);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  }
  {  // 1024^3 = 2^30 with an epilogue, bf16: TTIR.
    DenseRelu p(1024, 1024, 1024, false, bf16);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  }
  {  // A long K (4096 > 1024): the product dominates; the library.
    DenseRelu p(256, 4096, 256, false, bf16);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 2u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  }
  {  // The same under HIGHEST (f32 on FMA units): the library, which fuses
     // the f32 bias and relu itself.
    DenseRelu p(1024, 1024, 1024, true);
    Plan plan = planAndCheck(p.built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u) << p.built.text(plan);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  }
  {  // A large dot without an epilogue: the library.
    Built built;
    ir::Builder b(built.m);
    auto a = b.beginFunction("main", {f32({1024, 1024}), f32({1024, 1024})},
                             {f32({1024, 1024})});
    b.ret({dot(b, a[0], a[1], f32({1024, 1024}))});
    b.endFunction();
    Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kAuto));
    ASSERT_EQ(plan.fusions.size(), 1u);
    EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
    // ttir takes it all the same, as a group of its own.
    Plan ttir = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
    EXPECT_EQ(ttir.fusions[0].route, Route::kTtir);
    EXPECT_EQ(ttir.fusions[0].family, Family::kMatmul);
  }
}

// d is also read by a reduce: the dot is a group of its own writing d, read
// by the bias add's loop group and by the reduction.
TEST(MatmulRules, DotReadElsewhereStaysApart) {
  Built built;
  ir::Builder b(built.m);
  const Type t = f32({20, 24});
  auto a =
      b.beginFunction("main", {f32({20, 8}), f32({8, 24}), f32({24})}, {t, f32({20})});
  ValueId d = dot(b, a[0], a[1], t);
  ValueId biased = b.op1(OpKind::Add, {d, broadcast(b, a[2], t, {1})}, t);
  ValueId rows = reduce(b, d, splat(b, f32(), 0.0), {1}, f32({20}));
  b.ret({biased, rows});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  const int g = groupOf(plan, opOf(built.main(), d));
  ASSERT_GE(g, 0) << built.text(plan);
  EXPECT_EQ(plan.fusions[g].family, Family::kMatmul);
  EXPECT_EQ(plan.fusions[g].ops.size(), 1u);
  EXPECT_EQ(plan.fusions[g].outputs, std::vector<ValueId>{d});
  EXPECT_NE(groupOf(plan, opOf(built.main(), biased)), g);
  EXPECT_NE(groupOf(plan, opOf(built.main(), rows)), g);
}

// A returned dot result joins its epilogue's group as a second output (both
// have the dot's shape).
TEST(MatmulRules, ReturnedDotIsAnOutputOfItsGroup) {
  Built built;
  ir::Builder b(built.m);
  const Type t = f32({16, 16});
  auto a = b.beginFunction("main", {f32({16, 16}), f32({16, 16})}, {t, t});
  ValueId d = dot(b, a[0], a[1], t);
  ValueId r = b.op1(OpKind::Tanh, {d}, t);
  b.ret({d, r});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  ASSERT_EQ(plan.fusions.size(), 1u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].outputs, (std::vector<ValueId>{d, r}));
}

// Epilogues that re-index the dot's result (a transpose) or reduce it do not
// fuse; the dot stays alone.
TEST(MatmulRules, ReindexingConsumerDoesNotFuse) {
  Built built;
  ir::Builder b(built.m);
  auto a = b.beginFunction("main", {f32({8, 4}), f32({4, 16})}, {f32({16, 8})});
  ValueId d = dot(b, a[0], a[1], f32({8, 16}));
  ValueId e = b.op1(OpKind::Exponential, {d}, f32({8, 16}));
  ValueId t = b.op1(OpKind::Transpose, {e}, f32({16, 8}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  b.ret({t});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  const int g = groupOf(plan, opOf(built.main(), d));
  ASSERT_GE(g, 0);
  EXPECT_EQ(plan.fusions[g].ops.size(), 1u) << built.text(plan);
  EXPECT_EQ(plan.fusions[g].family, Family::kMatmul);
}

// A convert feeding the dot (f32 -> bf16) becomes part of the group: the
// kernel reads the f32 input and converts the loaded tile.
TEST(MatmulRules, OperandConvertJoins) {
  Built built;
  ir::Builder b(built.m);
  const Type bf = Type::tensor(ElementType::BF16, {32, 16});
  auto a = b.beginFunction(
      "main", {f32({32, 16}), Type::tensor(ElementType::BF16, {16, 8})}, {f32({32, 8})});
  ValueId c = b.op1(OpKind::Convert, {a[0]}, bf);
  ValueId d = dot(b, c, a[1], f32({32, 8}));
  b.ret({b.op1(OpKind::Negate, {d}, f32({32, 8}))});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  ASSERT_EQ(plan.fusions.size(), 1u) << built.text(plan);
  EXPECT_EQ(plan.fusions[0].family, Family::kMatmul);
  EXPECT_EQ(plan.fusions[0].inputs, (std::vector<ValueId>{a[0], a[1]}));
}

// An operand convert whose value is also returned: the matmul group holds a
// copy applied to its loaded tiles; the returned value comes from a group of
// its own (the matmul kernel stores only values of the dot's shape).
TEST(MatmulRules, ReturnedOperandConvertIsComputedApart) {
  Built built;
  ir::Builder b(built.m);
  const Type bf = Type::tensor(ElementType::BF16, {32, 32});
  auto a = b.beginFunction("main", {f32({32, 32}), bf}, {bf, f32({32, 32})});
  ValueId c = b.op1(OpKind::Convert, {a[0]}, bf);
  ValueId d = dot(b, c, a[1], f32({32, 32}));
  b.ret({c, d});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  const int g = groupOf(plan, opOf(built.main(), d));
  ASSERT_GE(g, 0) << built.text(plan);
  EXPECT_EQ(plan.fusions[g].inputs, (std::vector<ValueId>{a[0], a[1]}));
  EXPECT_EQ(plan.fusions[g].outputs, std::vector<ValueId>{d});
  EXPECT_EQ(groupsOf(plan, opOf(built.main(), c)).size(), 2u);
}

// A dot operand computed by anything but a convert (here exp) is written by
// its own kernel and read by the matmul group.
TEST(MatmulRules, OtherOperandProducersStayApart) {
  Built built;
  ir::Builder b(built.m);
  auto a = b.beginFunction("main", {f32({16, 16}), f32({16, 16})}, {f32({16, 16})});
  ValueId e = b.op1(OpKind::Exponential, {a[0]}, f32({16, 16}));
  ValueId d = dot(b, e, a[1], f32({16, 16}));
  b.ret({d});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  ASSERT_EQ(plan.fusions.size(), 2u) << built.text(plan);
  EXPECT_EQ(plan.fusions[1].family, Family::kMatmul);
  EXPECT_EQ(plan.fusions[1].inputs, (std::vector<ValueId>{e, a[1]}));
}

// Types the family does not take stay on the library even under ttir.
TEST(MatmulRules, F64AndMixedTypesStayOnTheLibrary) {
  Built built;
  ir::Builder b(built.m);
  const Type f64 = Type::tensor(ElementType::F64, {8, 8});
  auto a = b.beginFunction("main", {f64, f64}, {f64});
  b.ret({dot(b, a[0], a[1], f64)});
  b.endFunction();
  Plan plan = planAndCheck(built, withMatmul(MatmulRoute::kTtir));
  EXPECT_EQ(plan.fusions[0].route, Route::kLibrary);
  std::string why;
  EXPECT_FALSE(matmulFormOf(built.m, built.main().body.ops[0], &why));
  EXPECT_NE(why.find("f64 x f64"), std::string::npos) << why;
}

// Index maps, worked by hand from row-major strides.
TEST(MatmulForm, IndexMaps) {
  // [4, 6, 5]: strides 30, 5, 1.
  const std::vector<int64_t> shape{4, 6, 5};
  auto eq = [](const IndexMap& map, std::vector<std::pair<int64_t, int64_t>> want) {
    ASSERT_EQ(map.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(map[i].extent, want[i].first) << i;
      EXPECT_EQ(map[i].stride, want[i].second) << i;
    }
  };
  eq(indexMapOf(shape, {1, 2}), {{30, 1}});          // contiguous: one run
  eq(indexMapOf(shape, {0, 2}), {{4, 30}, {5, 1}});  // dim 1 between them
  eq(indexMapOf(shape, {2, 1}), {{5, 1}, {6, 5}});   // transposed order
  eq(indexMapOf(shape, {0}), {{4, 30}});
  eq(indexMapOf({1, 7, 1}, {0, 1, 2}), {{7, 1}});  // unit dims take no place
  eq(indexMapOf(shape, {}), {});
}

// The form of a batched transposed product: lhs [b, k, m], rhs [b, n, k].
TEST(MatmulForm, BatchedTransposedOperands) {
  Built built;
  ir::Builder b(built.m);
  ir::DotDimensionNumbers dn;
  dn.lhs_batching_dims = {0};
  dn.rhs_batching_dims = {0};
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {2};
  auto a =
      b.beginFunction("main", {f32({3, 40, 20}), f32({3, 24, 40})}, {f32({3, 20, 24})});
  b.ret({dot(b, a[0], a[1], f32({3, 20, 24}), dn, true)});
  b.endFunction();
  std::optional<MatmulForm> form = matmulFormOf(built.m, built.main().body.ops[0]);
  ASSERT_TRUE(form);
  EXPECT_EQ(form->batch, 3);
  EXPECT_EQ(form->m, 20);
  EXPECT_EQ(form->n, 24);
  EXPECT_EQ(form->k, 40);
  EXPECT_EQ(form->lhs_batch[0].stride, 800);
  EXPECT_EQ(form->lhs_m[0].stride, 1);
  EXPECT_EQ(form->lhs_k[0].stride, 20);
  EXPECT_EQ(form->rhs_batch[0].stride, 960);
  EXPECT_EQ(form->rhs_k[0].stride, 1);
  EXPECT_EQ(form->rhs_n[0].stride, 40);
  EXPECT_EQ(form->input_precision, "ieee");
}

// f32 under DEFAULT precision: TF32 tiles, but for the products XLA computes
// exactly (tiny ones, and one with a vector side: a quaternion composition,
// a matrix-vector product), which keep f32.
TEST(MatmulForm, SmallAndVectorProductsAreIeee) {
  struct Row {
    std::vector<int64_t> lhs, rhs, out;
    const char* precision;
  };
  const Row rows[] = {{{4, 4}, {4, 4}, {4, 4}, "ieee"},
                      {{64, 64}, {64, 64}, {64, 64}, "tf32"},
                      {{1, 512}, {512, 256}, {1, 256}, "ieee"},
                      {{256, 512}, {512, 1}, {256, 1}, "ieee"}};
  for (const Row& row : rows) {
    Built built;
    ir::Builder b(built.m);
    auto a = b.beginFunction("main", {f32(row.lhs), f32(row.rhs)}, {f32(row.out)});
    b.ret({dot(b, a[0], a[1], f32(row.out))});
    b.endFunction();
    std::optional<MatmulForm> form = matmulFormOf(built.m, built.main().body.ops[0]);
    ASSERT_TRUE(form);
    EXPECT_EQ(form->input_precision, row.precision) << form->m << "x" << form->n;
  }
  EXPECT_TRUE(xlaComputesExactly(1, 1, 1 << 30));  // two vectors: any length
  EXPECT_FALSE(xlaComputesExactly(1, 10000, 1000));
}

TEST(MatmulForm, RouteNames) {
  EXPECT_STREQ(matmulRouteName(MatmulRoute::kAuto), "auto");
  EXPECT_STREQ(matmulRouteName(MatmulRoute::kLibrary), "library");
  EXPECT_STREQ(matmulRouteName(MatmulRoute::kTtir), "ttir");
  EXPECT_STREQ(familyName(Family::kMatmul), "matmul");
}

}  // namespace
}  // namespace jft::fusion
