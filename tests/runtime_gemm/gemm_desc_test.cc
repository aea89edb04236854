// GemmDesc validation: every rule rejects what it should and nothing else.
#include <gtest/gtest.h>

#include "runtime/gemm.h"

namespace jft::runtime {
namespace {

// 2 x [5x3] * [3x4] in f32, A stored transposed with padding, B plain.
GemmDesc valid() {
  GemmDesc d;
  d.batch = 2;
  d.m = 5;
  d.n = 4;
  d.k = 3;
  d.a = {GemmType::kF32, true, 8, 40};  // stored 3 x 5, ld 8
  d.b = {GemmType::kF32, false, 4, 0};  // one B for both items
  d.d_type = GemmType::kF32;
  d.d_ld = 4;
  d.d_batch_stride = 20;
  d.compute = GemmCompute::kTf32;
  return d;
}

void expectInvalid(const GemmDesc& d, const std::string& fragment) {
  Status s = validateGemm(d);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << gemmText(d);
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s.message();
}

TEST(GemmDesc, ValidDescriptionPassesAndSizesItsBuffers) {
  GemmDesc d = valid();
  EXPECT_TRUE(validateGemm(d).isOk()) << validateGemm(d).toString();
  // A: item 1 starts at 40, its last stored row (2) ends at 2*8 + 5.
  EXPECT_EQ(gemmElementsA(d), 40 + 2 * 8 + 5);
  EXPECT_EQ(gemmElementsB(d), 2 * 4 + 4);
  EXPECT_EQ(gemmElementsD(d), 20 + 4 * 4 + 4);
  EXPECT_NE(gemmText(d).find("A^T ld 8"), std::string::npos) << gemmText(d);
}

TEST(GemmDesc, RejectsEmptySizes) {
  for (int which = 0; which < 4; ++which) {
    GemmDesc d = valid();
    (which == 0 ? d.batch : which == 1 ? d.m : which == 2 ? d.n : d.k) = 0;
    expectInvalid(d, "at least 1");
  }
}

TEST(GemmDesc, LeadingDimensionsFollowTheStoredShape) {
  GemmDesc d = valid();
  d.a.ld = 4;  // stored transposed: rows of m = 5
  expectInvalid(d, "A: leading dimension 4 is below its row length 5");
  d = valid();
  d.a.transpose = false;
  d.a.ld = 3;  // plain: rows of k = 3 are fine
  EXPECT_TRUE(validateGemm(d).isOk());
  d.a.ld = 2;
  expectInvalid(d, "below its row length 3");
  d = valid();
  d.b.transpose = true;  // stored 4 x 3
  d.b.ld = 3;
  EXPECT_TRUE(validateGemm(d).isOk());
  d.b.ld = 2;
  expectInvalid(d, "B: leading dimension 2");
  d = valid();
  d.d_ld = 3;
  expectInvalid(d, "D's leading dimension 3");
}

TEST(GemmDesc, BatchItemsOfDMustNotOverlap) {
  GemmDesc d = valid();
  d.d_batch_stride = 19;
  expectInvalid(d, "overlap");
  d.batch = 1;  // a single item has no neighbour
  EXPECT_TRUE(validateGemm(d).isOk());
  d = valid();
  d.a.batch_stride = -1;
  expectInvalid(d, "negative batch stride");
}

TEST(GemmDesc, TypeTable) {
  struct Row {
    GemmType in, out;
    GemmCompute compute;
    bool ok;
  };
  const Row rows[] = {
      {GemmType::kF32, GemmType::kF32, GemmCompute::kF32, true},
      {GemmType::kF32, GemmType::kF32, GemmCompute::kTf32, true},
      {GemmType::kF32, GemmType::kBF16, GemmCompute::kF32, false},
      {GemmType::kBF16, GemmType::kBF16, GemmCompute::kF32, true},
      {GemmType::kBF16, GemmType::kF32, GemmCompute::kF32, true},
      {GemmType::kBF16, GemmType::kF16, GemmCompute::kF32, false},
      {GemmType::kBF16, GemmType::kBF16, GemmCompute::kTf32, false},
      {GemmType::kF16, GemmType::kF16, GemmCompute::kF32, true},
      {GemmType::kF16, GemmType::kF32, GemmCompute::kF32, true},
      {GemmType::kF64, GemmType::kF64, GemmCompute::kF64, true},
      {GemmType::kF64, GemmType::kF64, GemmCompute::kF32, false},
      {GemmType::kC64, GemmType::kC64, GemmCompute::kTf32, true},
      {GemmType::kC128, GemmType::kC128, GemmCompute::kF64, true},
      {GemmType::kS8, GemmType::kS32, GemmCompute::kS32, true},
      {GemmType::kS8, GemmType::kS8, GemmCompute::kS32, false},
      {GemmType::kS32, GemmType::kS32, GemmCompute::kS32, false},
  };
  for (const Row& row : rows) {
    GemmDesc d = valid();
    d.a.type = d.b.type = row.in;
    d.d_type = row.out;
    d.compute = row.compute;
    EXPECT_EQ(validateGemm(d).isOk(), row.ok) << gemmText(d);
  }
  GemmDesc mixed = valid();
  mixed.b.type = GemmType::kBF16;
  expectInvalid(mixed, "f32 x bf16 -> f32");
}

TEST(GemmDesc, IntegerProductsNeedIntegralScalars) {
  GemmDesc d = valid();
  d.a.type = d.b.type = GemmType::kS8;
  d.d_type = GemmType::kS32;
  d.compute = GemmCompute::kS32;
  d.alpha = 2;
  d.beta = -1;
  EXPECT_TRUE(validateGemm(d).isOk());
  d.alpha = 0.5;
  expectInvalid(d, "integral alpha and beta");
  d.alpha = 4e9;
  expectInvalid(d, "integral alpha and beta");
}

TEST(GemmDesc, EpilogueOnlyOnFloatResults) {
  GemmDesc d = valid();
  d.bias = true;
  d.epilogue = GemmEpilogue::kGelu;
  EXPECT_TRUE(validateGemm(d).isOk());
  d.a.type = d.b.type = d.d_type = GemmType::kF64;
  d.compute = GemmCompute::kF64;
  expectInvalid(d, "bias and activation");
  d.bias = false;
  d.epilogue = GemmEpilogue::kRelu;
  expectInvalid(d, "bias and activation");
  d.epilogue = GemmEpilogue::kNone;
  EXPECT_TRUE(validateGemm(d).isOk());
}

TEST(GemmDesc, ScalarsMustBeFinite) {
  GemmDesc d = valid();
  d.beta = std::numeric_limits<double>::infinity();
  expectInvalid(d, "finite");
}

}  // namespace
}  // namespace jft::runtime
