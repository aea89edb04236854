// The builtin dialect's attribute and type encodings (MLIR's
// BuiltinDialectBytecode.td): a varint code, then the members in order.
#include <cstring>

#include "frontend/bytecode/attr_type_table.h"
#include "frontend/bytecode/shared_encodings.h"
#include "frontend/bytecode/values.h"

namespace jft::frontend::bytecode {
namespace {

enum BuiltinAttrCode : uint64_t {
  kArray = 0,
  kDictionary = 1,
  kString = 2,
  kStringWithType = 3,
  kFlatSymbolRef = 4,
  kSymbolRef = 5,
  kTypeAttr = 6,
  kUnit = 7,
  kInteger = 8,
  kFloat = 9,
  kCallSiteLoc = 10,
  kFileLineColLoc = 11,
  kFusedLoc = 12,
  kFusedLocWithMetadata = 13,
  kNameLoc = 14,
  kUnknownLoc = 15,
  kDenseResourceElements = 16,
  kDenseArray = 17,
  kDenseIntOrFpElements = 18,
  kDenseStringElements = 19,
  kSparseElements = 20,
  kDistinct = 21,
  kFileLineColRange = 22,
};

enum BuiltinTypeCode : uint64_t {
  kIntegerType = 0,
  kIndexType = 1,
  kFunctionType = 2,
  kComplexType = 9,
  kMemRefType = 10,
  kMemRefTypeWithMemSpace = 11,
  kNoneType = 12,
  kRankedTensorType = 13,
  kRankedTensorTypeWithEncoding = 14,
  kTupleType = 15,
  kUnrankedMemRefType = 16,
  kUnrankedMemRefTypeWithMemSpace = 17,
  kUnrankedTensorType = 18,
  kVectorType = 19,
  kVectorTypeWithScalableDims = 20,
};

// Float types without members, by code.
// clang-format off
constexpr FloatCode kBuiltinFloats[] = {
    {3, "bf16"}, {4, "f16"}, {5, "f32"}, {6, "f64"}, {7, "f80"}, {8, "f128"},
    {21, "tf32"}, {22, "f8E5M2"}, {23, "f8E4M3"}, {24, "f8E4M3FN"}, {25, "f8E5M2FNUZ"},
    {26, "f8E4M3FNUZ"}, {27, "f8E4M3B11FNUZ"}, {28, "f8E3M4"}, {29, "f4E2M1FN"},
    {30, "f6E2M3FN"}, {31, "f6E3M2FN"}, {32, "f8E8M0FNU"},
};
// clang-format on

std::shared_ptr<MAttr> newBuiltinAttr(MAttr::Kind kind) {
  return newAttr("builtin", kind);
}

std::shared_ptr<MAttr> newLoc(MAttr::LocKind loc_kind) {
  auto attr = newBuiltinAttr(MAttr::Kind::Location);
  attr->loc_kind = loc_kind;
  return attr;
}

// A member that must be a string attribute (names, file names).
Status stringMember(EntryReader& r, std::string& out) {
  size_t at = r.in.fileOffset();
  MAttrPtr attr;
  JFT_RETURN_IF_ERROR(r.attr(attr));
  if (attr->kind != MAttr::Kind::String)
    return r.in.errorAt(at, "expected a string attribute");
  out = attr->str;
  return Status::ok();
}

Status locationMember(EntryReader& r, MAttrPtr& out) {
  size_t at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.attr(out));
  if (out->kind != MAttr::Kind::Location) return r.in.errorAt(at, "expected a location");
  return Status::ok();
}

Status shapedTypeMember(EntryReader& r, MTypePtr& out) {
  size_t at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.type(out));
  if (out->kind != MType::Kind::RankedTensor &&
      out->kind != MType::Kind::UnrankedTensor && out->kind != MType::Kind::Opaque)
    return r.in.errorAt(at, "expected a shaped type, found " + typeToString(out.get()));
  return Status::ok();
}

// The elements attributes (dense, resource, sparse), whose first member is
// their shaped type.
StatusOr<std::shared_ptr<MAttr>> newElementsAttr(EntryReader& r, MAttr::Kind kind) {
  auto attr = newBuiltinAttr(kind);
  JFT_RETURN_IF_ERROR(shapedTypeMember(r, attr->type));
  return attr;
}

Status readDenseIntOrFp(EntryReader& r, MAttrPtr& out) {
  JFT_ASSIGN_OR_RETURN(auto attr, newElementsAttr(r, MAttr::Kind::DenseElements));
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  JFT_RETURN_IF_ERROR(r.blob(bytes, size));
  // A single byte is a splat (0x00 or 0xff), whatever the element count.
  setDenseData(*attr, bytes, size, /*one_byte_is_splat=*/true);
  out = attr;
  return Status::ok();
}

Status readDenseString(EntryReader& r, MAttrPtr& out) {
  JFT_ASSIGN_OR_RETURN(auto attr, newElementsAttr(r, MAttr::Kind::DenseString));
  uint64_t is_splat = 0;
  JFT_RETURN_IF_ERROR(r.varint(is_splat));
  uint64_t count = 1;
  if (!is_splat) {
    auto static_count = staticElementCount(*attr->type);
    if (!static_count)
      return r.in.error("expected a static shape for dense string elements");
    count = *static_count;
    if (count > r.in.remaining())
      return r.in.error("expected " + std::to_string(count) + " strings, found only " +
                        std::to_string(r.in.remaining()) + " bytes");
  }
  attr->strings.resize(count);
  for (auto& s : attr->strings) JFT_RETURN_IF_ERROR(r.string(s));
  out = attr;
  return Status::ok();
}

Status readDenseArray(EntryReader& r, MAttrPtr& out) {
  auto attr = newBuiltinAttr(MAttr::Kind::DenseArray);
  JFT_RETURN_IF_ERROR(r.type(attr->type));
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(r.varint(count));
  const uint8_t* bytes = nullptr;
  size_t size = 0;
  size_t blob_at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.blob(bytes, size));
  attr->data.assign(bytes, bytes + size);
  unsigned width = 0;
  if (auto int_width = integerStorageWidth(*attr->type)) {
    width = *int_width;
  } else if (attr->type->kind == MType::Kind::Float) {
    width = floatBitWidth(attr->type->float_name).value_or(0);
  }
  if (width == 0) {
    out = attr;
    return Status::ok();
  }
  uint64_t element_bytes = (width + 7) / 8;
  if (count > size || count * element_bytes != size) {
    return r.in.errorAt(blob_at, "expected " + std::to_string(count) + " elements of " +
                                     std::to_string(element_bytes) +
                                     " bytes, found a blob of " + std::to_string(size));
  }
  if (attr->type->kind != MType::Kind::Float) {
    attr->ints.reserve(count);
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t bits = 0;
      for (uint64_t b = 0; b < element_bytes && b < 8; ++b)
        bits |= static_cast<uint64_t>(bytes[i * element_bytes + b]) << (8 * b);
      attr->ints.push_back(extendInteger(bits, width, attr->type->signedness));
    }
  }
  out = attr;
  return Status::ok();
}

Status readFileLineColRange(EntryReader& r, MAttrPtr& out) {
  auto loc = newLoc(MAttr::LocKind::FileLineCol);
  JFT_RETURN_IF_ERROR(stringMember(r, loc->str));
  uint64_t count = 0;
  size_t at = r.in.fileOffset();
  JFT_RETURN_IF_ERROR(r.varint(count));
  if (count > 4)
    return r.in.errorAt(
        at, "expected at most 4 line/column numbers, found " + std::to_string(count));
  uint64_t v[4] = {0, 0, 0, 0};
  for (uint64_t i = 0; i < count; ++i) JFT_RETURN_IF_ERROR(r.varint(v[i]));
  // 1: line; 2: line, col; 3: line, col, end col; 4: all four.
  int64_t line = int64_t(v[0]), col = int64_t(v[1]);
  switch (count) {
    case 0:
      loc->ints = {0, 0, 0, 0};
      break;
    case 1:
      loc->ints = {line, 0, line, 0};
      break;
    case 2:
      loc->ints = {line, col, line, col};
      break;
    case 3:
      loc->ints = {line, col, line, int64_t(v[2])};
      break;
    default:
      loc->ints = {line, col, int64_t(v[2]), int64_t(v[3])};
      break;
  }
  out = loc;
  return Status::ok();
}

Status readLocation(uint64_t code, EntryReader& r, MAttrPtr& out) {
  switch (code) {
    case kCallSiteLoc: {
      auto loc = newLoc(MAttr::LocKind::CallSite);
      loc->elements.resize(2);
      JFT_RETURN_IF_ERROR(locationMember(r, loc->elements[0]));
      JFT_RETURN_IF_ERROR(locationMember(r, loc->elements[1]));
      out = loc;
      return Status::ok();
    }
    case kFileLineColLoc: {
      auto loc = newLoc(MAttr::LocKind::FileLineCol);
      uint64_t line = 0, col = 0;
      JFT_RETURN_IF_ERROR(stringMember(r, loc->str));
      JFT_RETURN_IF_ERROR(r.varint(line));
      JFT_RETURN_IF_ERROR(r.varint(col));
      loc->ints = {int64_t(line), int64_t(col), int64_t(line), int64_t(col)};
      out = loc;
      return Status::ok();
    }
    case kFusedLoc:
    case kFusedLocWithMetadata: {
      auto loc = newLoc(MAttr::LocKind::Fused);
      uint64_t count = 0;
      JFT_RETURN_IF_ERROR(r.in.readCount(count, "locations"));
      loc->elements.resize(count);
      for (auto& child : loc->elements) JFT_RETURN_IF_ERROR(locationMember(r, child));
      if (code == kFusedLocWithMetadata) {
        MAttrPtr metadata;
        JFT_RETURN_IF_ERROR(r.attr(metadata));
        loc->entries.emplace_back("metadata", metadata);
      }
      out = loc;
      return Status::ok();
    }
    case kNameLoc: {
      auto loc = newLoc(MAttr::LocKind::Name);
      loc->elements.resize(1);
      JFT_RETURN_IF_ERROR(stringMember(r, loc->str));
      JFT_RETURN_IF_ERROR(locationMember(r, loc->elements[0]));
      out = loc;
      return Status::ok();
    }
    case kUnknownLoc:
      out = makeUnknownLoc();
      return Status::ok();
    case kFileLineColRange:
      return readFileLineColRange(r, out);
  }
  return r.in.error("expected a builtin location code");
}

}  // namespace

Status decodeBuiltinAttr(EntryReader& r, MAttrPtr& out) {
  size_t code_at = r.in.fileOffset();
  uint64_t code = 0;
  JFT_RETURN_IF_ERROR(r.varint(code));
  switch (code) {
    case kArray: {
      auto attr = newBuiltinAttr(MAttr::Kind::Array);
      JFT_RETURN_IF_ERROR(r.attrs(attr->elements));
      out = attr;
      return Status::ok();
    }
    case kDictionary: {
      auto attr = newBuiltinAttr(MAttr::Kind::Dictionary);
      uint64_t count = 0;
      JFT_RETURN_IF_ERROR(r.in.readCount(count, "dictionary entries", 2));
      for (uint64_t i = 0; i < count; ++i) {
        std::string name;
        MAttrPtr value;
        JFT_RETURN_IF_ERROR(stringMember(r, name));
        JFT_RETURN_IF_ERROR(r.attr(value));
        attr->entries.emplace_back(std::move(name), std::move(value));
      }
      out = attr;
      return Status::ok();
    }
    case kString:
    case kStringWithType: {
      auto attr = newBuiltinAttr(MAttr::Kind::String);
      JFT_RETURN_IF_ERROR(r.string(attr->str));
      if (code == kStringWithType) JFT_RETURN_IF_ERROR(r.type(attr->type));
      out = attr;
      return Status::ok();
    }
    case kFlatSymbolRef:
    case kSymbolRef: {
      auto attr = newBuiltinAttr(MAttr::Kind::SymbolRef);
      JFT_RETURN_IF_ERROR(stringMember(r, attr->str));
      if (code == kSymbolRef) {
        uint64_t count = 0;
        JFT_RETURN_IF_ERROR(r.in.readCount(count, "nested references"));
        for (uint64_t i = 0; i < count; ++i) {
          size_t at = r.in.fileOffset();
          MAttrPtr nested;
          JFT_RETURN_IF_ERROR(r.attr(nested));
          if (nested->kind != MAttr::Kind::SymbolRef)
            return r.in.errorAt(at, "expected a symbol reference");
          attr->elements.push_back(std::move(nested));
        }
      }
      out = attr;
      return Status::ok();
    }
    case kTypeAttr: {
      auto attr = newBuiltinAttr(MAttr::Kind::TypeAttr);
      JFT_RETURN_IF_ERROR(r.type(attr->type));
      out = attr;
      return Status::ok();
    }
    case kUnit:
      out = newBuiltinAttr(MAttr::Kind::Unit);
      return Status::ok();
    case kInteger: {
      auto attr = newBuiltinAttr(MAttr::Kind::Integer);
      JFT_RETURN_IF_ERROR(readIntegerMembers(r, *attr, 0));
      if (isI1(*attr->type)) attr->kind = MAttr::Kind::Bool;
      out = attr;
      return Status::ok();
    }
    case kFloat: {
      auto attr = newBuiltinAttr(MAttr::Kind::Float);
      JFT_RETURN_IF_ERROR(readFloatMembers(r, *attr));
      out = attr;
      return Status::ok();
    }
    case kCallSiteLoc:
    case kFileLineColLoc:
    case kFusedLoc:
    case kFusedLocWithMetadata:
    case kNameLoc:
    case kUnknownLoc:
    case kFileLineColRange:
      return readLocation(code, r, out);
    case kDenseResourceElements: {
      JFT_ASSIGN_OR_RETURN(auto attr, newElementsAttr(r, MAttr::Kind::DenseElements));
      const DialectResource* resource = nullptr;
      JFT_RETURN_IF_ERROR(r.table.resources().read(r.in, resource));
      attr->name = resource->key;
      if (resource->has_blob) {
        attr->data = resource->blob;
      } else {
        attr->kind = MAttr::Kind::Opaque;
        attr->str = "dense_resource<" + resource->key + ">";
      }
      out = attr;
      return Status::ok();
    }
    case kDenseArray:
      return readDenseArray(r, out);
    case kDenseIntOrFpElements:
      return readDenseIntOrFp(r, out);
    case kDenseStringElements:
      return readDenseString(r, out);
    case kSparseElements: {
      JFT_ASSIGN_OR_RETURN(auto attr, newElementsAttr(r, MAttr::Kind::Opaque));
      attr->name = "sparse";
      attr->elements.resize(2);
      JFT_RETURN_IF_ERROR(r.attr(attr->elements[0]));
      JFT_RETURN_IF_ERROR(r.attr(attr->elements[1]));
      out = attr;
      return Status::ok();
    }
    case kDistinct: {
      auto attr = newBuiltinAttr(MAttr::Kind::Opaque);
      attr->name = "distinct";
      attr->elements.resize(1);
      JFT_RETURN_IF_ERROR(r.attr(attr->elements[0]));
      out = attr;
      return Status::ok();
    }
  }
  return r.in.errorAt(code_at, "expected a builtin attribute code (0..22), found " +
                                   std::to_string(code));
}

Status decodeBuiltinType(EntryReader& r, MTypePtr& out) {
  size_t code_at = r.in.fileOffset();
  uint64_t code = 0;
  JFT_RETURN_IF_ERROR(r.varint(code));
  if (const char* float_name = floatNameOf(kBuiltinFloats, code)) {
    out = makeFloatType("builtin", float_name);
    return Status::ok();
  }
  switch (code) {
    case kIntegerType: {
      uint64_t packed = 0;
      JFT_RETURN_IF_ERROR(r.varint(packed));
      uint64_t width = packed >> 2;
      uint64_t signedness = packed & 3;
      if (width > (1u << 24) || signedness > 2)
        return r.in.errorAt(code_at, "expected an integer width and signedness, found " +
                                         std::to_string(packed));
      out = makeIntegerType("builtin", unsigned(width),
                            static_cast<MType::Signedness>(signedness));
      return Status::ok();
    }
    case kIndexType:
      out = makeSimpleType("builtin", MType::Kind::Index);
      return Status::ok();
    case kNoneType:
      out = makeSimpleType("builtin", MType::Kind::None);
      return Status::ok();
    case kFunctionType: {
      auto type = newType("builtin", MType::Kind::Function);
      JFT_RETURN_IF_ERROR(readFunctionMembers(r, *type));
      out = type;
      return Status::ok();
    }
    case kComplexType:
    case kUnrankedTensorType: {
      auto type = newType("builtin", code == kComplexType ? MType::Kind::Complex
                                                          : MType::Kind::UnrankedTensor);
      type->elements.resize(1);
      JFT_RETURN_IF_ERROR(r.type(type->elements[0]));
      out = type;
      return Status::ok();
    }
    case kRankedTensorType:
    case kRankedTensorTypeWithEncoding:
    case kVectorType: {
      auto type = newType("builtin", MType::Kind::RankedTensor);
      JFT_RETURN_IF_ERROR(
          readRankedTensorMembers(r, *type, code == kRankedTensorTypeWithEncoding));
      if (code == kVectorType) {
        type->kind = MType::Kind::Opaque;
        type->text = "vector";
      }
      out = type;
      return Status::ok();
    }
    case kTupleType: {
      auto type = newType("builtin", MType::Kind::Tuple);
      JFT_RETURN_IF_ERROR(r.types(type->elements));
      out = type;
      return Status::ok();
    }
    case kMemRefType:
    case kMemRefTypeWithMemSpace:
    case kUnrankedMemRefType:
    case kUnrankedMemRefTypeWithMemSpace:
    case kVectorTypeWithScalableDims:
      // Never part of a StableHLO program; kept opaque (entries are
      // self-delimiting, so the members need not be read).
      JFT_RETURN_IF_ERROR(r.in.skip(r.in.remaining()));
      out = makeOpaqueType("builtin",
                           code == kVectorTypeWithScalableDims ? "vector" : "memref");
      return Status::ok();
  }
  return r.in.errorAt(
      code_at, "expected a builtin type code (0..32), found " + std::to_string(code));
}

}  // namespace jft::frontend::bytecode
