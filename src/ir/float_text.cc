#include "ir/float_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace jft::ir {
namespace {

// How a format spends its top encodings: IEEE keeps an all-ones exponent for
// inf/NaN; FN keeps only all-ones (exponent and mantissa) for NaN; FNUZ uses
// the negative-zero pattern as its one NaN; Finite has no specials at all.
enum class Specials { Ieee, Fn, Fnuz, Finite, ExponentOnly };

struct FloatFormat {
  int exponent_bits;
  int mantissa_bits;
  int bias;
  Specials specials;
};

FloatFormat formatOf(ElementType type) {
  switch (type) {
    case ElementType::F4E2M1FN:
      return {2, 1, 1, Specials::Finite};
    case ElementType::F6E2M3FN:
      return {2, 3, 1, Specials::Finite};
    case ElementType::F6E3M2FN:
      return {3, 2, 3, Specials::Finite};
    case ElementType::F8E3M4:
      return {3, 4, 3, Specials::Ieee};
    case ElementType::F8E4M3:
      return {4, 3, 7, Specials::Ieee};
    case ElementType::F8E4M3FN:
      return {4, 3, 7, Specials::Fn};
    case ElementType::F8E4M3FNUZ:
      return {4, 3, 8, Specials::Fnuz};
    case ElementType::F8E4M3B11FNUZ:
      return {4, 3, 11, Specials::Fnuz};
    case ElementType::F8E5M2:
      return {5, 2, 15, Specials::Ieee};
    case ElementType::F8E5M2FNUZ:
      return {5, 2, 16, Specials::Fnuz};
    case ElementType::F8E8M0FNU:
      return {8, 0, 127, Specials::ExponentOnly};
    case ElementType::F16:
      return {5, 10, 15, Specials::Ieee};
    case ElementType::BF16:
      return {8, 7, 127, Specials::Ieee};
    case ElementType::F32:
      return {8, 23, 127, Specials::Ieee};
    default:
      return {11, 52, 1023, Specials::Ieee};
  }
}

double decodeSmall(const FloatFormat& f, uint64_t bits) {
  const uint64_t exponent_mask = (uint64_t{1} << f.exponent_bits) - 1;
  const uint64_t mantissa_mask = (uint64_t{1} << f.mantissa_bits) - 1;
  if (f.specials == Specials::ExponentOnly) {
    bits &= exponent_mask;
    if (bits == exponent_mask) return std::nan("");
    return std::ldexp(1.0, static_cast<int>(bits) - f.bias);
  }
  const int sign_shift = f.exponent_bits + f.mantissa_bits;
  const bool negative = (bits >> sign_shift) & 1;
  const uint64_t exponent = (bits >> f.mantissa_bits) & exponent_mask;
  const uint64_t mantissa = bits & mantissa_mask;
  switch (f.specials) {
    case Specials::Ieee:
      if (exponent == exponent_mask)
        return mantissa ? std::nan("") : (negative ? -HUGE_VAL : HUGE_VAL);
      break;
    case Specials::Fn:
      if (exponent == exponent_mask && mantissa == mantissa_mask) return std::nan("");
      break;
    case Specials::Fnuz:
      if (negative && exponent == 0 && mantissa == 0) return std::nan("");
      break;
    default:
      break;
  }
  double magnitude =
      exponent == 0
          ? std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissa_bits)
          : std::ldexp(static_cast<double>(mantissa | (mantissa_mask + 1)),
                       static_cast<int>(exponent) - f.bias - f.mantissa_bits);
  return negative ? -magnitude : magnitude;
}

// Sorted distinct non-negative finite values of a type of at most 16 bits:
// the reference for "does this decimal read back to the same value".
const std::vector<double>& valueTable(ElementType type) {
  static std::mutex mutex;
  static std::map<ElementType, std::vector<double>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = tables.try_emplace(type);
  if (!inserted) return it->second;
  const uint64_t count = uint64_t{1} << bitWidth(type);
  for (uint64_t bits = 0; bits < count; ++bits) {
    double v = decodeFloat(type, bits);
    if (std::isfinite(v) && v >= 0) it->second.push_back(v);
  }
  std::sort(it->second.begin(), it->second.end());
  it->second.erase(std::unique(it->second.begin(), it->second.end()), it->second.end());
  return it->second;
}

// Whether `text` is nearer to `value` than to either neighbour in `table`.
bool readsBackAs(const std::string& text, double value,
                 const std::vector<double>& table) {
  double parsed = 0;
  std::from_chars(text.data(), text.data() + text.size(), parsed);
  auto it = std::lower_bound(table.begin(), table.end(), value);
  const double distance = std::fabs(parsed - value);
  if (it != table.begin() && std::fabs(parsed - *(it - 1)) <= distance) return false;
  if (it + 1 != table.end()) return std::fabs(parsed - *(it + 1)) > distance;
  // Past the largest finite value a reader may round to inf or NaN: treat
  // one more step of the same size as the neighbour.
  const double step = it != table.begin() ? *it - *(it - 1) : *it;
  return parsed - *it < step / 2;
}

std::string looksLikeFloat(std::string text) {
  if (text.find_first_of(".en") == std::string::npos) text += ".0";
  return text;
}

template <typename T>
std::string shortest(T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string nonFinite(double value) {
  if (std::isnan(value)) return "nan";
  return value < 0 ? "-inf" : "inf";
}

// Finite non-negative values of a type of at most 16 bits with one encoding
// each (the positive one, the smallest for duplicates), sorted by value.
const std::vector<std::pair<double, uint64_t>>& encodingTable(ElementType type) {
  static std::mutex mutex;
  static std::map<ElementType, std::vector<std::pair<double, uint64_t>>> tables;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = tables.try_emplace(type);
  if (!inserted) return it->second;
  const uint64_t count = uint64_t{1} << bitWidth(type);
  for (uint64_t bits = 0; bits < count; ++bits) {
    const double v = decodeFloat(type, bits);
    if (std::isfinite(v) && !std::signbit(v)) it->second.emplace_back(v, bits);
  }
  std::stable_sort(it->second.begin(), it->second.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  it->second.erase(
      std::unique(it->second.begin(), it->second.end(),
                  [](const auto& a, const auto& b) { return a.first == b.first; }),
      it->second.end());
  return it->second;
}

std::optional<uint64_t> encodeSmall(ElementType type, double value) {
  const FloatFormat f = formatOf(type);
  const int width = bitWidth(type);
  const uint64_t sign_bit =
      f.specials == Specials::ExponentOnly ? 0 : uint64_t{1} << (width - 1);
  const uint64_t all_ones = (uint64_t{1} << width) - 1;
  if (std::isnan(value)) {
    switch (f.specials) {
      case Specials::Ieee:
        return (all_ones >> 1) & ~((uint64_t{1} << (f.mantissa_bits - 1)) - 1);
      case Specials::Fn:
        return all_ones >> 1;
      case Specials::Fnuz:
        return sign_bit;
      case Specials::ExponentOnly:
        return all_ones;
      case Specials::Finite:
        return std::nullopt;
    }
  }
  const bool negative = std::signbit(value);
  if (negative && f.specials == Specials::ExponentOnly) return std::nullopt;
  const double magnitude = std::fabs(value);
  const auto& table = encodingTable(type);
  const uint64_t inf_bits = ((uint64_t{1} << f.exponent_bits) - 1) << f.mantissa_bits;
  auto it = std::lower_bound(table.begin(), table.end(), magnitude,
                             [](const auto& entry, double v) { return entry.first < v; });
  uint64_t bits;
  if (it == table.end()) {
    // Past the largest finite value: within half a step it rounds down.
    const double top = table.back().first;
    const double step = top - (table.end() - 2)->first;
    if (!std::isinf(magnitude) && magnitude - top < step / 2) {
      bits = table.back().second;
    } else if (f.specials == Specials::Ieee) {
      bits = inf_bits;
    } else {
      return std::nullopt;
    }
  } else if (it->first == magnitude || it == table.begin()) {
    bits = it->second;
  } else {
    const auto& below = *(it - 1);
    const double up = it->first - magnitude, down = magnitude - below.first;
    bits = up < down               ? it->second
           : down < up             ? below.second
           : (it->second & 1) == 0 ? it->second
                                   : below.second;
  }
  if (!negative) return bits;
  if (f.specials == Specials::Fnuz && bits == 0) return 0;  // no negative zero
  return bits | sign_bit;
}

}  // namespace

std::optional<uint64_t> encodeFloat(ElementType type, double value) {
  if (type == ElementType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
  }
  if (type == ElementType::F32) {
    const float narrow = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &narrow, sizeof bits);
    return bits;
  }
  if (!isFloat(type)) return std::nullopt;
  return encodeSmall(type, value);
}

double decodeFloat(ElementType type, uint64_t bits) {
  if (type == ElementType::F64) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  if (type == ElementType::F32) {
    uint32_t narrow = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &narrow, sizeof f);
    return f;
  }
  return decodeSmall(formatOf(type), bits);
}

std::string formatDouble(double value) {
  if (!std::isfinite(value)) return nonFinite(value);
  return looksLikeFloat(shortest(value));
}

std::string formatFloatBits(ElementType type, uint64_t bits) {
  const double value = decodeFloat(type, bits);
  if (!std::isfinite(value)) return nonFinite(value);
  if (type == ElementType::F64) return formatDouble(value);
  if (type == ElementType::F32)
    return looksLikeFloat(shortest(static_cast<float>(value)));
  const std::string sign = std::signbit(value) ? "-" : "";
  const double magnitude = std::fabs(value);
  const std::vector<double>& table = valueTable(type);
  // Every value of these types is exact in f32, so f32's shortest text is
  // always a correct answer; fewer significant digits may do for the narrow
  // type, unless %g's exponent form makes them longer ("4.5e+02" vs "448").
  std::string best = shortest(static_cast<float>(magnitude));
  for (int digits = 1; digits < 9; ++digits) {
    char buffer[64];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, magnitude,
                                std::chars_format::general, digits);
    std::string text(buffer, result.ptr);
    if (!readsBackAs(text, magnitude, table)) continue;
    if (text.size() < best.size()) best = text;
    break;
  }
  return sign + looksLikeFloat(best);
}

}  // namespace jft::ir
