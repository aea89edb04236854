#include "support/proto_wire.h"

#include <cstring>

namespace jft::proto {

void Writer::varint(uint64_t value) {
  while (value >= 0x80) {
    out_.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out_.push_back(static_cast<char>(value));
}

void Writer::tag(int field, WireType type) {
  varint((static_cast<uint64_t>(field) << 3) | static_cast<uint64_t>(type));
}

void Writer::varintField(int field, uint64_t value) {
  if (value == 0) return;
  tag(field, kVarint);
  varint(value);
}

void Writer::doubleField(int field, double value) {
  if (value == 0.0) return;
  tag(field, kFixed64);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(bits >> (8 * i)));
}

void Writer::bytesField(int field, std::string_view value) {
  if (value.empty()) return;
  tag(field, kLengthDelimited);
  varint(value.size());
  out_.append(value);
}

void Writer::messageField(int field, const Writer& message) {
  tag(field, kLengthDelimited);
  varint(message.out_.size());
  out_.append(message.out_);
}

namespace {
Status malformed(const std::string& what, size_t at) {
  return invalidArgument("malformed protobuf: " + what + " at byte " +
                         std::to_string(at));
}
}  // namespace

StatusOr<uint64_t> Reader::varint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= bytes_.size()) return malformed("a varint runs past the end", pos_);
    const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return value;
  }
  return malformed("a varint longer than ten bytes", pos_);
}

StatusOr<Field> Reader::next() {
  const size_t start = pos_;
  JFT_ASSIGN_OR_RETURN(uint64_t key, varint());
  Field field;
  field.number = static_cast<int>(key >> 3);
  if (field.number <= 0) return malformed("field number 0", start);
  switch (key & 7) {
    case kVarint: {
      field.type = kVarint;
      JFT_ASSIGN_OR_RETURN(field.varint, varint());
      return field;
    }
    case kFixed64:
    case kFixed32: {
      const size_t width = (key & 7) == kFixed64 ? 8 : 4;
      field.type = (key & 7) == kFixed64 ? kFixed64 : kFixed32;
      if (bytes_.size() - pos_ < width)
        return malformed("a fixed field runs past the end", pos_);
      for (size_t i = 0; i < width; ++i)
        field.fixed |= static_cast<uint64_t>(static_cast<uint8_t>(bytes_[pos_ + i]))
                       << (8 * i);
      pos_ += width;
      return field;
    }
    case kLengthDelimited: {
      field.type = kLengthDelimited;
      JFT_ASSIGN_OR_RETURN(uint64_t length, varint());
      if (length > bytes_.size() - pos_)
        return malformed("a length runs past the end", pos_);
      field.bytes = bytes_.substr(pos_, length);
      pos_ += length;
      return field;
    }
    default:
      return malformed("wire type " + std::to_string(key & 7), start);
  }
}

}  // namespace jft::proto
