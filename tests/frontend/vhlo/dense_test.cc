// Dense literals: MLIR's storage (splats, one byte per i1, bit-packed i1)
// expanded into ir's form. Expected bytes are written out by hand from the
// IEEE-754 and two's-complement encodings.
#include "frontend/vhlo/dense.h"

#include <gtest/gtest.h>

#include "tree_builder.h"

namespace jft::frontend::vhlo {
namespace {

using namespace vhlo_test;

const OpSite kConstantSite{"vhlo.constant_v1", "zoo.py:3:4"};

TEST(Dense, SplatKeepsOneElementAndReadsAsEvery) {
  // 1.25f = 0x3FA00000, little endian.
  auto attr = denseRaw(tensor({3}, f32()), {0x00, 0x00, 0xA0, 0x3F});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk()) << dense.status().toString();
  EXPECT_EQ(dense->type, ir::Type::tensor(ir::ElementType::F32, {3}));
  EXPECT_TRUE(dense->splat);
  EXPECT_EQ(dense->bytes, (std::vector<uint8_t>{0, 0, 0xA0, 0x3F}));
  EXPECT_EQ(dense->element(2)[3], 0x3F);
  EXPECT_EQ(dense->expanded(),
            (std::vector<uint8_t>{0, 0, 0xA0, 0x3F, 0, 0, 0xA0, 0x3F, 0, 0, 0xA0, 0x3F}));
}

TEST(Dense, FullStorageIsKept) {
  auto attr = denseRaw(tensor({2}, intType(16)), {0x01, 0x00, 0xFF, 0xFF});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_EQ(dense->type, ir::Type::tensor(ir::ElementType::I16, {2}));
  EXPECT_EQ(dense->bytes, (std::vector<uint8_t>{0x01, 0x00, 0xFF, 0xFF}));
}

TEST(Dense, ScalarTensorHoldsOneElement) {
  auto attr = denseRaw(tensor({}, intType(32)), {7, 0, 0, 0});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_EQ(dense->bytes.size(), 4u);
  EXPECT_EQ(dense->type.byteSize(), 4);
}

TEST(Dense, EmptyTensorHasNoBytes) {
  auto attr = denseRaw(tensor({0, 3}, f32()), {});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_TRUE(dense->bytes.empty());
}

// jnp.arccosh of an empty int8 array reaches us as a splat constant of an
// empty tensor: MLIR stores it with one element, as every splat.
TEST(Dense, EmptyTensorSplatStoredWithOneElementHasNoBytes) {
  auto dense =
      decodeDense(*denseRaw(tensor({0}, f32()), {0, 0, 0x80, 0x3F}), kConstantSite);
  ASSERT_TRUE(dense.isOk()) << dense.status().toString();
  EXPECT_EQ(dense->type, (ir::Type::tensor(ir::ElementType::F32, {0})));
  EXPECT_TRUE(dense->expanded().empty());
}

TEST(Dense, ComplexElementsArePairs) {
  // complex<f32> (1.0, -2.0) splat over two elements: 0x3F800000, 0xC0000000.
  auto attr = denseRaw(tensor({2}, complexOf(f32())), {0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_EQ(dense->type.element, ir::ElementType::C64);
  EXPECT_TRUE(dense->splat);
  EXPECT_EQ(dense->bytes.size(), 8u);
  const std::vector<uint8_t> all = dense->expanded();
  ASSERT_EQ(all.size(), 16u);
  EXPECT_EQ(all[8], 0);
  EXPECT_EQ(all[11], 0x3F);
  EXPECT_EQ(all[15], 0xC0);
}

TEST(Dense, SubByteElementsTakeAByteEach) {
  auto attr = denseRaw(tensor({3}, intType(4)), {1, 2, 3});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_EQ(dense->type.element, ir::ElementType::I4);
  EXPECT_EQ(dense->bytes, (std::vector<uint8_t>{1, 2, 3}));
}

TEST(Dense, BoolOneBytePerElement) {
  auto attr = denseRaw(tensor({4}, intType(1)), {1, 0, 0, 1});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_EQ(dense->type.element, ir::ElementType::PRED);
  EXPECT_EQ(dense->bytes, (std::vector<uint8_t>{1, 0, 0, 1}));
}

TEST(Dense, BoolSplatOfTrueAndFalse) {
  auto t = decodeDense(*denseRaw(tensor({5}, intType(1)), {1}), kConstantSite);
  ASSERT_TRUE(t.isOk());
  EXPECT_TRUE(t->splat);
  EXPECT_EQ(t->expanded(), (std::vector<uint8_t>{1, 1, 1, 1, 1}));
  // VHLO's all-true splat marker.
  auto ff = decodeDense(*denseRaw(tensor({32}, intType(1)), {0xFF}), kConstantSite);
  ASSERT_TRUE(ff.isOk());
  EXPECT_EQ(ff->bytes, std::vector<uint8_t>{1});
  EXPECT_EQ(ff->expanded(), std::vector<uint8_t>(32, 1));
  auto f = decodeDense(*denseRaw(tensor({3}, intType(1)), {0}), kConstantSite);
  ASSERT_TRUE(f.isOk());
  EXPECT_EQ(f->expanded(), (std::vector<uint8_t>{0, 0, 0}));
}

TEST(Dense, BoolBitPackedLeastSignificantBitFirst) {
  // 16 elements packed in two bytes: true at 0 and 8 (StableHLO's
  // byte_packed_boolean test case), and at 15.
  auto attr = denseRaw(tensor({16}, intType(1)), {0x01, 0x81});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk());
  std::vector<uint8_t> expected(16, 0);
  expected[0] = expected[8] = expected[15] = 1;
  EXPECT_EQ(dense->bytes, expected);
}

TEST(Dense, NonzeroBytesAreTrue) {
  auto dense = decodeDense(*denseRaw(tensor({2}, intType(1)), {0, 7}), kConstantSite);
  ASSERT_TRUE(dense.isOk());
  EXPECT_EQ(dense->bytes, (std::vector<uint8_t>{0, 1}));
}

TEST(Dense, WrongStorageSizeIsAnError) {
  auto dense =
      decodeDense(*denseRaw(tensor({3}, f32()), {0, 0, 0, 0, 0, 0, 0, 0}), kConstantSite);
  ASSERT_FALSE(dense.isOk());
  EXPECT_EQ(dense.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dense.status().message().find("vhlo.constant_v1"), std::string::npos);
  EXPECT_NE(dense.status().message().find("zoo.py:3:4"), std::string::npos);
  auto bools =
      decodeDense(*denseRaw(tensor({20}, intType(1)), {1, 2, 3, 4, 5}), kConstantSite);
  EXPECT_EQ(bools.status().code(), StatusCode::kInvalidArgument);
}

TEST(Dense, HugeSplatStaysOneElement) {
  // 2^40 f32 elements (4 TiB spelled out): 1.0f = 0x3F800000.
  auto attr = denseRaw(tensor({1 << 20, 1 << 20}, f32()), {0, 0, 0x80, 0x3F});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_TRUE(dense.isOk()) << dense.status().toString();
  EXPECT_TRUE(dense->splat);
  EXPECT_EQ(dense->bytes, (std::vector<uint8_t>{0, 0, 0x80, 0x3F}));
  EXPECT_EQ(dense->numElements(), int64_t{1} << 40);
  EXPECT_TRUE(dense->wellFormed());
  EXPECT_EQ(dense->element((int64_t{1} << 40) - 1)[3], 0x3F);
}

TEST(Dense, SplatWhoseByteSizeOverflowsIsRefused) {
  // 2^62 elements of 4 bytes: 2^64 bytes, past what a size can say.
  auto attr = denseRaw(tensor({int64_t{1} << 31, int64_t{1} << 31}, f32()), {0, 0, 0, 0});
  auto dense = decodeDense(*attr, kConstantSite);
  ASSERT_FALSE(dense.isOk());
  EXPECT_EQ(dense.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dense.status().message().find("too large"), std::string::npos)
      << dense.status().message();
  EXPECT_NE(dense.status().message().find("vhlo.constant_v1"), std::string::npos);
}

TEST(Dense, SpelledOutStorageMustMatchTheType) {
  // Neither one element nor all three: 2 of 3 f32 elements.
  auto dense = decodeDense(*denseRaw(tensor({3}, f32()), std::vector<uint8_t>(8, 0)),
                           kConstantSite);
  ASSERT_FALSE(dense.isOk());
  EXPECT_EQ(dense.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(dense.status().message().find("8 bytes"), std::string::npos);
  // Two elements' bytes for an empty tensor are neither form.
  auto empty = decodeDense(*denseRaw(tensor({0}, f32()), std::vector<uint8_t>(8, 0)),
                           kConstantSite);
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
}

TEST(Dense, DynamicShapeIsAnError) {
  auto dense = decodeDense(*denseRaw(tensor({kDynamicDim}, f32()), {}), kConstantSite);
  EXPECT_EQ(dense.status().code(), StatusCode::kInvalidArgument);
}

TEST(DenseInts, I64ListsSplatsAndNegatives) {
  auto ints = decodeInts(*i64s({0, -1, 5}), kConstantSite);
  ASSERT_TRUE(ints.isOk());
  EXPECT_EQ(*ints, (std::vector<int64_t>{0, -1, 5}));
  auto splat = decodeInts(*i64Splat({2, 2}, 1), kConstantSite);
  ASSERT_TRUE(splat.isOk());
  EXPECT_EQ(*splat, (std::vector<int64_t>{1, 1, 1, 1}));
}

TEST(DenseInts, NarrowSignedAndUnsignedAreExtended) {
  auto i32 = decodeInts(*denseRaw(tensor({1}, intType(32)), {0xFE, 0xFF, 0xFF, 0xFF}),
                        kConstantSite);
  ASSERT_TRUE(i32.isOk());
  EXPECT_EQ(*i32, (std::vector<int64_t>{-2}));
  auto u8 =
      decodeInts(*denseRaw(tensor({1}, intType(8, MType::Signedness::Unsigned)), {0xFE}),
                 kConstantSite);
  ASSERT_TRUE(u8.isOk());
  EXPECT_EQ(*u8, (std::vector<int64_t>{254}));
}

TEST(DenseInts, IndexLayoutsAndEmptyLists) {
  std::vector<uint8_t> data = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  auto layout = decodeInts(*denseRaw(tensor({2}, indexType()), data), kConstantSite);
  ASSERT_TRUE(layout.isOk());
  EXPECT_EQ(*layout, (std::vector<int64_t>{1, 0}));
  auto empty = decodeInts(*i64s({}), kConstantSite);
  ASSERT_TRUE(empty.isOk());
  EXPECT_TRUE(empty->empty());
}

TEST(DenseInts, FloatElementsAreRejected) {
  auto ints = decodeInts(*denseRaw(tensor({1}, f32()), {0, 0, 0, 0}), kConstantSite);
  EXPECT_EQ(ints.status().code(), StatusCode::kInvalidArgument);
}

TEST(DenseBools, WindowReversalForm) {
  auto bools = decodeBools(*denseRaw(tensor({2}, intType(1)), {0}), kConstantSite);
  ASSERT_TRUE(bools.isOk());
  EXPECT_EQ(*bools, (std::vector<bool>{false, false}));
  EXPECT_FALSE(decodeBools(*i64s({1}), kConstantSite).isOk());
}

}  // namespace
}  // namespace jft::frontend::vhlo
