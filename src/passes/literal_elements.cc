#include "passes/literal_elements.h"

#include <span>

#include "support/status.h"

namespace jft::passes {
namespace {

uint64_t lowBitsMask(int bits) {
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

}  // namespace

uint64_t elementBits(const ir::DenseElements& literal, int64_t index) {
  const ir::ElementType element = literal.type.element;
  JFT_CHECK(!ir::isComplex(element), "elementBits on a complex literal");
  const std::span<const uint8_t> bytes = literal.element(index);
  uint64_t bits = 0;
  for (size_t i = 0; i < bytes.size() && i < 8; ++i)
    bits |= uint64_t{bytes[i]} << (8 * i);
  return bits & lowBitsMask(ir::bitWidth(element));
}

int64_t elementInteger(const ir::DenseElements& literal, int64_t index) {
  const ir::ElementType element = literal.type.element;
  const uint64_t bits = elementBits(literal, index);
  const int width = ir::bitWidth(element);
  if (ir::isSignedInteger(element) && width < 64 && ((bits >> (width - 1)) & 1))
    return static_cast<int64_t>(bits | ~lowBitsMask(width));
  return static_cast<int64_t>(bits);
}

void appendElement(std::vector<uint8_t>& bytes, ir::ElementType element, uint64_t value) {
  value &= lowBitsMask(ir::bitWidth(element));
  for (int64_t i = 0; i < ir::storageBytes(element); ++i)
    bytes.push_back(static_cast<uint8_t>(value >> (8 * i)));
}

bool isSplat(const ir::DenseElements& literal) {
  return literal.wellFormed() && literal.allEqual();
}

ir::DenseElements splatLiteral(const ir::Type& type, uint64_t bits) {
  std::vector<uint8_t> element;
  appendElement(element, type.element, bits);
  return ir::DenseElements::makeSplat(type, std::move(element));
}

}  // namespace jft::passes
