// A custom call's attributes and buffer shapes as bytes, for serialized
// executables: every field of ffi::Attribute (nested dictionaries included)
// and of ffi::BufferShape, little-endian (support/byte_stream.h).
#pragma once

#include "ffi/attributes.h"
#include "ffi/call_frame.h"
#include "support/byte_stream.h"

namespace jft::ffi {

void encodeAttribute(ByteWriter& out, const Attribute& attribute);
// INVALID_ARGUMENT for truncated bytes, an unknown kind, nesting deeper than
// 64 dictionaries, or names and values that do not pair up.
StatusOr<Attribute> decodeAttribute(ByteReader& in);

void encodeBufferShape(ByteWriter& out, const BufferShape& shape);
StatusOr<BufferShape> decodeBufferShape(ByteReader& in);

}  // namespace jft::ffi
