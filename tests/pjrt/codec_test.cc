// The byte stream and the encodings of the library descriptions and FFI
// attributes: every field survives a round trip, and bad bytes are refused
// with a message instead of being read past their end.
#include <gtest/gtest.h>

#include <cstring>

#include "ffi/attribute_codec.h"
#include "runtime/library_codec.h"
#include "support/byte_stream.h"

namespace jft {
namespace {

TEST(ByteStream, LittleEndianLayoutAndRoundTrip) {
  ByteWriter out;
  out.u32(0x01020304u);
  out.i64(-2);
  out.f64(0.5);
  out.bytes("ab");
  const std::string& b = out.data();
  // The layout a little-endian reader on any host expects.
  ASSERT_EQ(b.size(), 4u + 8 + 8 + 8 + 2);
  EXPECT_EQ(b.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
  EXPECT_EQ(b.substr(4, 8), std::string(8, '\xff').replace(0, 1, "\xfe"));
  uint64_t half = 0;
  double value = 0.5;
  std::memcpy(&half, &value, 8);
  EXPECT_EQ(static_cast<unsigned char>(b[20 - 1]), half >> 56);
  ByteReader in(b);
  EXPECT_EQ(*in.u32("x"), 0x01020304u);
  EXPECT_EQ(*in.i64("x"), -2);
  EXPECT_EQ(*in.f64("x"), 0.5);
  EXPECT_EQ(*in.bytes("x"), "ab");
  EXPECT_EQ(in.left(), 0u);
}

TEST(ByteStream, RefusesWhatTheBytesCannotHold) {
  ByteWriter out;
  out.u64(1000);  // a length with nothing behind it
  ByteReader lengths(out.data());
  auto bytes = lengths.bytes("kernel binary");
  ASSERT_FALSE(bytes.isOk());
  EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bytes.status().message().find("kernel binary"), std::string::npos);
  ByteReader counts(out.data());
  EXPECT_FALSE(counts.count("slots", 8).isOk());
  ByteReader shortRead(std::string_view("\x01\x02", 2));
  EXPECT_NE(shortRead.u32("version").status().message().find("truncated"),
            std::string::npos);
  ByteReader badEnum(std::string_view("\x07", 1));
  EXPECT_FALSE(badEnum.enumeration("kind", 3).isOk());
  ByteReader badBool(std::string_view("\x02", 1));
  EXPECT_FALSE(badBool.boolean("flag").isOk());
}

TEST(ByteStream, Fnv1aMatchesItsPublishedVectors) {
  // FNV-1a 64 test vectors (Fowler/Noll/Vo).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ull);
}

template <typename T, typename Decode>
T roundTrip(const T& value, void (*encode)(ByteWriter&, const T&), Decode decode) {
  ByteWriter out;
  encode(out, value);
  ByteReader in(out.data());
  auto decoded = decode(in);
  EXPECT_TRUE(decoded.isOk()) << decoded.status().toString();
  EXPECT_EQ(in.left(), 0u);
  // Every strict prefix is refused, never read past.
  for (size_t n = 0; n < out.data().size(); ++n) {
    ByteReader prefix(std::string_view(out.data()).substr(0, n));
    EXPECT_FALSE(decode(prefix).isOk()) << "prefix of " << n << " bytes";
  }
  return decoded.isOk() ? *decoded : T{};
}

TEST(LibraryCodec, EveryDescriptionRoundTrips) {
  runtime::GemmDesc gemm;
  gemm.a = {runtime::GemmType::kBF16, true, 17, 289};
  gemm.b = {runtime::GemmType::kF16, false, 5, 0};
  gemm.d_type = runtime::GemmType::kC64;
  gemm.d_ld = 9;
  gemm.d_batch_stride = 81;
  gemm.compute = runtime::GemmCompute::kTf32;
  gemm.batch = 3;
  gemm.m = 4;
  gemm.n = 5;
  gemm.k = 6;
  gemm.alpha = -1.25;
  gemm.beta = 0.75;
  gemm.bias = true;
  gemm.epilogue = runtime::GemmEpilogue::kRelu;
  EXPECT_EQ(roundTrip(gemm, &runtime::encodeGemm, runtime::decodeGemm), gemm);

  runtime::FftDesc fft{runtime::FftKind::kIrfft, true, {8, 16}, 7};
  runtime::LibraryOp op = fft;
  EXPECT_EQ(roundTrip(op, &runtime::encodeLibraryOp, runtime::decodeLibraryOp), op);

  runtime::SolverDesc solver;
  solver.kind = runtime::SolverKind::kOrmqr;
  solver.type = runtime::SolverType::kC128;
  solver.batch = 2;
  solver.m = 5;
  solver.n = 4;
  solver.k = 3;
  solver.reflector_cols = 3;
  solver.lower = true;
  solver.left_side = false;
  solver.transpose = runtime::SolverTranspose::kAdjoint;
  solver.unit_diagonal = true;
  solver.algorithm = runtime::EigAlgorithm::kJacobi;
  solver.full_matrices = false;
  solver.compute_uv = false;
  solver.eigenvectors = false;
  op = solver;
  EXPECT_EQ(roundTrip(op, &runtime::encodeLibraryOp, runtime::decodeLibraryOp), op);

  runtime::ConvDesc conv;
  conv.kind = runtime::ConvKind::kBackwardFilter;
  conv.element = runtime::ConvElement::kBF16;
  conv.allow_tf32 = true;
  conv.flip = true;
  conv.x = {{1, 2, 3, 4}, {24, 12, 4, 1}};
  conv.w = {{5, 2, 1, 1}, {2, 1, 1, 1}};
  conv.y = {{1, 5, 3, 4}, {60, 12, 4, 1}};
  conv.strides = {1, 2};
  conv.pre_padding = {0, 1};
  conv.post_padding = {1, 0};
  conv.dilations = {2, 1};
  op = conv;
  EXPECT_EQ(roundTrip(op, &runtime::encodeLibraryOp, runtime::decodeLibraryOp), op);

  runtime::CollectiveDesc collective;
  collective.kind = runtime::CollectiveKind::kCollectivePermute;
  collective.type = runtime::CollectiveType::kF8E5M2;
  collective.reduction = runtime::CollectiveReduction::kMax;
  collective.ranks = 4;
  collective.count = 12;
  collective.pairs = {{0, 1}, {3, 2}};
  EXPECT_EQ(roundTrip(collective, &runtime::encodeCollective, runtime::decodeCollective),
            collective);

  runtime::CollectiveGroups groups;
  groups.mode = runtime::CollectiveGroupMode::kFlattenedIds;
  groups.groups = {{0, 2}, {1, 3}};
  groups.pairs = {{1, 0}};
  EXPECT_EQ(roundTrip(groups, &runtime::encodeCollectiveGroups,
                      runtime::decodeCollectiveGroups),
            groups);
}

TEST(LibraryCodec, UnknownKindsAreRefusedByName) {
  ByteWriter out;
  out.u8(3);  // no fourth library description
  ByteReader in(out.data());
  auto op = runtime::decodeLibraryOp(in);
  ASSERT_FALSE(op.isOk());
  EXPECT_NE(op.status().message().find("library operation kind"), std::string::npos);
}

bool sameAttribute(const ffi::Attribute& a, const ffi::Attribute& b) {
  if (a.kind != b.kind || a.dtype != b.dtype || a.bytes != b.bytes ||
      a.count != b.count || a.text != b.text || a.names != b.names ||
      a.values.size() != b.values.size())
    return false;
  for (size_t i = 0; i < a.values.size(); ++i)
    if (!sameAttribute(a.values[i], b.values[i])) return false;
  return true;
}

TEST(AttributeCodec, NestedDictionariesRoundTrip) {
  int32_t scalar = -7;
  double array[3] = {1.5, -2.0, 3.25};
  ffi::Attribute inner = ffi::Attribute::dictionary(
      {"mode", "values"},
      {ffi::Attribute::string("fast"),
       ffi::Attribute::array(XLA_FFI_DataType_F64, array, 3, sizeof(double))});
  ffi::Attribute top = ffi::Attribute::dictionary(
      {"config", "n"},
      {inner, ffi::Attribute::scalar(XLA_FFI_DataType_S32, &scalar, sizeof(scalar))});
  ffi::Attribute back = roundTrip(top, &ffi::encodeAttribute, ffi::decodeAttribute);
  EXPECT_TRUE(sameAttribute(top, back));
  ASSERT_EQ(back.values.size(), 2u);
  EXPECT_EQ(back.values[0].values[0].text, "fast");
  // The decoded attributes encode for a handler as the originals do.
  EXPECT_TRUE(ffi::EncodedAttributes::encode(back).isOk());

  ffi::BufferShape shape{XLA_FFI_DataType_BF16, {2, 0, 3}};
  ffi::BufferShape shapeBack =
      roundTrip(shape, &ffi::encodeBufferShape, ffi::decodeBufferShape);
  EXPECT_EQ(shapeBack.dtype, shape.dtype);
  EXPECT_EQ(shapeBack.dims, shape.dims);
}

TEST(AttributeCodec, AnArrayCountBeyondItsBytesIsRefused) {
  // 2^61 eight-byte elements in 0 bytes: the product wraps to 0.
  ffi::Attribute attribute;
  attribute.kind = ffi::Attribute::Kind::kArray;
  attribute.dtype = XLA_FFI_DataType_F64;
  attribute.count = size_t{1} << 61;
  ByteWriter out;
  ffi::encodeAttribute(out, attribute);
  ByteReader in(out.data());
  auto decoded = ffi::decodeAttribute(in);
  ASSERT_FALSE(decoded.isOk());
  EXPECT_NE(decoded.status().message().find("elements in 0 bytes"), std::string::npos)
      << decoded.status().message();
}

TEST(AttributeCodec, DeepNestingIsRefusedNotRecursedWithoutEnd) {
  // 100 dictionaries, each holding the next: more than any program has.
  ffi::Attribute attribute = ffi::Attribute::string("leaf");
  for (int i = 0; i < 100; ++i)
    attribute = ffi::Attribute::dictionary({"x"}, {attribute});
  ByteWriter out;
  ffi::encodeAttribute(out, attribute);
  ByteReader in(out.data());
  auto decoded = ffi::decodeAttribute(in);
  ASSERT_FALSE(decoded.isOk());
  EXPECT_NE(decoded.status().message().find("deeper"), std::string::npos);
}

}  // namespace
}  // namespace jft
