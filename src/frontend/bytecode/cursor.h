// A bounds-checked reader over one slice of the bytecode buffer.
//
// Every primitive of the format (bytes, the prefix-length varints, zigzag
// signed varints, flagged varints, NUL-terminated strings, section headers)
// is read here and nowhere else, so no other file indexes raw bytes. Errors
// name the absolute file offset and what was expected there, prefixed with
// the slice's label ("section 4 (IR)").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "support/status.h"

namespace jft::frontend::bytecode {

class Cursor {
 public:
  // `file_offset` is where `data` starts in the whole file (for messages and
  // for alignment, which the format defines relative to the file start).
  Cursor(const uint8_t* data, size_t size, size_t file_offset, std::string label)
      : data_(data), size_(size), file_offset_(file_offset), label_(std::move(label)) {}

  size_t remaining() const { return size_ - pos_; }
  bool empty() const { return pos_ == size_; }
  size_t fileOffset() const { return file_offset_ + pos_; }
  const std::string& label() const { return label_; }

  Status readByte(uint8_t& out);
  Status readBytes(size_t n, const uint8_t*& out);
  Status skip(size_t n);
  // The format's varint: the count of trailing zero bits of the first byte
  // says how many more bytes follow (0x00: eight more).
  Status readVarInt(uint64_t& out);
  // Zigzag-encoded: the low bit carries the sign.
  Status readSignedVarInt(int64_t& out);
  // (value << 1) | flag.
  Status readVarIntWithFlag(uint64_t& value, bool& flag);
  // A count that is about to size an allocation: it must not exceed the bytes
  // left, given that each element takes at least `min_bytes_each` bytes.
  Status readCount(uint64_t& out, const char* what, size_t min_bytes_each = 1);
  Status readCString(std::string_view& out);
  // Skips 0xCB padding bytes up to the next multiple of `alignment`.
  Status alignTo(uint64_t alignment);

  // A cursor over the next `n` bytes, which this cursor then skips.
  Status subCursor(size_t n, std::string label, Cursor& out);

  // "section 4 (IR): at offset 0x1f3: <message>"
  Status error(const std::string& message) const;
  Status errorAt(size_t file_offset, const std::string& message) const;

 private:
  Status endOfInput(const char* expected) const;

  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  size_t file_offset_;
  std::string label_;
};

std::string hexOffset(size_t offset);

}  // namespace jft::frontend::bytecode
