#include "frontend/bytecode/cursor.h"

#include <cstring>

namespace jft::frontend::bytecode {

std::string hexOffset(size_t offset) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%zx", offset);
  return buf;
}

Status Cursor::errorAt(size_t file_offset, const std::string& message) const {
  std::string text = "at offset " + hexOffset(file_offset) + ": " + message;
  if (!label_.empty()) text = label_ + ": " + text;
  return invalidArgument(std::move(text));
}

Status Cursor::error(const std::string& message) const {
  return errorAt(fileOffset(), message);
}

Status Cursor::endOfInput(const char* expected) const {
  return error(std::string("expected ") + expected + ", found end of input");
}

Status Cursor::readByte(uint8_t& out) {
  if (empty()) return endOfInput("a byte");
  out = data_[pos_++];
  return Status::ok();
}

Status Cursor::readBytes(size_t n, const uint8_t*& out) {
  if (n > remaining()) {
    return error("expected " + std::to_string(n) + " bytes, found only " +
                 std::to_string(remaining()));
  }
  out = data_ + pos_;
  pos_ += n;
  return Status::ok();
}

Status Cursor::skip(size_t n) {
  const uint8_t* ignored = nullptr;
  return readBytes(n, ignored);
}

Status Cursor::readVarInt(uint64_t& out) {
  if (empty()) return endOfInput("a varint");
  uint8_t first = data_[pos_];
  if (first & 1) {
    ++pos_;
    out = first >> 1;
    return Status::ok();
  }
  // Trailing zeros of the marker byte = number of extra bytes (0x00 means 8).
  unsigned extra = 8;
  if (first != 0) {
    extra = 0;
    while (!((first >> extra) & 1)) ++extra;
  }
  if (remaining() < 1 + extra) return endOfInput("a varint");
  uint64_t value = 0;
  for (unsigned i = 0; i < extra; ++i)
    value |= static_cast<uint64_t>(data_[pos_ + 1 + i]) << (8 * i);
  if (extra < 8) {
    // The first byte's bits above the marker are the lowest value bits.
    value = (value << (7 - extra)) | (static_cast<uint64_t>(first) >> (extra + 1));
  }
  pos_ += 1 + extra;
  out = value;
  return Status::ok();
}

Status Cursor::readSignedVarInt(int64_t& out) {
  uint64_t raw = 0;
  JFT_RETURN_IF_ERROR(readVarInt(raw));
  out = static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
  return Status::ok();
}

Status Cursor::readVarIntWithFlag(uint64_t& value, bool& flag) {
  JFT_RETURN_IF_ERROR(readVarInt(value));
  flag = value & 1;
  value >>= 1;
  return Status::ok();
}

Status Cursor::readCount(uint64_t& out, const char* what, size_t min_bytes_each) {
  size_t at = fileOffset();
  JFT_RETURN_IF_ERROR(readVarInt(out));
  if (min_bytes_each == 0) min_bytes_each = 1;
  if (out > remaining() / min_bytes_each) {
    return errorAt(at, std::string("expected a count of ") + what + " that fits in the " +
                           std::to_string(remaining()) + " remaining bytes, found " +
                           std::to_string(out));
  }
  return Status::ok();
}

Status Cursor::readCString(std::string_view& out) {
  const void* nul = empty() ? nullptr : std::memchr(data_ + pos_, 0, remaining());
  if (!nul) return endOfInput("a NUL-terminated string");
  size_t len = static_cast<const uint8_t*>(nul) - (data_ + pos_);
  out = std::string_view(reinterpret_cast<const char*>(data_ + pos_), len);
  pos_ += len + 1;
  return Status::ok();
}

Status Cursor::alignTo(uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > (1u << 20)) {
    return error("expected a power-of-two alignment, found " + std::to_string(alignment));
  }
  while (fileOffset() % alignment != 0) {
    uint8_t pad = 0;
    JFT_RETURN_IF_ERROR(readByte(pad));
    if (pad != 0xCB) {
      return errorAt(fileOffset() - 1,
                     "expected alignment padding byte 0xcb, found " + hexOffset(pad));
    }
  }
  return Status::ok();
}

Status Cursor::subCursor(size_t n, std::string label, Cursor& out) {
  size_t start = fileOffset();
  const uint8_t* bytes = nullptr;
  JFT_RETURN_IF_ERROR(readBytes(n, bytes));
  out = Cursor(bytes, n, start, std::move(label));
  return Status::ok();
}

}  // namespace jft::frontend::bytecode
