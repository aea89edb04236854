// support/proto_wire.h: what the writer emits is the protobuf encoding
// (checked against hand-encoded bytes from the wire-format spec), the reader
// takes it back, and malformed input is an error, never a read past the end.
#include "support/proto_wire.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace jft::proto {
namespace {

TEST(ProtoWire, WritesTheSpecsEncoding) {
  Writer w;
  w.varintField(1, 150);  // the spec's example: 08 96 01
  w.bytesField(2, "testing");
  w.int64Field(3, 0);  // proto3 leaves zero out
  EXPECT_EQ(w.data(), std::string("\x08\x96\x01\x12\x07testing", 12));
}

TEST(ProtoWire, NegativeInt64IsTenBytes) {
  Writer w;
  w.int64Field(1, -1);
  EXPECT_EQ(w.data().size(), 11u);
  Reader r(w.data());
  auto f = r.next();
  ASSERT_TRUE(f.isOk());
  EXPECT_EQ(static_cast<int64_t>(f->varint), -1);
}

TEST(ProtoWire, RoundTripsNestedMessagesAndDoubles) {
  Writer inner;
  inner.doubleField(7, 2.5);
  Writer outer;
  outer.messageField(4, inner);
  outer.messageField(4, Writer());  // an empty element still counts
  Reader r(outer.data());
  auto first = r.next();
  ASSERT_TRUE(first.isOk());
  EXPECT_EQ(first->number, 4);
  EXPECT_EQ(first->type, kLengthDelimited);
  Reader nested(first->bytes);
  auto value = nested.next();
  ASSERT_TRUE(value.isOk());
  EXPECT_EQ(value->type, kFixed64);
  double d = 0;
  std::memcpy(&d, &value->fixed, sizeof(d));
  EXPECT_EQ(d, 2.5);
  auto second = r.next();
  ASSERT_TRUE(second.isOk());
  EXPECT_TRUE(second->bytes.empty());
  EXPECT_TRUE(r.done());
}

TEST(ProtoWire, RefusesMalformedInput) {
  for (const std::string& bad :
       {std::string("\x12\x05"
                    "abc",
                    5),
        std::string("\x08\x96", 2), std::string("\x0b", 1), std::string("\x00\x01", 2),
        std::string("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12),
        std::string("\x09\x01\x02", 3)}) {
    Reader r(bad);
    Status status = Status::ok();
    while (!r.done() && status.isOk()) status = r.next().status();
    EXPECT_FALSE(status.isOk()) << "accepted " << bad.size() << " bytes";
    EXPECT_NE(status.message().find("malformed protobuf"), std::string::npos);
  }
}

}  // namespace
}  // namespace jft::proto
