// Shape helpers: overflow checked against 128-bit arithmetic, packing against a
// naive index-by-index reference.
#include "pjrt/shape.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

namespace jft::pjrt {
namespace {

// The reference arithmetic is wide enough never to overflow for these shapes.
__extension__ typedef unsigned __int128 Wide;

TEST(Shape, ByteSizeMatchesWideArithmetic) {
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {7}, {3, 5}, {2, 3, 4, 5, 6}, {1 << 20, 1 << 10}, {0, int64_t{1} << 62}};
  for (const auto& dims : shapes) {
    Wide expected = 4;
    for (int64_t d : dims) expected *= static_cast<Wide>(d);
    auto bytes = denseByteSize(dims, 4);
    ASSERT_TRUE(bytes.isOk());
    EXPECT_EQ(static_cast<Wide>(*bytes), expected);
  }
}

TEST(Shape, ByteSizeOverflowIsInvalidArgument) {
  std::vector<int64_t> dims = {int64_t{1} << 31, int64_t{1} << 31, 4};
  auto bytes = denseByteSize(dims, 8);
  ASSERT_FALSE(bytes.isOk());
  EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bytes.status().message().find("overflow"), std::string::npos);
}

TEST(Shape, ValidateDimsRejectsBadInput) {
  int64_t negative[] = {3, -1};
  EXPECT_EQ(validateDims(negative, 2).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(validateDims(nullptr, 2).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(validateDims(nullptr, 0).isOk());
  std::vector<int64_t> tooMany(kMaxRank + 1, 1);
  EXPECT_EQ(validateDims(tooMany.data(), tooMany.size()).code(),
            StatusCode::kInvalidArgument);
}

TEST(Shape, DenseStridesAreRowMajor) {
  std::vector<int64_t> dims = {2, 3, 4};
  EXPECT_EQ(denseByteStrides(dims, 2), (std::vector<int64_t>{24, 8, 2}));
  EXPECT_TRUE(stridesAreDense(dims, std::vector<int64_t>{24, 8, 2}, 2));
  EXPECT_FALSE(stridesAreDense(dims, std::vector<int64_t>{2, 4, 12}, 2));
  // A unit dimension's stride never matters.
  EXPECT_TRUE(
      stridesAreDense(std::vector<int64_t>{1, 3}, std::vector<int64_t>{999, 4}, 4));
}

TEST(Shape, PackTransposedMatchesReference) {
  // A 3x4 int32 matrix stored column-major (a transposed view), read row-major.
  const int rows = 3, cols = 4;
  std::vector<int32_t> columnMajor(rows * cols);
  std::iota(columnMajor.begin(), columnMajor.end(), 100);
  std::vector<int64_t> dims = {rows, cols};
  std::vector<int64_t> strides = {4, 4 * rows};
  std::vector<int32_t> packed(rows * cols);
  packStrided(columnMajor.data(), dims, strides, 4, packed.data());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      EXPECT_EQ(packed[r * cols + c], columnMajor[c * rows + r]);
}

TEST(Shape, PackNegativeAndZeroStrides) {
  std::vector<int16_t> data = {1, 2, 3, 4};
  std::vector<int64_t> dims = {2, 4};
  // Row 0 and row 1 are the same data (stride 0); columns run backwards.
  std::vector<int64_t> strides = {0, -2};
  std::vector<int16_t> packed(8);
  packStrided(data.data() + 3, dims, strides, 2, packed.data());
  EXPECT_EQ(packed, (std::vector<int16_t>{4, 3, 2, 1, 4, 3, 2, 1}));
}

TEST(Shape, DefaultLayoutRecognised) {
  std::vector<int64_t> dims = {2, 3};
  int64_t minor_to_major[] = {1, 0};
  PJRT_Buffer_MemoryLayout layout{};
  layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
  layout.tiled.minor_to_major = minor_to_major;
  layout.tiled.minor_to_major_size = 2;
  EXPECT_TRUE(isDefaultLayout(&layout, dims, 4));
  int64_t transposed[] = {0, 1};
  layout.tiled.minor_to_major = transposed;
  EXPECT_FALSE(isDefaultLayout(&layout, dims, 4));
  EXPECT_TRUE(isDefaultLayout(nullptr, dims, 4));
}

}  // namespace
}  // namespace jft::pjrt
