// Little-endian byte strings for our own binary formats (serialized
// executables): a writer that appends fixed-width integers, doubles and
// length-prefixed strings, and a reader that takes them back and fails with a
// Status (INVALID_ARGUMENT naming what it was reading and where) instead of
// reading past the end. Lengths are checked against the bytes left, so a
// corrupt count never allocates more than the input could hold.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace jft {

class ByteWriter {
 public:
  void u8(uint8_t value) { out_.push_back(static_cast<char>(value)); }
  void boolean(bool value) { u8(value ? 1 : 0); }
  void u32(uint32_t value) { fixed(value, 4); }
  void u64(uint64_t value) { fixed(value, 8); }
  void i64(int64_t value) { fixed(static_cast<uint64_t>(value), 8); }
  void f64(double value);
  // u64 length, then the bytes.
  void bytes(std::string_view value);
  // u64 count, then each value as an i64: the one list form of our formats,
  // whatever the width the caller holds its integers in.
  template <typename Int>
  void ints(const std::vector<Int>& values) {
    u64(values.size());
    for (Int value : values) i64(static_cast<int64_t>(value));
  }
  const std::string& data() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void fixed(uint64_t value, int width);
  std::string out_;
};

// Each read returns the value or INVALID_ARGUMENT "truncated: <what> at byte
// N"; `what` names the field for the message.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}
  StatusOr<uint8_t> u8(const char* what);
  StatusOr<bool> boolean(const char* what);  // only 0 or 1
  StatusOr<uint32_t> u32(const char* what);
  StatusOr<uint64_t> u64(const char* what);
  StatusOr<int64_t> i64(const char* what);
  StatusOr<int> i32(const char* what);  // an i64 in [INT32_MIN, INT32_MAX]
  StatusOr<double> f64(const char* what);
  StatusOr<std::string> bytes(const char* what);
  // A count of items each at least `min_item_bytes` long (at least 1): refused
  // when the bytes left cannot hold that many.
  StatusOr<size_t> count(const char* what, size_t min_item_bytes);
  // A list ByteWriter::ints wrote, `what` naming its count and each item (or
  // `count_what` the count, `item_what` each item); the i32 form refuses an
  // item outside int's range.
  StatusOr<std::vector<int64_t>> i64s(const char* what) { return i64s(what, what); }
  StatusOr<std::vector<int64_t>> i64s(const char* count_what, const char* item_what);
  StatusOr<std::vector<int>> i32s(const char* what);
  // An enum stored as u8: refused when above `max`.
  StatusOr<uint8_t> enumeration(const char* what, uint8_t max);
  size_t offset() const { return offset_; }
  size_t left() const { return bytes_.size() - offset_; }

 private:
  StatusOr<uint64_t> fixed(const char* what, int width);
  // `fixed` at T's width, as T.
  template <typename T>
  StatusOr<T> fixedAs(const char* what);
  // A counted list, each item read by `read` (i64 or i32).
  template <typename T>
  StatusOr<std::vector<T>> list(const char* count_what, const char* item_what,
                                StatusOr<T> (ByteReader::*read)(const char*));
  std::string_view bytes_;
  size_t offset_ = 0;
};

// FNV-1a, 64 bits: a checksum against corruption, not an authenticator.
uint64_t fnv1a64(std::string_view bytes);

}  // namespace jft
