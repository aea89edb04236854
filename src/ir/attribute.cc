#include "ir/attribute.h"

namespace jft::ir {

const Attribute* findAttr(const NamedAttrs& attrs, std::string_view name) {
  for (const auto& [key, value] : attrs)
    if (key == name) return &value;
  return nullptr;
}

std::string_view comparisonDirectionName(ComparisonDirection d) {
  constexpr std::string_view kNames[] = {"EQ", "NE", "GE", "GT", "LE", "LT"};
  return kNames[static_cast<int>(d)];
}

ComparisonDirection mirrored(ComparisonDirection d) {
  using enum ComparisonDirection;
  constexpr ComparisonDirection kMirror[] = {EQ, NE, LE, LT, GE, GT};
  return kMirror[static_cast<int>(d)];
}

ComparisonDirection negated(ComparisonDirection d) {
  using enum ComparisonDirection;
  constexpr ComparisonDirection kNegation[] = {NE, EQ, LT, LE, GT, GE};
  return kNegation[static_cast<int>(d)];
}

std::string_view comparisonTypeName(ComparisonType t) {
  constexpr std::string_view kNames[] = {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED",
                                         "UNSIGNED"};
  return kNames[static_cast<int>(t)];
}

std::string_view precisionName(Precision p) {
  constexpr std::string_view kNames[] = {"DEFAULT", "HIGH", "HIGHEST"};
  return kNames[static_cast<int>(p)];
}

std::string_view fftTypeName(FftType t) {
  constexpr std::string_view kNames[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  return kNames[static_cast<int>(t)];
}

}  // namespace jft::ir
