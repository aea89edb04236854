// ByteWriter / ByteReader.
#include "support/byte_stream.h"

#include <cstring>
#include <limits>

namespace jft {
namespace {

// "<what> at byte <at> is <value>, <why>": a field read whole but out of its
// range.
Status badValue(const char* what, size_t at, int64_t value, const std::string& why) {
  return invalidArgument(std::string(what) + " at byte " + std::to_string(at) + " is " +
                         std::to_string(value) + ", " + why);
}

// "truncated: <what> at byte <at> <detail>": a field the bytes left cannot
// hold.
Status truncated(const char* what, size_t at, const std::string& detail) {
  return invalidArgument("truncated: " + std::string(what) + " at byte " +
                         std::to_string(at) + " " + detail);
}

}  // namespace

void ByteWriter::fixed(uint64_t value, int width) {
  for (int i = 0; i < width; ++i) out_.push_back(static_cast<char>(value >> (8 * i)));
}

void ByteWriter::f64(double value) {
  uint64_t bits = 0;
  static_assert(sizeof(bits) == sizeof(value));
  std::memcpy(&bits, &value, sizeof(bits));
  u64(bits);
}

void ByteWriter::bytes(std::string_view value) {
  u64(value.size());
  out_.append(value);
}

StatusOr<uint64_t> ByteReader::fixed(const char* what, int width) {
  if (left() < static_cast<size_t>(width))
    return truncated(
        what, offset_,
        "needs " + std::to_string(width) + " bytes, " + std::to_string(left()) + " left");
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes_[offset_ + i]);
  offset_ += static_cast<size_t>(width);
  return value;
}

template <typename T>
StatusOr<T> ByteReader::fixedAs(const char* what) {
  JFT_ASSIGN_OR_RETURN(uint64_t value, fixed(what, static_cast<int>(sizeof(T))));
  return static_cast<T>(value);
}

StatusOr<uint8_t> ByteReader::u8(const char* what) {
  return fixedAs<uint8_t>(what);
}

StatusOr<bool> ByteReader::boolean(const char* what) {
  const size_t at = offset_;
  JFT_ASSIGN_OR_RETURN(uint8_t value, u8(what));
  if (value > 1) return badValue(what, at, value, "not a boolean");
  return value == 1;
}

StatusOr<uint32_t> ByteReader::u32(const char* what) {
  return fixedAs<uint32_t>(what);
}

StatusOr<uint64_t> ByteReader::u64(const char* what) {
  return fixedAs<uint64_t>(what);
}

StatusOr<int64_t> ByteReader::i64(const char* what) {
  return fixedAs<int64_t>(what);
}

StatusOr<int> ByteReader::i32(const char* what) {
  const size_t at = offset_;
  JFT_ASSIGN_OR_RETURN(int64_t value, i64(what));
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    return badValue(what, at, value, "out of range");
  return static_cast<int>(value);
}

StatusOr<double> ByteReader::f64(const char* what) {
  JFT_ASSIGN_OR_RETURN(uint64_t bits, fixed(what, 8));
  double value = 0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

StatusOr<std::string> ByteReader::bytes(const char* what) {
  const size_t at = offset_;
  JFT_ASSIGN_OR_RETURN(uint64_t size, u64(what));
  if (size > left())
    return truncated(
        what, at,
        "claims " + std::to_string(size) + " bytes, " + std::to_string(left()) + " left");
  std::string value(bytes_.substr(offset_, static_cast<size_t>(size)));
  offset_ += static_cast<size_t>(size);
  return value;
}

template <typename T>
StatusOr<std::vector<T>> ByteReader::list(const char* count_what, const char* item_what,
                                          StatusOr<T> (ByteReader::*read)(const char*)) {
  JFT_ASSIGN_OR_RETURN(size_t count, this->count(count_what, 8));
  std::vector<T> values;
  values.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(T value, (this->*read)(item_what));
    values.push_back(value);
  }
  return values;
}

StatusOr<std::vector<int64_t>> ByteReader::i64s(const char* count_what,
                                                const char* item_what) {
  return list<int64_t>(count_what, item_what, &ByteReader::i64);
}

StatusOr<std::vector<int>> ByteReader::i32s(const char* what) {
  return list<int>(what, what, &ByteReader::i32);
}

StatusOr<size_t> ByteReader::count(const char* what, size_t min_item_bytes) {
  const size_t at = offset_;
  JFT_ASSIGN_OR_RETURN(uint64_t value, u64(what));
  const size_t each = min_item_bytes == 0 ? 1 : min_item_bytes;
  if (value > left() / each)
    return truncated(what, at,
                     "counts " + std::to_string(value) + " items, more than the " +
                         std::to_string(left()) + " bytes left can hold");
  return static_cast<size_t>(value);
}

StatusOr<uint8_t> ByteReader::enumeration(const char* what, uint8_t max) {
  const size_t at = offset_;
  JFT_ASSIGN_OR_RETURN(uint8_t value, u8(what));
  if (value > max)
    return badValue(what, at, value,
                    "not one of the " + std::to_string(int(max) + 1) + " known values");
  return value;
}

uint64_t fnv1a64(std::string_view bytes) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace jft
