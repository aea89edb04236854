// The protobuf wire format, for the few messages we write or read ourselves
// without a protobuf library (the profiler's XSpace, tests that decode it):
// a writer that appends fields (tag = field << 3 | wire type) and nests
// messages as length-delimited fields, and a reader that walks fields and
// fails with a Status instead of reading past the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/status.h"

namespace jft::proto {

enum WireType : int { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class Writer {
 public:
  // int64/uint64/bool fields as varints (a negative int64 is ten bytes, as
  // protobuf writes it). Proto3 leaves zero fields out; so do these.
  void varintField(int field, uint64_t value);
  void int64Field(int field, int64_t value) {
    varintField(field, static_cast<uint64_t>(value));
  }
  void doubleField(int field, double value);
  void bytesField(int field, std::string_view value);  // strings, bytes, messages
  // Written even when empty: an empty message still counts as an element of
  // a repeated field.
  void messageField(int field, const Writer& message);
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void tag(int field, WireType type);
  void varint(uint64_t value);
  std::string out_;
};

// One field as read: `varint` for kVarint, `fixed` for the fixed types,
// `bytes` (a view into the input) for kLengthDelimited.
struct Field {
  int number = 0;
  WireType type = kVarint;
  uint64_t varint = 0;
  uint64_t fixed = 0;
  std::string_view bytes;
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return pos_ >= bytes_.size(); }
  // INVALID_ARGUMENT naming the byte offset for truncated or malformed input
  // (a varint over ten bytes, a length past the end, an unknown wire type).
  StatusOr<Field> next();

 private:
  StatusOr<uint64_t> varint();
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace jft::proto
