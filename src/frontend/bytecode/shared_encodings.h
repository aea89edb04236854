// The members VHLO encodes exactly as the builtin dialect does (VHLO mirrors
// builtin's integer and float attributes and its function and tensor types),
// read once for both codecs; each codec keeps its own codes and dialect name.
#pragma once

#include <cstdint>
#include <span>

#include "frontend/bytecode/attr_type_table.h"

namespace jft::frontend::bytecode {

// A float type without members: its code in one dialect, and its name.
struct FloatCode {
  uint64_t code;
  const char* name;
};

// The name of `code` in `table`; nullptr when it is not a float code.
const char* floatNameOf(std::span<const FloatCode> table, uint64_t code);

// An integer attribute: its type (integer or index, at least `min_width`
// bits wide), then the value, sign-extended as the type says.
Status readIntegerMembers(EntryReader& r, MAttr& attr, unsigned min_width);

// A float attribute: its float type, then the value's bits.
Status readFloatMembers(EntryReader& r, MAttr& attr);

// A function type: the inputs, then the results, as one element list.
Status readFunctionMembers(EntryReader& r, MType& type);

// A ranked tensor type: the encoding when `with_encoding`, the shape, then
// the element type.
Status readRankedTensorMembers(EntryReader& r, MType& type, bool with_encoding);

// A dense tensor's blob into attr.data. i1 elements are normalized to one
// 0/1 byte each: a blob of ceil(n/8) bytes (n != its size) is bit-packed, any
// other one byte per element; a single byte is a splat when it is 0xff, and
// always when `one_byte_is_splat` (the builtin encoding).
void setDenseData(MAttr& attr, const uint8_t* bytes, size_t size, bool one_byte_is_splat);

}  // namespace jft::frontend::bytecode
