// The format's primitives, checked against encodings written from the
// format document (test_support.cc) and a few spelled out by hand.
#include "frontend/bytecode/cursor.h"

#include <gtest/gtest.h>

#include "test_support.h"

namespace jft::frontend::bytecode {
namespace {

using bytecode_test::encodeSignedVarInt;
using bytecode_test::encodeVarInt;

uint64_t decode(const std::vector<uint8_t>& bytes, size_t* consumed = nullptr) {
  Cursor in(bytes.data(), bytes.size(), 0, "test");
  uint64_t value = 0;
  Status status = in.readVarInt(value);
  EXPECT_TRUE(status.isOk()) << status.toString();
  if (consumed) *consumed = bytes.size() - in.remaining();
  return value;
}

TEST(VarInt, HandWrittenEncodings) {
  EXPECT_EQ(decode({0x01}), 0u);
  EXPECT_EQ(decode({0x03}), 1u);
  EXPECT_EQ(decode({0xFF}), 127u);
  EXPECT_EQ(decode({0x02, 0x02}), 128u);  // 128 << 2 | 0b10
  EXPECT_EQ(decode({0xFE, 0xFF}), 16383u);
  EXPECT_EQ(decode({0x04, 0x00, 0x02}), 16384u);  // 16384 << 3 | 0b100
  EXPECT_EQ(decode({0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), UINT64_MAX);
}

TEST(VarInt, RoundTripsEveryLength) {
  std::vector<uint64_t> values = {0,
                                  1,
                                  63,
                                  127,
                                  128,
                                  300,
                                  16383,
                                  16384,
                                  (1ull << 21) - 1,
                                  1ull << 21,
                                  (1ull << 28) + 5,
                                  1ull << 35,
                                  (1ull << 42) + 7,
                                  (1ull << 49) - 1,
                                  (1ull << 56) - 1,
                                  1ull << 56,
                                  1ull << 63,
                                  UINT64_MAX};
  for (uint64_t v : values) {
    std::vector<uint8_t> bytes = encodeVarInt(v);
    size_t consumed = 0;
    EXPECT_EQ(decode(bytes, &consumed), v);
    EXPECT_EQ(consumed, bytes.size()) << v;
  }
}

TEST(VarInt, SignedIsZigZag) {
  for (int64_t v : {int64_t(0), int64_t(-1), int64_t(1), int64_t(-64), int64_t(1) << 40,
                    INT64_MIN, INT64_MAX}) {
    std::vector<uint8_t> bytes = encodeSignedVarInt(v);
    Cursor in(bytes.data(), bytes.size(), 0, "");
    int64_t out = 0;
    ASSERT_TRUE(in.readSignedVarInt(out).isOk());
    EXPECT_EQ(out, v);
  }
  std::vector<uint8_t> minus_one = {0x03};  // zigzag 1
  Cursor in(minus_one.data(), 1, 0, "");
  int64_t out = 0;
  ASSERT_TRUE(in.readSignedVarInt(out).isOk());
  EXPECT_EQ(out, -1);
}

TEST(VarInt, TruncationNamesTheOffset) {
  std::vector<uint8_t> bytes = {0x01, 0x04, 0x00};  // second varint needs 3 bytes
  Cursor in(bytes.data(), bytes.size(), 0x1f0, "section 4 (IR)");
  uint64_t v = 0;
  ASSERT_TRUE(in.readVarInt(v).isOk());
  Status status = in.readVarInt(v);
  ASSERT_FALSE(status.isOk());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "section 4 (IR): at offset 0x1f1: expected a varint, found end of input");
}

TEST(Cursor, FlaggedVarIntAndStrings) {
  std::vector<uint8_t> bytes = {0x0B, 'a', 'b', 0, 'c'};  // 5 = (2 << 1) | 1
  Cursor in(bytes.data(), bytes.size(), 0, "");
  uint64_t value = 0;
  bool flag = false;
  ASSERT_TRUE(in.readVarIntWithFlag(value, flag).isOk());
  EXPECT_EQ(value, 2u);
  EXPECT_TRUE(flag);
  std::string_view s;
  ASSERT_TRUE(in.readCString(s).isOk());
  EXPECT_EQ(s, "ab");
  EXPECT_FALSE(in.readCString(s).isOk());  // no NUL after "c"
}

TEST(Cursor, CountsAreCheckedAgainstRemainingBytes) {
  std::vector<uint8_t> bytes = encodeVarInt(1000);
  bytes.push_back(0);
  Cursor in(bytes.data(), bytes.size(), 0, "");
  uint64_t count = 0;
  Status status = in.readCount(count, "things");
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("at offset 0x0"), std::string::npos)
      << status.message();
}

TEST(Cursor, AlignmentUsesPaddingBytes) {
  std::vector<uint8_t> bytes = {0xCB, 0xCB, 0xCB, 7, 0xCB, 0x00};
  Cursor in(bytes.data(), bytes.size(), 1, "");  // starts at file offset 1
  ASSERT_TRUE(in.alignTo(4).isOk());
  EXPECT_EQ(in.fileOffset(), 4u);
  uint8_t b = 0;
  ASSERT_TRUE(in.readByte(b).isOk());
  EXPECT_EQ(b, 7);
  ASSERT_TRUE(in.alignTo(2).isOk());   // offset 5 -> 6 over 0xCB
  EXPECT_FALSE(in.alignTo(3).isOk());  // not a power of two
  Cursor bad(bytes.data() + 5, 1, 5, "");
  EXPECT_FALSE(bad.alignTo(2).isOk());  // 0x00 is not padding
}

}  // namespace
}  // namespace jft::frontend::bytecode
