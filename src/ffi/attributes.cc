#include "ffi/attributes.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "support/enum_table.h"

namespace jft::ffi {
namespace {

// The XLA_FFI_AttrType a handler sees for each kind of attribute.
constexpr EnumMapping<Attribute::Kind, XLA_FFI_AttrType> kAttrTypes[] = {
    {Attribute::Kind::kScalar, XLA_FFI_AttrType_SCALAR},
    {Attribute::Kind::kArray, XLA_FFI_AttrType_ARRAY},
    {Attribute::Kind::kString, XLA_FFI_AttrType_STRING},
    {Attribute::Kind::kDictionary, XLA_FFI_AttrType_DICTIONARY},
};

}  // namespace

Attribute Attribute::scalar(XLA_FFI_DataType dtype, const void* data, size_t bytes) {
  Attribute a;
  a.kind = Kind::kScalar;
  a.dtype = dtype;
  a.bytes.assign(static_cast<const uint8_t*>(data),
                 static_cast<const uint8_t*>(data) + bytes);
  return a;
}

Attribute Attribute::array(XLA_FFI_DataType dtype, const void* data, size_t count,
                           size_t element_bytes) {
  Attribute a;
  a.kind = Kind::kArray;
  a.dtype = dtype;
  a.count = count;
  const auto* begin = static_cast<const uint8_t*>(data);
  a.bytes.assign(begin, begin + count * element_bytes);
  return a;
}

Attribute Attribute::string(std::string text) {
  Attribute a;
  a.kind = Kind::kString;
  a.text = std::move(text);
  return a;
}

Attribute Attribute::dictionary(std::vector<std::string> names,
                                std::vector<Attribute> values) {
  Attribute a;
  a.kind = Kind::kDictionary;
  a.names = std::move(names);
  a.values = std::move(values);
  return a;
}

size_t attributeElementBytes(XLA_FFI_DataType dtype) {
  switch (dtype) {
    case XLA_FFI_DataType_PRED:
    case XLA_FFI_DataType_S8:
    case XLA_FFI_DataType_U8:
      return 1;
    case XLA_FFI_DataType_S16:
    case XLA_FFI_DataType_U16:
    case XLA_FFI_DataType_F16:
    case XLA_FFI_DataType_BF16:
      return 2;
    case XLA_FFI_DataType_S32:
    case XLA_FFI_DataType_U32:
    case XLA_FFI_DataType_F32:
      return 4;
    case XLA_FFI_DataType_S64:
    case XLA_FFI_DataType_U64:
    case XLA_FFI_DataType_F64:
    case XLA_FFI_DataType_C64:
      return 8;
    case XLA_FFI_DataType_C128:
      return 16;
    default:
      return 0;
  }
}

StatusOr<std::unique_ptr<EncodedAttributes>> EncodedAttributes::encode(
    const Attribute& dictionary) {
  if (dictionary.kind != Attribute::Kind::kDictionary)
    return invalidArgument("a custom call's attributes must form a dictionary");
  std::unique_ptr<EncodedAttributes> encoded(new EncodedAttributes());
  JFT_ASSIGN_OR_RETURN(encoded->top_, encoded->encodeDictionary(dictionary));
  return encoded;
}

StatusOr<void*> EncodedAttributes::encodeValue(const Attribute& value) {
  switch (value.kind) {
    case Attribute::Kind::kScalar: {
      const size_t element = attributeElementBytes(value.dtype);
      if (element == 0 || value.bytes.size() != element)
        return invalidArgument("a scalar attribute of FFI type " +
                               std::to_string(static_cast<int>(value.dtype)) + " holds " +
                               std::to_string(value.bytes.size()) + " bytes");
      std::vector<uint8_t>& bytes = data_.emplace_back(value.bytes);
      return static_cast<void*>(
          &scalars_.emplace_back(XLA_FFI_Scalar{value.dtype, bytes.data()}));
    }
    case Attribute::Kind::kArray: {
      const size_t element = attributeElementBytes(value.dtype);
      if (element == 0 || value.bytes.size() != value.count * element)
        return invalidArgument("an array attribute of FFI type " +
                               std::to_string(static_cast<int>(value.dtype)) + " holds " +
                               std::to_string(value.bytes.size()) + " bytes for " +
                               std::to_string(value.count) + " elements");
      std::vector<uint8_t>& bytes = data_.emplace_back(value.bytes);
      return static_cast<void*>(
          &arrays_.emplace_back(XLA_FFI_Array{value.dtype, value.count, bytes.data()}));
    }
    case Attribute::Kind::kString: {
      const std::string& text = strings_.emplace_back(value.text);
      return static_cast<void*>(
          &spans_.emplace_back(XLA_FFI_ByteSpan{text.data(), text.size()}));
    }
    case Attribute::Kind::kDictionary: {
      JFT_ASSIGN_OR_RETURN(XLA_FFI_Attrs * nested, encodeDictionary(value));
      return static_cast<void*>(nested);
    }
  }
  return internalError("unknown attribute kind");
}

StatusOr<XLA_FFI_Attrs*> EncodedAttributes::encodeDictionary(
    const Attribute& dictionary) {
  if (dictionary.names.size() != dictionary.values.size())
    return internalError("a dictionary attribute with " +
                         std::to_string(dictionary.names.size()) + " names and " +
                         std::to_string(dictionary.values.size()) + " values");
  std::vector<size_t> order(dictionary.names.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return dictionary.names[a] < dictionary.names[b];
  });
  for (size_t i = 1; i < order.size(); ++i)
    if (dictionary.names[order[i]] == dictionary.names[order[i - 1]])
      return invalidArgument("attribute '" + dictionary.names[order[i]] +
                             "' is given twice");
  Table& table = tables_.emplace_back();
  for (size_t i : order) {
    static_assert(XLA_FFI_AttrType_SCALAR == 3);
    const XLA_FFI_AttrType type =
        mapOf(kAttrTypes, dictionary.values[i].kind, XLA_FFI_AttrType_SCALAR);
    JFT_ASSIGN_OR_RETURN(void* value, encodeValue(dictionary.values[i]));
    const std::string& name = strings_.emplace_back(dictionary.names[i]);
    table.types.push_back(type);
    table.names.push_back(
        &spans_.emplace_back(XLA_FFI_ByteSpan{name.data(), name.size()}));
    table.values.push_back(value);
  }
  table.attrs.struct_size = JFT_ABI_SIZE_UP_TO(XLA_FFI_Attrs, attrs);
  table.attrs.extension_start = nullptr;
  table.attrs.size = static_cast<int64_t>(table.types.size());
  table.attrs.types = table.types.data();
  table.attrs.names = table.names.data();
  table.attrs.attrs = table.values.data();
  return &table.attrs;
}

}  // namespace jft::ffi
