#include "passes/literal_elements.h"

#include <cstring>

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
  const int64_t size = ir::storageBytes(element);
  const size_t offset = static_cast<size_t>(index * size);
  JFT_CHECK(offset + size <= literal.bytes.size(), "literal element out of range");
  uint64_t bits = 0;
  for (int64_t i = 0; i < size; ++i)
    bits |= uint64_t{literal.bytes[offset + i]} << (8 * i);
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
  const size_t size = static_cast<size_t>(ir::storageBytes(literal.type.element));
  if (literal.bytes.empty() || size == 0) return false;
  for (size_t offset = size; offset < literal.bytes.size(); offset += size)
    if (std::memcmp(&literal.bytes[offset], literal.bytes.data(), size) != 0)
      return false;
  return true;
}

ir::DenseElements splatLiteral(const ir::Type& type, uint64_t bits) {
  ir::DenseElements literal;
  literal.type = type;
  for (int64_t i = 0; i < type.numElements(); ++i)
    appendElement(literal.bytes, type.element, bits);
  return literal;
}

}  // namespace jft::passes
