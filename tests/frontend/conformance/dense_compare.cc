#include "dense_compare.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "ir/element_type.h"
#include "ir_match.h"

namespace jft::conformance {
namespace {

uint64_t readLittleEndian(const uint8_t* p, int64_t bytes) {
  uint64_t v = 0;
  for (int64_t i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

uint64_t lowBits(uint64_t v, int bits) {
  return bits >= 64 ? v : v & ((uint64_t{1} << bits) - 1);
}

double halfToDouble(uint16_t h) {
  int sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  double magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    magnitude = mantissa ? NAN : INFINITY;
  } else {
    magnitude = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -magnitude : magnitude;
}

double bfloat16ToDouble(uint16_t b) {
  uint32_t bits = uint32_t{b} << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// What one stored element holds, spelled for a message.
std::string storedText(const uint8_t* p, ir::ElementType type) {
  int64_t bytes = ir::storageBytes(type);
  uint64_t raw = readLittleEndian(p, bytes);
  char buffer[64];
  switch (type) {
    case ir::ElementType::F32: {
      float f;
      std::memcpy(&f, p, 4);
      std::snprintf(buffer, sizeof buffer, "%.9g", f);
      return buffer;
    }
    case ir::ElementType::F64: {
      double d;
      std::memcpy(&d, p, 8);
      std::snprintf(buffer, sizeof buffer, "%.17g", d);
      return buffer;
    }
    default:
      std::snprintf(buffer, sizeof buffer, "0x%llX",
                    static_cast<unsigned long long>(raw));
      return buffer;
  }
}

bool parseWhole(const std::string& s, double& out) {
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return !s.empty() && end == s.c_str() + s.size();
}

bool floatMatches(const std::string& text, const uint8_t* p, ir::ElementType type) {
  int64_t bytes = ir::storageBytes(type);
  uint64_t raw = readLittleEndian(p, bytes);
  if (text.starts_with("0x") || text.starts_with("0X"))
    return std::strtoull(text.c_str() + 2, nullptr, 16) == lowBits(raw, 8 * bytes);
  double value;
  if (!parseWhole(text, value)) return false;
  switch (type) {
    case ir::ElementType::F32: {
      float f = static_cast<float>(value);
      return std::memcmp(&f, p, 4) == 0;
    }
    case ir::ElementType::F64:
      return std::memcmp(&value, p, 8) == 0;
    case ir::ElementType::F16:
    case ir::ElementType::BF16: {
      double stored = type == ir::ElementType::F16
                          ? halfToDouble(static_cast<uint16_t>(raw))
                          : bfloat16ToDouble(static_cast<uint16_t>(raw));
      double half_ulp =
          std::ldexp(std::fabs(value), type == ir::ElementType::F16 ? -12 : -9);
      return stored == value || std::fabs(stored - value) <= half_ulp;
    }
    default:
      return true;  // narrow floats: no reference decoding here, not checked
  }
}

bool elementMatches(const std::string& text, const uint8_t* p, ir::ElementType type) {
  if (ir::isPred(type)) {
    if (text == "true" || text == "1") return p[0] != 0;
    if (text == "false" || text == "0") return p[0] == 0;
    return false;
  }
  if (ir::isComplex(type)) {
    if (!text.starts_with("(") || !text.ends_with(")")) return false;
    size_t comma = text.find(',');
    if (comma == std::string::npos) return false;
    ir::ElementType part = ir::complexComponent(type);
    int64_t part_bytes = ir::storageBytes(part);
    return floatMatches(text.substr(1, comma - 1), p, part) &&
           floatMatches(text.substr(comma + 1, text.size() - comma - 2), p + part_bytes,
                        part);
  }
  if (ir::isFloat(type)) return floatMatches(text, p, type);
  int bits = ir::bitWidth(type);
  uint64_t stored = lowBits(readLittleEndian(p, ir::storageBytes(type)), bits);
  uint64_t expected;
  if (text.starts_with("0x")) {
    expected = std::strtoull(text.c_str() + 2, nullptr, 16);
  } else if (ir::isUnsignedInteger(type)) {
    expected = std::strtoull(text.c_str(), nullptr, 10);
  } else {
    expected = static_cast<uint64_t>(std::strtoll(text.c_str(), nullptr, 10));
  }
  return lowBits(expected, bits) == stored;
}

// A hex buffer holds every element, or one for a splat (MLIR's raw storage).
std::optional<std::string> hexBufferMismatch(const std::string& hex,
                                             const ir::DenseElements& ir) {
  const bool spelled_out = hex.size() == 2 * static_cast<size_t>(ir.type.byteSize());
  const std::vector<uint8_t> bytes = spelled_out ? ir.expanded() : ir.bytes;
  if (hex.size() != 2 * bytes.size())
    return "hex literal holds " + std::to_string(hex.size() / 2) + " bytes, import " +
           std::to_string(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    unsigned long byte = std::strtoul(hex.substr(2 * i, 2).c_str(), nullptr, 16);
    if (byte != bytes[i]) return "byte " + std::to_string(i) + " differs";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> denseMismatch(const TextDense& text,
                                         const ir::DenseElements& ir) {
  if (!typeMatches(text.type, ir.type))
    return "type " + text.type.text + " in the text, " + ir.type.str() + " imported";
  if (!ir.type.isTensor()) return "imported literal is not a tensor";
  if (!ir.wellFormed())
    return "imported literal holds " + std::to_string(ir.bytes.size()) + " bytes" +
           (ir.splat ? " as a splat" : "") + ", its type needs " +
           std::to_string(ir.type.byteSize());
  if (!text.hex_buffer.empty()) return hexBufferMismatch(text.hex_buffer, ir);
  int64_t count = ir.type.numElements();
  if (!text.splat() && static_cast<int64_t>(text.elements.size()) != count)
    return "text lists " + std::to_string(text.elements.size()) + " elements, type has " +
           std::to_string(count);
  int64_t wrong = 0, first_wrong = -1;
  for (int64_t i = 0; i < count; ++i) {
    const std::string& element = text.elements[text.splat() ? 0 : i];
    if (elementMatches(element, ir.element(i).data(), ir.type.element)) continue;
    if (wrong++ == 0) first_wrong = i;
  }
  if (wrong == 0) return std::nullopt;
  const std::string& expected = text.elements[text.splat() ? 0 : first_wrong];
  return std::to_string(wrong) + " of " + std::to_string(count) +
         " elements differ; element " + std::to_string(first_wrong) + " is " + expected +
         " in the text, " + storedText(ir.element(first_wrong).data(), ir.type.element) +
         " imported";
}

}  // namespace jft::conformance
