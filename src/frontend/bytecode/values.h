// Small constructors and queries over MType/MAttr shared by the codecs and
// the textual-form parser, plus the bit-level decoding of every float format
// the builtin and VHLO dialects define.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/mlir_tree.h"

namespace jft::frontend::bytecode {

// A type or attribute of `dialect` and `kind`, its other members still to
// fill: where every constructor below and in the codecs starts.
std::shared_ptr<MType> newType(std::string dialect, MType::Kind kind);
std::shared_ptr<MAttr> newAttr(std::string dialect, MAttr::Kind kind);

MTypePtr makeIntegerType(std::string dialect, unsigned width,
                         MType::Signedness signedness);
MTypePtr makeFloatType(std::string dialect, std::string float_name);
MTypePtr makeSimpleType(std::string dialect, MType::Kind kind);  // Index, Token, None
MTypePtr makeOpaqueType(std::string dialect, std::string text);

MAttrPtr makeUnknownLoc();

// Storage width of a float format named as in MType::float_name; nullopt if
// the name is not a float format we know.
std::optional<unsigned> floatBitWidth(std::string_view float_name);
// The value of `bits` (little-endian words, low word first) in that format,
// exactly for every format up to f64 and rounded for f80/f128.
double floatBitsToDouble(std::string_view float_name, const std::vector<uint64_t>& bits);

// Bit width an integer attribute of this type is stored with (index: 64).
std::optional<unsigned> integerStorageWidth(const MType& type);
// Sign- or zero-extends the low `width` bits per the type's signedness.
int64_t extendInteger(uint64_t bits, unsigned width, MType::Signedness signedness);

// Number of elements of a static ranked tensor, nullopt when dynamic,
// unranked, not a tensor, or absurdly large.
std::optional<uint64_t> staticElementCount(const MType& type);
// The element type of a tensor type, or null.
const MType* tensorElementType(const MType& type);
bool isI1(const MType& type);

// Short textual form for messages and dumps: "tensor<4x?xf32>", "i32", ...
std::string typeToString(const MType* type);

}  // namespace jft::frontend::bytecode
