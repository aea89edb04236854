#include "frontend/bytecode/shared_encodings.h"

#include "frontend/bytecode/values.h"

namespace jft::frontend::bytecode {

const char* floatNameOf(std::span<const FloatCode> table, uint64_t code) {
  for (const FloatCode& entry : table)
    if (entry.code == code) return entry.name;
  return nullptr;
}

Status readIntegerMembers(EntryReader& r, MAttr& attr, unsigned min_width) {
  size_t type_at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.type(attr.type));
  auto width = integerStorageWidth(*attr.type);
  if (!width || *width < min_width)
    return r.in.errorAt(type_at, "expected an integer or index type, found " +
                                     typeToString(attr.type.get()));
  std::vector<uint64_t> words;
  JFT_RETURN_IF_ERROR(r.apInt(*width, words));
  attr.int_value = extendInteger(words[0], *width, attr.type->signedness);
  return Status::ok();
}

Status readFloatMembers(EntryReader& r, MAttr& attr) {
  size_t type_at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.type(attr.type));
  auto width = attr.type->kind == MType::Kind::Float
                   ? floatBitWidth(attr.type->float_name)
                   : std::nullopt;
  if (!width)
    return r.in.errorAt(type_at,
                        "expected a float type, found " + typeToString(attr.type.get()));
  std::vector<uint64_t> words;
  JFT_RETURN_IF_ERROR(r.apInt(*width, words));
  attr.float_value = floatBitsToDouble(attr.type->float_name, words);
  attr.ints.assign(words.begin(), words.end());
  return Status::ok();
}

Status readFunctionMembers(EntryReader& r, MType& type) {
  std::vector<MTypePtr> results;
  JFT_RETURN_IF_ERROR(r.types(type.elements));
  JFT_RETURN_IF_ERROR(r.types(results));
  type.num_inputs = type.elements.size();
  type.elements.insert(type.elements.end(), results.begin(), results.end());
  return Status::ok();
}

Status readRankedTensorMembers(EntryReader& r, MType& type, bool with_encoding) {
  if (with_encoding) JFT_RETURN_IF_ERROR(r.attr(type.encoding));
  type.elements.resize(1);
  JFT_RETURN_IF_ERROR(r.svarints(type.shape));
  return r.type(type.elements[0]);
}

void setDenseData(MAttr& attr, const uint8_t* bytes, size_t size,
                  bool one_byte_is_splat) {
  attr.data.assign(bytes, bytes + size);
  const MType* element = tensorElementType(*attr.type);
  if (element == nullptr || !isI1(*element)) return;
  auto count = staticElementCount(*attr.type);
  const bool splat = size == 1 && (one_byte_is_splat || bytes[0] == 0xff);
  if (!splat && count && size == (*count + 7) / 8 && size != *count) {
    attr.data.assign(*count, 0);
    for (uint64_t i = 0; i < *count; ++i) attr.data[i] = (bytes[i / 8] >> (i % 8)) & 1;
    return;
  }
  for (uint8_t& byte : attr.data) byte = byte ? 1 : 0;
}

}  // namespace jft::frontend::bytecode
