// The VHLO dialect's attribute and type encodings (StableHLO's
// VhloBytecode.cpp): a varint code, then the members in order. Codes are
// stable across StableHLO versions; unknown codes are errors, as they are
// for the reference reader.
#include "frontend/bytecode/attr_type_table.h"
#include "frontend/bytecode/shared_encodings.h"
#include "frontend/bytecode/values.h"
#include "frontend/bytecode/vhlo_enums.h"

namespace jft::frontend::bytecode {
namespace {

// The enum attribute codes (3, 4, 5, 7, 11, 12, 13, 16, 19) are in vhlo_enums.cc.
enum VhloAttrCode : uint64_t {
  kArrayV1 = 1,
  kBooleanV1 = 2,
  kDictionaryV1 = 6,
  kFloatV1 = 8,
  kIntegerV1 = 9,
  kOutputOperandAliasV1 = 10,
  kStringV1 = 14,
  kTensorV1 = 15,
  kTypeV1 = 17,
  kTypeExtensionsV1 = 18,
  kResultAccuracyV1 = 20,
  kSubAxisInfoV1 = 21,
  kAxisRefV1 = 22,
  kReplicaGroupMeshAxesV1 = 23,
  kMeshAxisV1 = 24,
  kMeshV1 = 25,
};

enum VhloTypeCode : uint64_t {
  kBooleanV1Type = 0,
  kComplexV1Type = 1,
  kFunctionV1Type = 8,
  kIndexV1Type = 9,
  kRankedTensorV1Type = 20,
  kRankedTensorV1TypeWithEncoding = 21,
  kTokenV1Type = 22,
  kTupleV1Type = 23,
  kUniformQuantizedV1Type = 24,
  kUnrankedTensorV1Type = 25,
  kWitnessV1Type = 26,
  kUniformQuantizedPerAxisV1Type = 30,
  kNoneV1Type = 33,
  kRankedBufferV1Type = 41,
  kFutureV1Type = 42,
};

// Float types without members, by code.
// clang-format off
constexpr FloatCode kVhloFloats[] = {
    {2, "bf16"}, {3, "f16"}, {4, "f32"}, {5, "f64"}, {6, "f8E4M3FN"}, {7, "f8E5M2"},
    {27, "f8E4M3FNUZ"}, {28, "f8E5M2FNUZ"}, {29, "f8E4M3B11FNUZ"}, {34, "tf32"},
    {35, "f8E4M3"}, {36, "f8E3M4"}, {37, "f4E2M1FN"}, {38, "f6E2M3FN"},
    {39, "f6E3M2FN"}, {40, "f8E8M0FNU"},
};
// clang-format on

// VHLO's "SI" integers are signless (StableHLO has no signed integers).
bool vhloIntegerType(uint64_t code, unsigned& width, MType::Signedness& signedness) {
  struct Entry {
    uint64_t code;
    unsigned width;
    bool is_unsigned;
  };
  static constexpr Entry kEntries[] = {
      {31, 2, false},  {10, 4, false},  {11, 8, false}, {12, 16, false},
      {13, 32, false}, {14, 64, false}, {32, 2, true},  {15, 4, true},
      {16, 8, true},   {17, 16, true},  {18, 32, true}, {19, 64, true},
  };
  for (const Entry& entry : kEntries) {
    if (entry.code != code) continue;
    width = entry.width;
    signedness =
        entry.is_unsigned ? MType::Signedness::Unsigned : MType::Signedness::Signless;
    return true;
  }
  return false;
}

std::shared_ptr<MAttr> newVhloAttr(MAttr::Kind kind, std::string name = "") {
  auto attr = newAttr("vhlo", kind);
  attr->name = std::move(name);
  return attr;
}

std::shared_ptr<MType> newVhloType(MType::Kind kind) {
  return newType("vhlo", kind);
}

MAttrPtr intList(std::vector<int64_t> ints) {
  auto attr = newVhloAttr(MAttr::Kind::IntList);
  attr->ints = std::move(ints);
  return attr;
}

MAttrPtr intField(int64_t value) {
  auto attr = newVhloAttr(MAttr::Kind::Integer);
  attr->int_value = value;
  return attr;
}

MAttrPtr f64Field(const std::vector<uint64_t>& words) {
  auto attr = newVhloAttr(MAttr::Kind::Float);
  attr->float_value = floatBitsToDouble("f64", words);
  attr->ints.assign(words.begin(), words.end());
  return attr;
}

Status readEnum(const VhloEnum& info, EntryReader& r, MAttrPtr& out) {
  size_t at = r.in.fileOffset();
  uint64_t value = 0;
  JFT_RETURN_IF_ERROR(r.varint(value));
  std::string name = "vhlo." + std::string(info.mnemonic);
  if (value >= info.cases.size() || info.cases[value].empty())
    return r.in.errorAt(at,
                        "expected a " + name + " value, found " + std::to_string(value));
  auto attr = newVhloAttr(MAttr::Kind::Enum, name);
  attr->int_value = static_cast<int64_t>(value);
  attr->str = std::string(info.cases[value]);
  out = attr;
  return Status::ok();
}

Status readTensor(EntryReader& r, MAttrPtr& out) {
  auto attr = newVhloAttr(MAttr::Kind::DenseElements);
  size_t type_at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.type(attr->type));
  if (attr->type->kind != MType::Kind::RankedTensor)
    return r.in.errorAt(type_at, "expected a ranked tensor type, found " +
                                     typeToString(attr->type.get()));
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  JFT_RETURN_IF_ERROR(r.blob(bytes, size));
  // Only 0xff alone is a splat (of true); another single byte may be packed.
  setDenseData(*attr, bytes, size, /*one_byte_is_splat=*/false);
  out = attr;
  return Status::ok();
}

Status readDictionary(EntryReader& r, MAttrPtr& out) {
  auto attr = newVhloAttr(MAttr::Kind::Dictionary);
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(r.in.readCount(count, "dictionary entries", 2));
  for (uint64_t i = 0; i < count; ++i) {
    size_t at = r.in.fileOffset();
    MAttrPtr name, value;
    JFT_RETURN_IF_ERROR(r.attr(name));
    if (name->kind != MAttr::Kind::String)
      return r.in.errorAt(at, "expected a string key");
    JFT_RETURN_IF_ERROR(r.attr(value));
    attr->entries.emplace_back(name->str, std::move(value));
  }
  out = attr;
  return Status::ok();
}

Status readStructAttr(uint64_t code, EntryReader& r, MAttrPtr& out) {
  std::shared_ptr<MAttr> attr;
  switch (code) {
    case kOutputOperandAliasV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.output_operand_alias_v1");
      std::vector<int64_t> output_tuple, operand_tuple;
      int64_t operand_index = 0;
      JFT_RETURN_IF_ERROR(r.svarints(output_tuple));
      JFT_RETURN_IF_ERROR(r.svarint(operand_index));
      JFT_RETURN_IF_ERROR(r.svarints(operand_tuple));
      attr->entries = {{"output_tuple_indices", intList(std::move(output_tuple))},
                       {"operand_index", intField(operand_index)},
                       {"operand_tuple_indices", intList(std::move(operand_tuple))}};
      break;
    }
    case kTypeExtensionsV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.type_extensions_v1");
      std::vector<int64_t> bounds;
      JFT_RETURN_IF_ERROR(r.svarints(bounds));
      attr->entries = {{"bounds", intList(std::move(bounds))}};
      break;
    }
    case kResultAccuracyV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.result_accuracy_v1");
      std::vector<uint64_t> atol, rtol;
      int64_t ulps = 0;
      MAttrPtr mode;
      JFT_RETURN_IF_ERROR(r.apInt(64, atol));
      JFT_RETURN_IF_ERROR(r.apInt(64, rtol));
      JFT_RETURN_IF_ERROR(r.svarint(ulps));
      size_t mode_at = r.in.fileOffset();
      JFT_RETURN_IF_ERROR(r.attr(mode));
      if (mode->kind != MAttr::Kind::Enum || mode->name != "vhlo.result_accuracy_mode_v1")
        return r.in.errorAt(mode_at, "expected a result accuracy mode");
      attr->entries = {{"atol", f64Field(atol)},
                       {"rtol", f64Field(rtol)},
                       {"ulps", intField(ulps)},
                       {"mode", mode}};
      break;
    }
    case kSubAxisInfoV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.sub_axis_info_v1");
      int64_t pre_size = 0, size = 0;
      JFT_RETURN_IF_ERROR(r.svarint(pre_size));
      JFT_RETURN_IF_ERROR(r.svarint(size));
      attr->entries = {{"pre_size", intField(pre_size)}, {"size", intField(size)}};
      break;
    }
    case kAxisRefV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.axis_ref_v1");
      MAttrPtr name, sub_axis_info;
      uint64_t has_sub_axis_info = 0;
      JFT_RETURN_IF_ERROR(r.attr(name));
      JFT_RETURN_IF_ERROR(r.varint(has_sub_axis_info));
      attr->entries = {{"name", name}};
      if (has_sub_axis_info) {
        JFT_RETURN_IF_ERROR(r.attr(sub_axis_info));
        attr->entries.emplace_back("sub_axis_info", sub_axis_info);
      }
      break;
    }
    case kReplicaGroupMeshAxesV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.replica_group_mesh_axes_v1");
      MAttrPtr mesh, axes;
      JFT_RETURN_IF_ERROR(r.attr(mesh));
      JFT_RETURN_IF_ERROR(r.attr(axes));
      attr->entries = {{"mesh", mesh}, {"axes", axes}};
      break;
    }
    case kMeshAxisV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.mesh_axis_v1");
      MAttrPtr name;
      int64_t size = 0;
      JFT_RETURN_IF_ERROR(r.attr(name));
      JFT_RETURN_IF_ERROR(r.svarint(size));
      attr->entries = {{"name", name}, {"size", intField(size)}};
      break;
    }
    case kMeshV1: {
      attr = newVhloAttr(MAttr::Kind::Struct, "vhlo.mesh_v1");
      MAttrPtr axes, device_ids;
      JFT_RETURN_IF_ERROR(r.attr(axes));
      JFT_RETURN_IF_ERROR(r.optionalAttr(device_ids));
      attr->entries = {{"axes", axes}};
      if (device_ids) attr->entries.emplace_back("device_ids", device_ids);
      break;
    }
    default:
      return r.in.error("expected a vhlo struct attribute code");
  }
  out = attr;
  return Status::ok();
}

Status readQuantized(uint64_t code, EntryReader& r, MTypePtr& out) {
  auto type = newVhloType(MType::Kind::Quantized);
  uint64_t flags = 0;
  MTypePtr storage, expressed;
  JFT_RETURN_IF_ERROR(r.varint(flags));
  JFT_RETURN_IF_ERROR(r.type(storage));
  JFT_RETURN_IF_ERROR(r.type(expressed));
  type->elements = {storage, expressed};
  std::string text = (flags & 1 ? "u" : "") + std::string("!quant.uniform<") +
                     typeToString(storage.get()) + ":" + typeToString(expressed.get());
  if (code == kUniformQuantizedV1Type) {
    std::vector<uint64_t> scale;
    int64_t zero_point = 0, storage_min = 0, storage_max = 0;
    JFT_RETURN_IF_ERROR(r.apInt(64, scale));
    JFT_RETURN_IF_ERROR(r.svarint(zero_point));
    JFT_RETURN_IF_ERROR(r.svarint(storage_min));
    JFT_RETURN_IF_ERROR(r.svarint(storage_max));
    text += ", " + std::to_string(floatBitsToDouble("f64", scale)) + ":" +
            std::to_string(zero_point) + ">";
  } else {
    uint64_t quantized_dimension = 0, count = 0;
    int64_t storage_min = 0, storage_max = 0;
    JFT_RETURN_IF_ERROR(r.varint(quantized_dimension));
    JFT_RETURN_IF_ERROR(r.svarint(storage_min));
    JFT_RETURN_IF_ERROR(r.svarint(storage_max));
    text += ":" + std::to_string(quantized_dimension) + ", {";
    JFT_RETURN_IF_ERROR(r.in.readCount(count, "scales"));
    std::vector<std::string> scales;
    for (uint64_t i = 0; i < count; ++i) {
      std::vector<uint64_t> scale;
      JFT_RETURN_IF_ERROR(r.apInt(64, scale));
      scales.push_back(std::to_string(floatBitsToDouble("f64", scale)));
    }
    JFT_RETURN_IF_ERROR(r.in.readCount(count, "zero points"));
    if (count != scales.size()) return r.in.error("expected one zero point per scale");
    for (uint64_t i = 0; i < count; ++i) {
      int64_t zero_point = 0;
      JFT_RETURN_IF_ERROR(r.svarint(zero_point));
      text += (i ? "," : "") + scales[i] + ":" + std::to_string(zero_point);
    }
    text += "}>";
  }
  type->text = std::move(text);
  out = type;
  return Status::ok();
}

}  // namespace

Status decodeVhloAttr(EntryReader& r, MAttrPtr& out) {
  size_t code_at = r.in.fileOffset();
  uint64_t code = 0;
  JFT_RETURN_IF_ERROR(r.varint(code));
  for (const VhloEnum& info : vhloEnums())
    if (info.code == code) return readEnum(info, r, out);
  switch (code) {
    case kArrayV1: {
      auto attr = newVhloAttr(MAttr::Kind::Array);
      JFT_RETURN_IF_ERROR(r.attrs(attr->elements));
      out = attr;
      return Status::ok();
    }
    case kBooleanV1: {
      size_t at = r.in.fileOffset();
      uint64_t value = 0;
      JFT_RETURN_IF_ERROR(r.varint(value));
      if (value > 1)
        return r.in.errorAt(
            at, "expected a boolean (0 or 1), found " + std::to_string(value));
      auto attr = newVhloAttr(MAttr::Kind::Bool);
      attr->int_value = static_cast<int64_t>(value);
      out = attr;
      return Status::ok();
    }
    case kDictionaryV1:
      return readDictionary(r, out);
    case kFloatV1: {
      auto attr = newVhloAttr(MAttr::Kind::Float);
      JFT_RETURN_IF_ERROR(readFloatMembers(r, *attr));
      out = attr;
      return Status::ok();
    }
    case kIntegerV1: {
      // At least 2 bits: booleans have an attribute of their own.
      auto attr = newVhloAttr(MAttr::Kind::Integer);
      JFT_RETURN_IF_ERROR(readIntegerMembers(r, *attr, 2));
      out = attr;
      return Status::ok();
    }
    case kStringV1: {
      auto attr = newVhloAttr(MAttr::Kind::String);
      JFT_RETURN_IF_ERROR(r.string(attr->str));
      out = attr;
      return Status::ok();
    }
    case kTensorV1:
      return readTensor(r, out);
    case kTypeV1: {
      auto attr = newVhloAttr(MAttr::Kind::TypeAttr);
      JFT_RETURN_IF_ERROR(r.type(attr->type));
      out = attr;
      return Status::ok();
    }
    case kOutputOperandAliasV1:
    case kTypeExtensionsV1:
    case kResultAccuracyV1:
    case kSubAxisInfoV1:
    case kAxisRefV1:
    case kReplicaGroupMeshAxesV1:
    case kMeshAxisV1:
    case kMeshV1:
      return readStructAttr(code, r, out);
  }
  return r.in.errorAt(
      code_at, "expected a vhlo attribute code (1..25), found " + std::to_string(code));
}

Status decodeVhloType(EntryReader& r, MTypePtr& out) {
  size_t code_at = r.in.fileOffset();
  uint64_t code = 0;
  JFT_RETURN_IF_ERROR(r.varint(code));
  if (const char* float_name = floatNameOf(kVhloFloats, code)) {
    out = makeFloatType("vhlo", float_name);
    return Status::ok();
  }
  unsigned width = 0;
  MType::Signedness signedness = MType::Signedness::Signless;
  if (vhloIntegerType(code, width, signedness)) {
    out = makeIntegerType("vhlo", width, signedness);
    return Status::ok();
  }
  switch (code) {
    case kBooleanV1Type:
      out = makeIntegerType("vhlo", 1, MType::Signedness::Signless);
      return Status::ok();
    case kIndexV1Type:
      out = makeSimpleType("vhlo", MType::Kind::Index);
      return Status::ok();
    case kTokenV1Type:
      out = makeSimpleType("vhlo", MType::Kind::Token);
      return Status::ok();
    case kNoneV1Type:
      out = makeSimpleType("vhlo", MType::Kind::None);
      return Status::ok();
    case kWitnessV1Type:
      out = makeOpaqueType("vhlo", "witness_v1");
      return Status::ok();
    case kComplexV1Type:
    case kUnrankedTensorV1Type: {
      auto type = newVhloType(code == kComplexV1Type ? MType::Kind::Complex
                                                     : MType::Kind::UnrankedTensor);
      type->elements.resize(1);
      JFT_RETURN_IF_ERROR(r.type(type->elements[0]));
      out = type;
      return Status::ok();
    }
    case kFunctionV1Type: {
      auto type = newVhloType(MType::Kind::Function);
      JFT_RETURN_IF_ERROR(readFunctionMembers(r, *type));
      out = type;
      return Status::ok();
    }
    case kRankedTensorV1Type:
    case kRankedTensorV1TypeWithEncoding:
    case kRankedBufferV1Type: {
      auto type = newVhloType(MType::Kind::RankedTensor);
      JFT_RETURN_IF_ERROR(
          readRankedTensorMembers(r, *type, code == kRankedTensorV1TypeWithEncoding));
      if (code == kRankedBufferV1Type) {
        type->kind = MType::Kind::Opaque;
        type->text = "buffer_v1";
      }
      out = type;
      return Status::ok();
    }
    case kTupleV1Type:
    case kFutureV1Type: {
      auto type = newVhloType(MType::Kind::Tuple);
      JFT_RETURN_IF_ERROR(r.types(type->elements));
      if (code == kFutureV1Type) {
        type->kind = MType::Kind::Opaque;
        type->text = "future_v1";
      }
      out = type;
      return Status::ok();
    }
    case kUniformQuantizedV1Type:
    case kUniformQuantizedPerAxisV1Type:
      return readQuantized(code, r, out);
  }
  return r.in.errorAt(code_at,
                      "expected a vhlo type code (0..42), found " + std::to_string(code));
}

}  // namespace jft::frontend::bytecode
