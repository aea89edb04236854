#include "ir/dense_elements.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "support/status.h"

namespace jft::ir {

DenseElements DenseElements::makeSplat(Type type, std::vector<uint8_t> element) {
  DenseElements dense;
  dense.type = std::move(type);
  dense.bytes = std::move(element);
  dense.splat = dense.numElements() != 1;
  return dense;
}

bool DenseElements::wellFormed() const {
  if (!type.isTensor()) return false;
  const auto size = static_cast<uint64_t>(bytes.size());
  if (splat) return size == static_cast<uint64_t>(elementBytes());
  return size == static_cast<uint64_t>(type.byteSize());
}

std::span<const uint8_t> DenseElements::element(int64_t i) const {
  const int64_t size = elementBytes();
  JFT_CHECK(i >= 0 && i < numElements(),
            "element " + std::to_string(i) + " of a " + type.str() + " literal");
  const size_t offset = splat ? 0 : static_cast<size_t>(i * size);
  JFT_CHECK(offset + static_cast<size_t>(size) <= bytes.size(),
            "literal of " + type.str() + " holds only " + std::to_string(bytes.size()) +
                " bytes");
  return {bytes.data() + offset, static_cast<size_t>(size)};
}

bool DenseElements::allEqual() const {
  if (numElements() == 0 || bytes.empty()) return false;
  if (splat) return true;
  const auto size = static_cast<size_t>(elementBytes());
  for (size_t offset = size; offset + size <= bytes.size(); offset += size)
    if (std::memcmp(bytes.data() + offset, bytes.data(), size) != 0) return false;
  return true;
}

std::vector<uint8_t> DenseElements::expanded() const {
  if (!splat) return bytes;
  const auto count = static_cast<size_t>(numElements());
  std::vector<uint8_t> out;
  out.reserve(count * bytes.size());
  for (size_t i = 0; i < count; ++i) out.insert(out.end(), bytes.begin(), bytes.end());
  return out;
}

bool operator==(const DenseElements& a, const DenseElements& b) {
  if (a.type != b.type) return false;
  if (a.splat == b.splat) return a.bytes == b.bytes;
  // One splat, one plain: equal when every plain element is the splat's.
  const DenseElements& one = a.splat ? a : b;
  const DenseElements& all = a.splat ? b : a;
  if (!one.wellFormed() || !all.wellFormed()) return false;
  const size_t size = one.bytes.size();
  if (size == 0) return all.bytes.empty();
  for (size_t offset = 0; offset < all.bytes.size(); offset += size)
    if (!std::equal(one.bytes.begin(), one.bytes.end(), all.bytes.begin() + offset))
      return false;
  return true;
}

std::optional<int64_t> scalarInteger(const DenseElements& literal) {
  const ElementType e = literal.type.element;
  if (literal.numElements() != 1 || !literal.wellFormed() ||
      !(isInteger(e) || isPred(e)) || literal.elementBytes() > 8)
    return std::nullopt;
  std::span<const uint8_t> bytes = literal.element(0);
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size(); ++i) value |= uint64_t{bytes[i]} << (8 * i);
  const int bits = static_cast<int>(bytes.size()) * 8;
  if (isSignedInteger(e) && bits < 64 && (value >> (bits - 1)) != 0)
    value |= ~uint64_t{0} << bits;  // sign-extend
  return static_cast<int64_t>(value);
}

}  // namespace jft::ir
