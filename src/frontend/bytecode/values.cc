#include "frontend/bytecode/values.h"

#include <cmath>
#include <cstring>

namespace jft::frontend::bytecode {
namespace {

// How a minifloat spends its extreme encodings.
enum class Specials : uint8_t {
  kIeee,    // exponent all ones: inf (mantissa 0) or NaN
  kFn,      // no inf; only all-ones exponent and mantissa is NaN
  kFnuz,    // no inf, no -0; sign bit alone (0x80) is NaN
  kFinite,  // no inf, no NaN
};

struct FloatFormat {
  std::string_view name;
  unsigned width, exponent_bits, mantissa_bits;
  int bias;
  Specials specials;
};

constexpr FloatFormat kFormats[] = {
    {"f16", 16, 5, 10, 15, Specials::kIeee},
    {"bf16", 16, 8, 7, 127, Specials::kIeee},
    {"f32", 32, 8, 23, 127, Specials::kIeee},
    {"f64", 64, 11, 52, 1023, Specials::kIeee},
    {"tf32", 19, 8, 10, 127, Specials::kIeee},
    {"f8E5M2", 8, 5, 2, 15, Specials::kIeee},
    {"f8E4M3", 8, 4, 3, 7, Specials::kIeee},
    {"f8E4M3FN", 8, 4, 3, 7, Specials::kFn},
    {"f8E5M2FNUZ", 8, 5, 2, 16, Specials::kFnuz},
    {"f8E4M3FNUZ", 8, 4, 3, 8, Specials::kFnuz},
    {"f8E4M3B11FNUZ", 8, 4, 3, 11, Specials::kFnuz},
    {"f8E3M4", 8, 3, 4, 3, Specials::kIeee},
    {"f4E2M1FN", 4, 2, 1, 1, Specials::kFinite},
    {"f6E2M3FN", 6, 2, 3, 1, Specials::kFinite},
    {"f6E3M2FN", 6, 3, 2, 3, Specials::kFinite},
    {"f80", 80, 15, 64, 16383, Specials::kIeee},
    {"f128", 128, 15, 112, 16383, Specials::kIeee},
};

const FloatFormat* findFormat(std::string_view name) {
  for (const FloatFormat& format : kFormats)
    if (format.name == name) return &format;
  return nullptr;
}

double decodeMinifloat(const FloatFormat& f, uint64_t bits) {
  bool negative = (bits >> (f.width - 1)) & 1;
  uint64_t exponent = (bits >> f.mantissa_bits) & ((uint64_t{1} << f.exponent_bits) - 1);
  uint64_t mantissa = bits & ((uint64_t{1} << f.mantissa_bits) - 1);
  uint64_t max_exponent = (uint64_t{1} << f.exponent_bits) - 1;
  double sign = negative ? -1.0 : 1.0;
  switch (f.specials) {
    case Specials::kIeee:
      if (exponent == max_exponent) return mantissa ? NAN : sign * INFINITY;
      break;
    case Specials::kFn:
      if (exponent == max_exponent && mantissa == (uint64_t{1} << f.mantissa_bits) - 1)
        return NAN;
      break;
    case Specials::kFnuz:
      if (negative && exponent == 0 && mantissa == 0) return NAN;
      break;
    case Specials::kFinite:
      break;
  }
  if (exponent == 0)  // subnormal
    return sign *
           std::ldexp(static_cast<double>(mantissa), 1 - f.bias - int(f.mantissa_bits));
  return sign *
         std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissa_bits)),
                    int(exponent) - f.bias - int(f.mantissa_bits));
}

}  // namespace

std::shared_ptr<MType> newType(std::string dialect, MType::Kind kind) {
  auto type = std::make_shared<MType>();
  type->kind = kind;
  type->dialect = std::move(dialect);
  return type;
}

std::shared_ptr<MAttr> newAttr(std::string dialect, MAttr::Kind kind) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = kind;
  attr->dialect = std::move(dialect);
  return attr;
}

MTypePtr makeIntegerType(std::string dialect, unsigned width,
                         MType::Signedness signedness) {
  auto type = newType(std::move(dialect), MType::Kind::Integer);
  type->width = width;
  type->signedness = signedness;
  return type;
}

MTypePtr makeFloatType(std::string dialect, std::string float_name) {
  auto type = newType(std::move(dialect), MType::Kind::Float);
  type->float_name = std::move(float_name);
  return type;
}

MTypePtr makeSimpleType(std::string dialect, MType::Kind kind) {
  return newType(std::move(dialect), kind);
}

MTypePtr makeOpaqueType(std::string dialect, std::string text) {
  auto type = newType(std::move(dialect), MType::Kind::Opaque);
  type->text = std::move(text);
  return type;
}

MAttrPtr makeUnknownLoc() {
  static const MAttrPtr unknown = [] {
    auto loc = newAttr("builtin", MAttr::Kind::Location);
    loc->loc_kind = MAttr::LocKind::Unknown;
    return loc;
  }();
  return unknown;
}

std::optional<unsigned> floatBitWidth(std::string_view name) {
  if (name == "f8E8M0FNU") return 8;
  if (const FloatFormat* format = findFormat(name)) return format->width;
  return std::nullopt;
}

double floatBitsToDouble(std::string_view name, const std::vector<uint64_t>& bits) {
  uint64_t low = bits.empty() ? 0 : bits[0];
  uint64_t high = bits.size() > 1 ? bits[1] : 0;
  if (name == "f8E8M0FNU") {  // exponent only: 2^(e - 127); 0xff is NaN
    uint64_t e = low & 0xff;
    return e == 0xff ? NAN : std::ldexp(1.0, int(e) - 127);
  }
  if (name == "f32") {
    uint32_t word = static_cast<uint32_t>(low);
    float value;
    std::memcpy(&value, &word, sizeof value);
    return value;
  }
  if (name == "f64") {
    double value;
    std::memcpy(&value, &low, sizeof value);
    return value;
  }
  if (name == "f80") {  // x87: explicit integer bit in the 64-bit mantissa
    bool negative = (high >> 15) & 1;
    int exponent = int(high & 0x7fff);
    if (exponent == 0x7fff) return (low << 1) ? NAN : (negative ? -INFINITY : INFINITY);
    double value =
        std::ldexp(static_cast<double>(low), (exponent ? exponent : 1) - 16383 - 63);
    return negative ? -value : value;
  }
  if (name == "f128") {
    bool negative = (high >> 63) & 1;
    int exponent = int((high >> 48) & 0x7fff);
    uint64_t top = high & ((uint64_t{1} << 48) - 1);
    if (exponent == 0x7fff) return (top || low) ? NAN : (negative ? -INFINITY : INFINITY);
    double fraction = std::ldexp(static_cast<double>(top), -48) +
                      std::ldexp(static_cast<double>(low), -112);
    double value = exponent ? std::ldexp(1.0 + fraction, exponent - 16383)
                            : std::ldexp(fraction, 1 - 16383);
    return negative ? -value : value;
  }
  const FloatFormat* format = findFormat(name);
  if (!format) return NAN;
  uint64_t mask = (uint64_t{1} << format->width) - 1;
  return decodeMinifloat(*format, low & mask);
}

std::optional<unsigned> integerStorageWidth(const MType& type) {
  if (type.kind == MType::Kind::Index) return 64;
  if (type.kind == MType::Kind::Integer) return type.width;
  return std::nullopt;
}

int64_t extendInteger(uint64_t bits, unsigned width, MType::Signedness signedness) {
  if (width == 0) return 0;
  if (width >= 64) return static_cast<int64_t>(bits);
  uint64_t mask = (uint64_t{1} << width) - 1;
  bits &= mask;
  bool sign_extend = signedness != MType::Signedness::Unsigned && width > 1;
  if (sign_extend && ((bits >> (width - 1)) & 1)) bits |= ~mask;
  return static_cast<int64_t>(bits);
}

std::optional<uint64_t> staticElementCount(const MType& type) {
  if (type.kind != MType::Kind::RankedTensor) return std::nullopt;
  uint64_t count = 1;
  for (int64_t dim : type.shape) {
    if (dim < 0) return std::nullopt;
    if (dim != 0 && count > (uint64_t{1} << 48) / static_cast<uint64_t>(dim))
      return std::nullopt;
    count *= static_cast<uint64_t>(dim);
  }
  return count;
}

const MType* tensorElementType(const MType& type) {
  if (type.kind != MType::Kind::RankedTensor && type.kind != MType::Kind::UnrankedTensor)
    return nullptr;
  return type.elements.empty() ? nullptr : type.elements[0].get();
}

bool isI1(const MType& type) {
  return type.kind == MType::Kind::Integer && type.width == 1;
}

std::string typeToString(const MType* type) {
  if (!type) return "<null>";
  auto list = [](const std::vector<MTypePtr>& types, size_t begin, size_t end) {
    std::string text;
    for (size_t i = begin; i < end && i < types.size(); ++i) {
      if (i > begin) text += ", ";
      text += typeToString(types[i].get());
    }
    return text;
  };
  const MTypePtr element = type->elements.empty() ? nullptr : type->elements[0];
  switch (type->kind) {
    case MType::Kind::Integer: {
      const char* prefix = type->signedness == MType::Signedness::Signed     ? "si"
                           : type->signedness == MType::Signedness::Unsigned ? "ui"
                                                                             : "i";
      return prefix + std::to_string(type->width);
    }
    case MType::Kind::Index:
      return "index";
    case MType::Kind::Float:
      return type->float_name;
    case MType::Kind::Complex:
      return "complex<" + typeToString(element.get()) + ">";
    case MType::Kind::RankedTensor: {
      std::string text = "tensor<";
      for (int64_t dim : type->shape)
        text += (dim == kDynamicDim || dim < 0 ? std::string("?") : std::to_string(dim)) +
                "x";
      return text + typeToString(element.get()) + (type->encoding ? ", #enc" : "") + ">";
    }
    case MType::Kind::UnrankedTensor:
      return "tensor<*x" + typeToString(element.get()) + ">";
    case MType::Kind::Tuple:
      return "tuple<" + list(type->elements, 0, type->elements.size()) + ">";
    case MType::Kind::Token:
      return "token";
    case MType::Kind::Function:
      return "(" + list(type->elements, 0, type->num_inputs) + ") -> (" +
             list(type->elements, type->num_inputs, type->elements.size()) + ")";
    case MType::Kind::None:
      return "none";
    case MType::Kind::Quantized:
      return "!quant<" + type->text + ">";
    case MType::Kind::Opaque:
      return "!" + type->dialect + "<" + type->text + ">";
  }
  return "?";
}

}  // namespace jft::frontend::bytecode
