// Attribute and buffer-shape encodings.
#include "ffi/attribute_codec.h"

namespace jft::ffi {
namespace {

constexpr int kMaxDepth = 64;

// The data type as its ABI number; any value an int holds round-trips (the
// call frame's encoder is what refuses types attributes cannot hold).
StatusOr<XLA_FFI_DataType> decodeDataType(ByteReader& in, const char* what) {
  JFT_ASSIGN_OR_RETURN(int value, in.i32(what));
  return static_cast<XLA_FFI_DataType>(value);
}

StatusOr<Attribute> decodeAt(ByteReader& in, int depth) {
  if (depth > kMaxDepth)
    return invalidArgument("FFI attributes nest deeper than " +
                           std::to_string(kMaxDepth) + " dictionaries");
  Attribute attribute;
  JFT_ASSIGN_OR_RETURN(uint8_t kind, in.enumeration("attribute kind", 3));
  attribute.kind = static_cast<Attribute::Kind>(kind);
  JFT_ASSIGN_OR_RETURN(attribute.dtype, decodeDataType(in, "attribute type"));
  JFT_ASSIGN_OR_RETURN(std::string bytes, in.bytes("attribute data"));
  attribute.bytes.assign(bytes.begin(), bytes.end());
  JFT_ASSIGN_OR_RETURN(uint64_t count, in.u64("attribute element count"));
  // Every element is at least a byte: a larger count could only wrap the
  // product the call frame's encoder checks.
  if (count > attribute.bytes.size())
    return invalidArgument("an FFI array attribute counts " + std::to_string(count) +
                           " elements in " + std::to_string(attribute.bytes.size()) +
                           " bytes");
  attribute.count = static_cast<size_t>(count);
  JFT_ASSIGN_OR_RETURN(attribute.text, in.bytes("attribute text"));
  JFT_ASSIGN_OR_RETURN(size_t names, in.count("attribute names", 8));
  for (size_t i = 0; i < names; ++i) {
    JFT_ASSIGN_OR_RETURN(std::string name, in.bytes("attribute name"));
    attribute.names.push_back(std::move(name));
  }
  // An attribute takes at least its kind, type, three lengths and a count.
  JFT_ASSIGN_OR_RETURN(size_t values, in.count("attribute values", 37));
  if (values != names)
    return invalidArgument("an FFI dictionary attribute has " + std::to_string(names) +
                           " names but " + std::to_string(values) + " values");
  for (size_t i = 0; i < values; ++i) {
    JFT_ASSIGN_OR_RETURN(Attribute value, decodeAt(in, depth + 1));
    attribute.values.push_back(std::move(value));
  }
  return attribute;
}

}  // namespace

void encodeAttribute(ByteWriter& out, const Attribute& attribute) {
  out.u8(static_cast<uint8_t>(attribute.kind));
  out.i64(static_cast<int64_t>(attribute.dtype));
  out.bytes(std::string_view(reinterpret_cast<const char*>(attribute.bytes.data()),
                             attribute.bytes.size()));
  out.u64(attribute.count);
  out.bytes(attribute.text);
  out.u64(attribute.names.size());
  for (const std::string& name : attribute.names) out.bytes(name);
  out.u64(attribute.values.size());
  for (const Attribute& value : attribute.values) encodeAttribute(out, value);
}

StatusOr<Attribute> decodeAttribute(ByteReader& in) {
  return decodeAt(in, 0);
}

void encodeBufferShape(ByteWriter& out, const BufferShape& shape) {
  out.i64(static_cast<int64_t>(shape.dtype));
  out.ints(shape.dims);
}

StatusOr<BufferShape> decodeBufferShape(ByteReader& in) {
  BufferShape shape;
  JFT_ASSIGN_OR_RETURN(shape.dtype, decodeDataType(in, "buffer element type"));
  JFT_ASSIGN_OR_RETURN(shape.dims, in.i64s("buffer rank", "buffer dim"));
  return shape;
}

}  // namespace jft::ffi
