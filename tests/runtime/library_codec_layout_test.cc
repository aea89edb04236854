// The library descriptions' byte layout, pinned field by field against bytes
// built here by hand (enums and booleans one byte, integers and doubles eight
// bytes little-endian, lists a u64 count then the items), so that serialized
// executables stay readable whatever the codec's code looks like.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "runtime/library_codec.h"

namespace jft::runtime {
namespace {

struct Bytes {
  std::string data;
  Bytes& byte(uint8_t v) {
    data.push_back(static_cast<char>(v));
    return *this;
  }
  Bytes& u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) byte(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& f64(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return u64(bits);
  }
  Bytes& list(std::initializer_list<int64_t> items) {
    u64(items.size());
    for (int64_t item : items) u64(static_cast<uint64_t>(item));
    return *this;
  }
};

template <typename T>
std::string encoded(void (*encode)(ByteWriter&, const T&), const T& value) {
  ByteWriter out;
  encode(out, value);
  return out.data();
}

TEST(LibraryCodecLayout, Gemm) {
  GemmDesc d;
  d.a = {GemmType::kBF16, true, 17, 289};
  d.b = {GemmType::kF16, false, 5, 0};
  d.d_type = GemmType::kC64;
  d.d_ld = 9;
  d.d_batch_stride = 81;
  d.compute = GemmCompute::kTf32;
  d.batch = 3;
  d.m = 4;
  d.n = 5;
  d.k = 6;
  d.alpha = 1.5;
  d.beta = -2.0;
  d.bias = true;
  d.epilogue = GemmEpilogue::kRelu;
  Bytes want;
  want.byte(1).byte(1).u64(17).u64(289);  // a: bf16, transposed, ld, stride
  want.byte(0).byte(0).u64(5).u64(0);     // b: f16
  want.byte(4).u64(9).u64(81).byte(1);    // d: c64, ld, stride; compute tf32
  want.u64(3).u64(4).u64(5).u64(6).f64(1.5).f64(-2.0).byte(1).byte(1);
  EXPECT_EQ(encoded(&encodeGemm, d), want.data);
}

TEST(LibraryCodecLayout, SolverTaggedAsTheSecondLibraryOp) {
  SolverDesc d;
  d.kind = SolverKind::kOrmqr;
  d.type = SolverType::kC128;
  d.batch = 2;
  d.m = 5;
  d.n = 4;
  d.k = 3;
  d.reflector_cols = 7;
  d.lower = true;
  d.left_side = false;
  d.transpose = SolverTranspose::kAdjoint;
  d.unit_diagonal = true;
  d.algorithm = EigAlgorithm::kJacobi;
  d.full_matrices = false;
  d.compute_uv = true;
  d.eigenvectors = false;
  Bytes want;
  want.byte(1);  // the variant's index
  want.byte(static_cast<uint8_t>(SolverKind::kOrmqr)).byte(3);
  want.u64(2).u64(5).u64(4).u64(3).u64(7);
  want.byte(1).byte(0).byte(2).byte(1).byte(2).byte(0).byte(1).byte(0);
  EXPECT_EQ(encoded(&encodeLibraryOp, LibraryOp(d)), want.data);
}

TEST(LibraryCodecLayout, FftAndConv) {
  Bytes fft;
  fft.byte(0).byte(3).byte(1).list({8, 16}).u64(7);
  EXPECT_EQ(
      encoded(&encodeLibraryOp, LibraryOp(FftDesc{FftKind::kIrfft, true, {8, 16}, 7})),
      fft.data);

  ConvDesc c;
  c.kind = ConvKind::kBackwardFilter;
  c.element = ConvElement::kBF16;
  c.allow_tf32 = true;
  c.flip = false;
  c.x = {{1, 2}, {2, 1}};
  c.w = {{3}, {1}};
  c.y = {{4, 5}, {5, 1}};
  c.strides = {1};
  c.pre_padding = {0};
  c.post_padding = {2};
  c.dilations = {3};
  Bytes conv;
  conv.byte(2).byte(2).byte(1).byte(1).byte(0);
  conv.list({1, 2}).list({2, 1}).list({3}).list({1}).list({4, 5}).list({5, 1});
  conv.list({1}).list({0}).list({2}).list({3});
  EXPECT_EQ(encoded(&encodeLibraryOp, LibraryOp(c)), conv.data);
}

TEST(LibraryCodecLayout, CollectiveAndGroups) {
  CollectiveDesc d;
  d.kind = CollectiveKind::kCollectivePermute;
  d.type = CollectiveType::kF8E5M2;
  d.reduction = CollectiveReduction::kMax;
  d.ranks = 4;
  d.count = 10;
  d.pairs = {{0, 1}, {3, 2}};
  Bytes want;
  want.byte(static_cast<uint8_t>(CollectiveKind::kCollectivePermute))
      .byte(static_cast<uint8_t>(CollectiveType::kF8E5M2))
      .byte(static_cast<uint8_t>(CollectiveReduction::kMax));
  want.u64(4).u64(10).u64(2).u64(0).u64(1).u64(3).u64(2);
  EXPECT_EQ(encoded(&encodeCollective, d), want.data);

  CollectiveGroups g;
  g.mode = CollectiveGroupMode::kFlattenedIds;
  g.groups = {{0, 2}, {1}};
  g.pairs = {{5, 6}};
  Bytes groups;
  groups.byte(static_cast<uint8_t>(CollectiveGroupMode::kFlattenedIds));
  groups.u64(2).list({0, 2}).list({1}).u64(1).u64(5).u64(6);
  EXPECT_EQ(encoded(&encodeCollectiveGroups, g), groups.data);
}

}  // namespace
}  // namespace jft::runtime
