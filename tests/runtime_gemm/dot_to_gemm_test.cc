// dot_general -> GemmDesc on hand-built dots and on the zoo programs' dots;
// every expected m, n, k, batch, transpose, leading dimension and stride was
// worked out by hand from the row-major shapes.
#include "codegen/library/dot_to_gemm.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "frontend/vhlo/import.h"
#include "ir/builder.h"
#include "ir/verifier.h"

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using runtime::GemmCompute;
using runtime::GemmType;
using Dims = std::vector<int64_t>;

ir::Type t(ElementType e, Dims dims) {
  return ir::Type::tensor(e, std::move(dims));
}

struct Dot {
  ir::Type lhs, rhs, result;
  ir::DotDimensionNumbers dn;
  ir::NamedAttrs extra = {};
};

StatusOr<DotGemmPlan> plan(const Dot& dot) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {dot.lhs, dot.rhs}, {dot.result});
  ir::NamedAttrs attrs = {{"dot_dimension_numbers", dot.dn}};
  attrs.insert(attrs.end(), dot.extra.begin(), dot.extra.end());
  ir::ValueId r = b.op1(ir::OpKind::DotGeneral, {args[0], args[1]}, dot.result, attrs);
  b.ret({r});
  b.endFunction();
  // The hand-written shapes must be a valid dot before they test anything.
  Status verified = ir::verifyModule(m);
  if (!verified.isOk()) return verified;
  return planDotAsGemm(m, m.functions[0].body.ops[0]);
}

ir::DotDimensionNumbers dims(Dims lb, Dims rb, Dims lc, Dims rc) {
  return {std::move(lb), std::move(rb), std::move(lc), std::move(rc)};
}

ir::NamedAttrs precision(ir::Precision p) {
  return {{"precision_config", std::vector<ir::Precision>{p, ir::Precision::DEFAULT}}};
}

// The expected shape of the product, one operand at a time.
struct Side {
  bool transpose;
  int64_t ld, stride;
};

void expectGemm(const DotGemmPlan& p, int64_t batch, int64_t m, int64_t n, int64_t k,
                Side a, Side b) {
  const runtime::GemmDesc& g = p.gemm;
  EXPECT_EQ(g.batch, batch);
  EXPECT_EQ(g.m, m);
  EXPECT_EQ(g.n, n);
  EXPECT_EQ(g.k, k);
  EXPECT_EQ(g.a.transpose, a.transpose);
  EXPECT_EQ(g.a.ld, a.ld);
  EXPECT_EQ(g.a.batch_stride, a.stride);
  EXPECT_EQ(g.b.transpose, b.transpose);
  EXPECT_EQ(g.b.ld, b.ld);
  EXPECT_EQ(g.b.batch_stride, b.stride);
  EXPECT_EQ(g.d_ld, n);
  EXPECT_EQ(g.d_batch_stride, m * n);
  EXPECT_EQ(g.alpha, 1);
  EXPECT_EQ(g.beta, 0);
  EXPECT_FALSE(g.bias);
  EXPECT_TRUE(runtime::validateGemm(g).isOk()) << runtime::gemmText(g);
}

#define ASSERT_PLAN(var, dot)                                   \
  StatusOr<DotGemmPlan> var##_or = plan(dot);                   \
  ASSERT_TRUE(var##_or.isOk()) << var##_or.status().toString(); \
  const DotGemmPlan& var = var##_or.value()

TEST(DotToGemm, PlainMatmulTakesTf32ByDefault) {
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {16, 64}), t(ElementType::F32, {64, 256}),
                      t(ElementType::F32, {16, 256}), dims({}, {}, {1}, {0}),
                      precision(ir::Precision::DEFAULT)}));
  expectGemm(p, 1, 16, 256, 64, {false, 64, 16 * 64}, {false, 256, 64 * 256});
  EXPECT_EQ(p.gemm.compute, GemmCompute::kTf32);
  EXPECT_EQ(p.gemm.a.type, GemmType::kF32);
  EXPECT_EQ(p.gemm.d_type, GemmType::kF32);
  EXPECT_TRUE(p.lhs_permutation.empty());
  EXPECT_TRUE(p.rhs_permutation.empty());
}

TEST(DotToGemm, PrecisionHighestIsExactF32AndHighIsNot) {
  Dot dot{t(ElementType::F32, {16, 8}), t(ElementType::F32, {8, 16}),
          t(ElementType::F32, {16, 16}), dims({}, {}, {1}, {0}),
          precision(ir::Precision::HIGHEST)};
  ASSERT_PLAN(highest, dot);
  EXPECT_EQ(highest.gemm.compute, GemmCompute::kF32);
  dot.extra = {{"precision_config", std::vector<ir::Precision>{ir::Precision::DEFAULT,
                                                               ir::Precision::HIGHEST}}};
  ASSERT_PLAN(rhsHighest, dot);
  EXPECT_EQ(rhsHighest.gemm.compute, GemmCompute::kF32);
  dot.extra = precision(ir::Precision::HIGH);
  ASSERT_PLAN(high, dot);
  EXPECT_EQ(high.gemm.compute, GemmCompute::kTf32);
  dot.extra = {};
  ASSERT_PLAN(none, dot);
  EXPECT_EQ(none.gemm.compute, GemmCompute::kTf32);
}

// What XLA's GPU compiler computes without TF32 under DEFAULT precision: a
// tiny product ((m + n) k < 100) or one with a vector side ((m + n) k < 10^7,
// any size when both sides are vectors).
TEST(DotToGemm, SmallAndVectorF32ProductsAreExact) {
  struct Row {
    std::vector<int64_t> lhs, rhs, out;
    GemmCompute compute;
  };
  const Row rows[] = {
      {{4, 8}, {8, 4}, {4, 4}, GemmCompute::kF32},               // (4 + 4) 8 = 64
      {{16, 8}, {8, 16}, {16, 16}, GemmCompute::kTf32},          // (16 + 16) 8 = 256
      {{1, 4096}, {4096, 512}, {1, 512}, GemmCompute::kF32},     // a vector side
      {{4096, 4096}, {4096, 1}, {4096, 1}, GemmCompute::kTf32},  // vector, >= 10^7
  };
  for (const Row& row : rows) {
    ASSERT_PLAN(p, (Dot{t(ElementType::F32, row.lhs), t(ElementType::F32, row.rhs),
                        t(ElementType::F32, row.out), dims({}, {}, {1}, {0})}));
    EXPECT_EQ(p.gemm.compute, row.compute)
        << p.gemm.m << "x" << p.gemm.n << "x" << p.gemm.k;
  }
  // Complex products keep the library's TF32 (XLA's exact emitters are real).
  ASSERT_PLAN(c, (Dot{t(ElementType::C64, {4, 8}), t(ElementType::C64, {8, 4}),
                      t(ElementType::C64, {4, 4}), dims({}, {}, {1}, {0})}));
  EXPECT_EQ(c.gemm.compute, GemmCompute::kTf32);
}

TEST(DotToGemm, ContractingLhsMajorDimIsATransposedA) {
  // [k=16, m=8] x [16, 64]: A stored k x m.
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {16, 8}), t(ElementType::F32, {16, 64}),
                      t(ElementType::F32, {8, 64}), dims({}, {}, {0}, {0})}));
  expectGemm(p, 1, 8, 64, 16, {true, 8, 128}, {false, 64, 1024});
}

TEST(DotToGemm, ContractingRhsMinorDimIsATransposedB) {
  // [16, 8] x [n=64, k=8]: B stored n x k.
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {16, 8}), t(ElementType::F32, {64, 8}),
                      t(ElementType::F32, {16, 64}), dims({}, {}, {1}, {1})}));
  expectGemm(p, 1, 16, 64, 8, {false, 8, 128}, {true, 8, 512});
}

TEST(DotToGemm, LeadingBatchDims) {
  ASSERT_PLAN(
      p, (Dot{t(ElementType::F32, {2, 4, 64, 32}), t(ElementType::F32, {2, 4, 64, 32}),
              t(ElementType::F32, {2, 4, 64, 64}), dims({0, 1}, {0, 1}, {3}, {3})}));
  expectGemm(p, 8, 64, 64, 32, {false, 32, 2048}, {true, 32, 2048});
}

TEST(DotToGemm, BatchDimBetweenRowsAndColumnsIsReadThroughStrides) {
  // lhs [m=5, b=3, k=7]: a row of A is 3*7 elements apart, items 7 apart.
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {5, 3, 7}), t(ElementType::F32, {3, 7, 4}),
                      t(ElementType::F32, {3, 5, 4}), dims({1}, {0}, {2}, {1})}));
  expectGemm(p, 3, 5, 4, 7, {false, 21, 7}, {false, 4, 28});
  EXPECT_TRUE(p.lhs_permutation.empty());
}

TEST(DotToGemm, FreeDimsFlattenIntoM) {
  // [2, 32, 64] x [64, 192]: m = 2*32.
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {2, 32, 64}), t(ElementType::F32, {64, 192}),
                      t(ElementType::F32, {2, 32, 192}), dims({}, {}, {2}, {0})}));
  expectGemm(p, 1, 64, 192, 64, {false, 64, 4096}, {false, 192, 64 * 192});
}

TEST(DotToGemm, SeveralContractingDimsFlattenIntoK) {
  // lhs [m=2, k1=3, k2=4], rhs [k1=3, k2=4, n=5].
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {2, 3, 4}), t(ElementType::F32, {3, 4, 5}),
                      t(ElementType::F32, {2, 5}), dims({}, {}, {1, 2}, {0, 1})}));
  expectGemm(p, 1, 2, 5, 12, {false, 12, 24}, {false, 5, 60});
  EXPECT_TRUE(p.lhs_permutation.empty());
  EXPECT_TRUE(p.rhs_permutation.empty());
}

TEST(DotToGemm, SplitContractingDimsNeedATranspose) {
  // lhs [k1=3, m=5, k2=4]: k1 and k2 are not adjacent; rhs [3, 4, n=6] reads
  // as is, so only the lhs is permuted, to [m, k1, k2].
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {3, 5, 4}), t(ElementType::F32, {3, 4, 6}),
                      t(ElementType::F32, {5, 6}), dims({}, {}, {0, 2}, {0, 1})}));
  EXPECT_EQ(p.lhs_permutation, (Dims{1, 0, 2}));
  EXPECT_TRUE(p.rhs_permutation.empty());
  expectGemm(p, 1, 5, 6, 12, {false, 12, 60}, {false, 6, 72});
}

TEST(DotToGemm, ContractingOrderIsSharedByBothOperands) {
  // Pairs: (lhs 1, rhs 1) of 3 and (lhs 2, rhs 0) of 4. The lhs holds them
  // as (k1, k2), the rhs [k2=4, k1=3, n=5] as (k2, k1): one of the two must
  // move; the lhs order comes first, so the rhs becomes [k1, k2, n].
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {2, 3, 4}), t(ElementType::F32, {4, 3, 5}),
                      t(ElementType::F32, {2, 5}), dims({}, {}, {1, 2}, {1, 0})}));
  EXPECT_TRUE(p.lhs_permutation.empty());
  EXPECT_EQ(p.rhs_permutation, (Dims{1, 0, 2}));
  expectGemm(p, 1, 2, 5, 12, {false, 12, 24}, {false, 5, 60});
}

TEST(DotToGemm, InnermostBatchDimNeedsATranspose) {
  // lhs [m=3, k=4, b=2]: neither m nor k is innermost -> [b, m, k].
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {3, 4, 2}), t(ElementType::F32, {2, 4, 5}),
                      t(ElementType::F32, {2, 3, 5}), dims({2}, {0}, {1}, {1})}));
  EXPECT_EQ(p.lhs_permutation, (Dims{2, 0, 1}));
  EXPECT_TRUE(p.rhs_permutation.empty());
  expectGemm(p, 2, 3, 5, 4, {false, 4, 12}, {false, 5, 20});
}

TEST(DotToGemm, BatchOrderMustFollowTheResult) {
  // lhs [b1=2, b0=3, m=4, k=5] with batching dims (1, 0): the result's batch
  // order (b0, b1) is not the lhs memory order, so the lhs is permuted.
  ASSERT_PLAN(p,
              (Dot{t(ElementType::F32, {2, 3, 4, 5}), t(ElementType::F32, {3, 2, 5, 6}),
                   t(ElementType::F32, {3, 2, 4, 6}), dims({1, 0}, {0, 1}, {3}, {2})}));
  EXPECT_EQ(p.lhs_permutation, (Dims{1, 0, 2, 3}));
  EXPECT_TRUE(p.rhs_permutation.empty());
  expectGemm(p, 6, 4, 6, 5, {false, 5, 20}, {false, 6, 30});
}

TEST(DotToGemm, SizeOneDimsTakeNoSpace) {
  // Vector dot [1, 6] x [6, 1]: every operand reads in place.
  ASSERT_PLAN(v, (Dot{t(ElementType::F32, {1, 6}), t(ElementType::F32, {6, 1}),
                      t(ElementType::F32, {1, 1}), dims({}, {}, {1}, {0})}));
  expectGemm(v, 1, 1, 1, 6, {false, 6, 6}, {false, 1, 6});
  // A unit free dim between m and k does not break the k run.
  ASSERT_PLAN(p, (Dot{t(ElementType::F32, {4, 1, 5}), t(ElementType::F32, {5, 3}),
                      t(ElementType::F32, {4, 1, 3}), dims({}, {}, {2}, {0})}));
  expectGemm(p, 1, 4, 3, 5, {false, 5, 20}, {false, 3, 15});
  EXPECT_TRUE(p.lhs_permutation.empty());
  // Matrix-vector with a batch innermost: [k=4, b=2] x [b=2, k=4] (m = n = 1).
  ASSERT_PLAN(q, (Dot{t(ElementType::F32, {4, 2}), t(ElementType::F32, {2, 4}),
                      t(ElementType::F32, {2}), dims({1}, {0}, {0}, {1})}));
  expectGemm(q, 2, 1, 1, 4, {true, 2, 1}, {false, 1, 4});
}

TEST(DotToGemm, Int8IsAlwaysATimesBTransposed) {
  // [8, 16] x [16, 12]: the rhs must become [n, k].
  ASSERT_PLAN(p, (Dot{t(ElementType::I8, {8, 16}), t(ElementType::I8, {16, 12}),
                      t(ElementType::I32, {8, 12}), dims({}, {}, {1}, {0})}));
  EXPECT_EQ(p.rhs_permutation, (Dims{1, 0}));
  EXPECT_TRUE(p.lhs_permutation.empty());
  expectGemm(p, 1, 8, 12, 16, {false, 16, 128}, {true, 16, 192});
  EXPECT_EQ(p.gemm.compute, GemmCompute::kS32);
  EXPECT_EQ(p.gemm.a.type, GemmType::kS8);
  EXPECT_EQ(p.gemm.d_type, GemmType::kS32);
  // Already [n, k]: nothing moves. A transposed lhs [k, m] moves.
  ASSERT_PLAN(q, (Dot{t(ElementType::I8, {16, 8}), t(ElementType::I8, {12, 16}),
                      t(ElementType::I32, {8, 12}), dims({}, {}, {0}, {1})}));
  EXPECT_EQ(q.lhs_permutation, (Dims{1, 0}));
  EXPECT_TRUE(q.rhs_permutation.empty());
  expectGemm(q, 1, 8, 12, 16, {false, 16, 128}, {true, 16, 192});
}

TEST(DotToGemm, ElementTypes) {
  struct Row {
    ElementType lhs, rhs, result;
    bool ok;
    GemmType in, out;
    GemmCompute compute;
  };
  const Row rows[] = {
      {ElementType::BF16, ElementType::BF16, ElementType::F32, true, GemmType::kBF16,
       GemmType::kF32, GemmCompute::kF32},
      {ElementType::BF16, ElementType::BF16, ElementType::BF16, true, GemmType::kBF16,
       GemmType::kBF16, GemmCompute::kF32},
      {ElementType::F16, ElementType::F16, ElementType::F16, true, GemmType::kF16,
       GemmType::kF16, GemmCompute::kF32},
      {ElementType::F64, ElementType::F64, ElementType::F64, true, GemmType::kF64,
       GemmType::kF64, GemmCompute::kF64},
      {ElementType::C64, ElementType::C64, ElementType::C64, true, GemmType::kC64,
       GemmType::kC64, GemmCompute::kTf32},
      {ElementType::C128, ElementType::C128, ElementType::C128, true, GemmType::kC128,
       GemmType::kC128, GemmCompute::kF64},
      {ElementType::F32, ElementType::BF16, ElementType::F32, false},
      {ElementType::I32, ElementType::I32, ElementType::I32, false},
      {ElementType::I8, ElementType::I8, ElementType::I8, false},
      {ElementType::F8E4M3FN, ElementType::F8E4M3FN, ElementType::F32, false},
      {ElementType::BF16, ElementType::BF16, ElementType::F16, false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(std::string(ir::elementTypeName(row.lhs)) + " x " +
                 std::string(ir::elementTypeName(row.rhs)) + " -> " +
                 std::string(ir::elementTypeName(row.result)));
    StatusOr<DotGemmPlan> p = plan(Dot{t(row.lhs, {3, 4}), t(row.rhs, {4, 5}),
                                       t(row.result, {3, 5}), dims({}, {}, {1}, {0})});
    if (!row.ok) {
      EXPECT_EQ(p.status().code(), StatusCode::kUnimplemented);
      continue;
    }
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    EXPECT_EQ(p->gemm.a.type, row.in);
    EXPECT_EQ(p->gemm.b.type, row.in);
    EXPECT_EQ(p->gemm.d_type, row.out);
    EXPECT_EQ(p->gemm.compute, row.compute);
  }
}

ir::DotAlgorithm algorithm(ElementType precision, ElementType accumulation,
                           int64_t components = 1) {
  ir::DotAlgorithm a;
  a.lhs_precision_type = ir::Type::scalar(precision);
  a.rhs_precision_type = ir::Type::scalar(precision);
  a.accumulation_type = ir::Type::scalar(accumulation);
  a.lhs_component_count = a.rhs_component_count = components;
  return a;
}

TEST(DotToGemm, AlgorithmsOfTheOperandTypeAreHonoured) {
  Dot dot{t(ElementType::F32, {3, 4}),
          t(ElementType::F32, {4, 5}),
          t(ElementType::F32, {3, 5}),
          dims({}, {}, {1}, {0}),
          {{"algorithm", algorithm(ElementType::F32, ElementType::F32)}}};
  ASSERT_PLAN(f32, dot);
  EXPECT_EQ(f32.gemm.compute, GemmCompute::kF32);  // f32 operands asked for: no TF32
  dot.extra = {{"algorithm", algorithm(ElementType::BF16, ElementType::F32)}};
  EXPECT_EQ(plan(dot).status().code(), StatusCode::kUnimplemented);
  dot.extra = {{"algorithm", algorithm(ElementType::F32, ElementType::F32, 3)}};
  EXPECT_EQ(plan(dot).status().code(), StatusCode::kUnimplemented);
}

TEST(DotToGemm, EmptyProductsAreNotLibraryCalls) {
  StatusOr<DotGemmPlan> p =
      plan(Dot{t(ElementType::F32, {3, 0}), t(ElementType::F32, {0, 5}),
               t(ElementType::F32, {3, 5}), dims({}, {}, {1}, {0})});
  EXPECT_EQ(p.status().code(), StatusCode::kUnimplemented);
}

// --- the zoo programs' dots -------------------------------------------------

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

StatusOr<ir::Module> importFixture(const std::string& name) {
  std::ifstream in(fixtureDir() + "/" + name + "/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (bytes.empty()) return notFound("fixture " + name + " is missing");
  return frontend::importStableHlo(bytes.data(), bytes.size());
}

void collectDots(const ir::Region& region, std::vector<const ir::Op*>& out) {
  for (const ir::Op& op : region.ops) {
    if (op.kind == ir::OpKind::DotGeneral) out.push_back(&op);
    for (const ir::Region& nested : op.regions) collectDots(nested, out);
  }
}

struct Expected {
  int64_t batch, m, n, k;
  Side a, b;
};

void expectZoo(const std::string& name, const std::vector<Expected>& expected) {
  SCOPED_TRACE(name);
  StatusOr<ir::Module> m = importFixture(name);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  std::vector<const ir::Op*> dots;
  for (const ir::Function& f : m->functions) collectDots(f.body, dots);
  ASSERT_EQ(dots.size(), expected.size());
  for (size_t i = 0; i < dots.size(); ++i) {
    SCOPED_TRACE("dot " + std::to_string(i));
    StatusOr<DotGemmPlan> p = planDotAsGemm(*m, *dots[i]);
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    const Expected& e = expected[i];
    expectGemm(*p, e.batch, e.m, e.n, e.k, e.a, e.b);
    EXPECT_TRUE(p->lhs_permutation.empty());
    EXPECT_TRUE(p->rhs_permutation.empty());
    EXPECT_EQ(p->gemm.compute, GemmCompute::kTf32);  // JAX's DEFAULT precision
  }
}

TEST(DotToGemmZoo, Mlp) {
  expectZoo("mlp", {{1, 16, 256, 64, {false, 64, 1024}, {false, 256, 64 * 256}},
                    {1, 16, 64, 256, {false, 256, 4096}, {false, 64, 256 * 64}}});
}

TEST(DotToGemmZoo, Attention) {
  // q k^T contracts the head dim of both (B transposed), then p v.
  expectZoo("attention", {{8, 64, 64, 32, {false, 32, 2048}, {true, 32, 2048}},
                          {8, 64, 32, 64, {false, 64, 4096}, {false, 32, 2048}}});
}

TEST(DotToGemmZoo, TransformerBlock) {
  expectZoo("transformer_block",
            {{1, 64, 192, 64, {false, 64, 4096}, {false, 192, 64 * 192}},
             {8, 32, 32, 16, {false, 16, 512}, {true, 16, 512}},
             {8, 32, 16, 32, {false, 32, 1024}, {false, 16, 512}},
             {1, 64, 64, 64, {false, 64, 4096}, {false, 64, 4096}},
             {1, 64, 256, 64, {false, 64, 4096}, {false, 256, 64 * 256}},
             {1, 64, 64, 256, {false, 256, 64 * 256}, {false, 64, 256 * 64}}});
}

TEST(DotToGemmZoo, MlpTrainStepBackwardDotsReadTransposedOperandsInPlace) {
  expectZoo("mlp_train_step", {{1, 16, 64, 32, {false, 32, 512}, {false, 64, 2048}},
                               {1, 16, 8, 64, {false, 64, 1024}, {false, 8, 512}},
                               {1, 8, 64, 16, {true, 8, 128}, {false, 64, 1024}},
                               {1, 16, 64, 8, {false, 8, 128}, {true, 8, 512}},
                               {1, 64, 32, 16, {true, 64, 1024}, {false, 32, 512}}});
}

}  // namespace
}  // namespace jft::compiler

#undef ASSERT_PLAN
