#include "ir/element_type.h"

namespace jft::ir {
namespace {

enum class Category { Pred, Signed, Unsigned, Float, Complex };

struct Info {
  std::string_view name;
  int bits;
  Category category;
};

constexpr Info kInfo[] = {
#define JFT_X(e, s, w, c) {s, w, Category::c},
    JFT_ELEMENT_TYPES(JFT_X)
#undef JFT_X
};

const Info& info(ElementType type) { return kInfo[static_cast<int>(type)]; }

}  // namespace

std::string_view elementTypeName(ElementType type) { return info(type).name; }

std::optional<ElementType> parseElementType(std::string_view name) {
  for (int i = 0; i < kNumElementTypes; ++i)
    if (kInfo[i].name == name) return static_cast<ElementType>(i);
  return std::nullopt;
}

int bitWidth(ElementType type) { return info(type).bits; }

int64_t storageBytes(ElementType type) {
  int bits = bitWidth(type);
  return bits < 8 ? 1 : bits / 8;
}

bool isPred(ElementType type) { return info(type).category == Category::Pred; }
bool isSignedInteger(ElementType type) {
  return info(type).category == Category::Signed;
}
bool isUnsignedInteger(ElementType type) {
  return info(type).category == Category::Unsigned;
}
bool isInteger(ElementType type) {
  return isSignedInteger(type) || isUnsignedInteger(type);
}
bool isFloat(ElementType type) { return info(type).category == Category::Float; }
bool isComplex(ElementType type) {
  return info(type).category == Category::Complex;
}

ElementType complexComponent(ElementType type) {
  if (type == ElementType::C64) return ElementType::F32;
  if (type == ElementType::C128) return ElementType::F64;
  return type;
}

}  // namespace jft::ir
