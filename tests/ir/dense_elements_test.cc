// DenseElements: a splat keeps one element whatever the tensor size, reads
// as every element, prints as MLIR does (dense<v>) and equals the literal
// that spells its element out. Encodings are written by hand: 1.0f is
// 0x3F800000, 2.0f 0x40000000, little endian.
#include "ir/dense_elements.h"

#include <gtest/gtest.h>

#include "ir/attribute.h"
#include "ir/attribute_printer.h"
#include "ir/builder.h"
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using testing::f32;

const std::vector<uint8_t> kOne = {0x00, 0x00, 0x80, 0x3F};
const std::vector<uint8_t> kTwo = {0x00, 0x00, 0x00, 0x40};

TEST(DenseElements, SplatHoldsOneElementAndReadsAsEvery) {
  const DenseElements ones = DenseElements::makeSplat(f32({2, 3}), kOne);
  EXPECT_TRUE(ones.splat);
  EXPECT_EQ(ones.bytes, kOne);
  EXPECT_EQ(ones.numElements(), 6);
  EXPECT_EQ(ones.elementBytes(), 4);
  EXPECT_TRUE(ones.wellFormed());
  EXPECT_TRUE(ones.allEqual());
  for (int64_t i = 0; i < 6; ++i) {
    const std::span<const uint8_t> element = ones.element(i);
    EXPECT_EQ(std::vector<uint8_t>(element.begin(), element.end()), kOne) << i;
  }
  std::vector<uint8_t> six;
  for (int i = 0; i < 6; ++i) six.insert(six.end(), kOne.begin(), kOne.end());
  EXPECT_EQ(ones.expanded(), six);
}

TEST(DenseElements, OneElementTypeGetsThePlainForm) {
  const DenseElements scalar = DenseElements::makeSplat(f32({}), kTwo);
  EXPECT_FALSE(scalar.splat);
  EXPECT_TRUE(scalar.wellFormed());
  EXPECT_EQ(scalar.expanded(), kTwo);
}

TEST(DenseElements, HugeSplatStaysSmall) {
  // 2^40 elements: 4 TiB spelled out.
  const DenseElements huge = DenseElements::makeSplat(f32({int64_t{1} << 40}), kOne);
  EXPECT_EQ(huge.bytes.size(), 4u);
  EXPECT_TRUE(huge.wellFormed());
  EXPECT_EQ(huge.element((int64_t{1} << 40) - 1)[3], 0x3F);
  EXPECT_EQ(printAttribute(huge), "dense<1.0> : tensor<1099511627776xf32>");
}

TEST(DenseElements, WellFormedNeedsOneElementOrAll) {
  DenseElements dense = DenseElements::makeSplat(f32({3}), kOne);
  dense.bytes.push_back(0);  // five bytes for a splat of f32
  EXPECT_FALSE(dense.wellFormed());
  dense.splat = false;
  dense.bytes.assign(12, 0);  // three f32 spelled out
  EXPECT_TRUE(dense.wellFormed());
  dense.bytes.resize(8);
  EXPECT_FALSE(dense.wellFormed());
  EXPECT_EQ(printAttribute(dense), "dense<?8 bytes for 3 elements> : tensor<3xf32>");
}

TEST(DenseElements, SplatEqualsTheLiteralSpellingItOut) {
  const DenseElements splat = DenseElements::makeSplat(f32({3}), kOne);
  const DenseElements spelled = denseFromValues(f32({3}), {1, 1, 1});
  EXPECT_FALSE(spelled.splat);
  EXPECT_EQ(splat, spelled);
  EXPECT_EQ(spelled, splat);
  EXPECT_EQ(Attribute(splat), Attribute(spelled));
  EXPECT_NE(splat, denseFromValues(f32({3}), {1, 1, 2}));
  EXPECT_NE(splat, DenseElements::makeSplat(f32({3}), kTwo));
  EXPECT_NE(splat, DenseElements::makeSplat(f32({4}), kOne));
  EXPECT_NE(splat, denseFromValues(f32({3}), {2, 2, 2}));
}

TEST(DenseElements, AllEqualOnSpelledOutAndEmptyLiterals) {
  EXPECT_TRUE(denseFromValues(f32({2}), {2, 2}).allEqual());
  EXPECT_FALSE(denseFromValues(f32({2}), {2, 1}).allEqual());
  EXPECT_FALSE(denseFromValues(f32({0}), {}).allEqual());
}

TEST(DenseElements, PrintsSplatsAsMlirDoes) {
  const DenseElements pred_true =
      DenseElements::makeSplat(Type::tensor(ElementType::PRED, {4}), {1});
  EXPECT_EQ(printDenseLiteral(pred_true), "dense<true>");
  const DenseElements minus_one =
      DenseElements::makeSplat(Type::tensor(ElementType::I16, {2, 2}), {0xFF, 0xFF});
  EXPECT_EQ(printDenseLiteral(minus_one), "dense<-1>");
  // A splat is printed whole even where long literals are elided.
  PrintOptions options;
  options.max_dense_elements = 2;
  EXPECT_EQ(printDenseLiteral(DenseElements::makeSplat(f32({8}), kTwo), options),
            "dense<2.0>");
}

}  // namespace
}  // namespace jft::ir
