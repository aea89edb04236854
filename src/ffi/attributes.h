// A custom call's attributes as an FFI handler receives them: scalars, dense
// arrays, strings and dictionaries (XLA_FFI_AttrType), and their encoding into
// the XLA_FFI_Attrs of a call frame (names sorted, since handlers search them
// by bisection; a dictionary's value is a nested XLA_FFI_Attrs).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "ffi/c_abi.h"
#include "support/status.h"

namespace jft::ffi {

struct Attribute {
  enum class Kind : uint8_t { kScalar, kArray, kString, kDictionary };
  Kind kind = Kind::kScalar;
  XLA_FFI_DataType dtype = XLA_FFI_DataType_INVALID;  // kScalar, kArray
  std::vector<uint8_t> bytes;                         // kScalar: one element; kArray: all
  size_t count = 0;                                   // kArray: elements
  std::string text;                                   // kString
  std::vector<std::string> names;                     // kDictionary, parallel to `values`
  std::vector<Attribute> values;

  static Attribute scalar(XLA_FFI_DataType dtype, const void* data, size_t bytes);
  static Attribute array(XLA_FFI_DataType dtype, const void* data, size_t count,
                         size_t element_bytes);
  static Attribute string(std::string text);
  static Attribute dictionary(std::vector<std::string> names,
                              std::vector<Attribute> values);
};

// Bytes of one element of an attribute's type; 0 for types attributes do not
// hold (pred is one byte).
size_t attributeElementBytes(XLA_FFI_DataType dtype);

// Owns the encoded form; addresses stay valid as long as it lives.
class EncodedAttributes {
 public:
  // INVALID_ARGUMENT for duplicate names, a scalar of the wrong size, or an
  // element type an attribute cannot hold.
  static StatusOr<std::unique_ptr<EncodedAttributes>> encode(const Attribute& dictionary);
  const XLA_FFI_Attrs& attrs() const { return *top_; }

 private:
  StatusOr<XLA_FFI_Attrs*> encodeDictionary(const Attribute& dictionary);
  StatusOr<void*> encodeValue(const Attribute& value);

  struct Table {
    XLA_FFI_Attrs attrs{};
    std::vector<XLA_FFI_AttrType> types;
    std::vector<XLA_FFI_ByteSpan*> names;
    std::vector<void*> values;
  };
  std::deque<Table> tables_;
  std::deque<XLA_FFI_ByteSpan> spans_;
  std::deque<XLA_FFI_Scalar> scalars_;
  std::deque<XLA_FFI_Array> arrays_;
  std::deque<std::vector<uint8_t>> data_;
  std::deque<std::string> strings_;
  XLA_FFI_Attrs* top_ = nullptr;
};

}  // namespace jft::ffi
