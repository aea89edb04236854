// Constants and the register <-> memory forms of values.
#include <cstring>

#include "codegen/ttir/elementwise.h"
#include "codegen/ttir/elementwise_ops.h"
#include "support/status.h"

namespace jft::codegen::ttir {

using ir::ElementType;

Value emitSplatConstant(TtirWriter& writer, ElementType element,
                        const std::vector<int64_t>& shape, std::string_view bytes) {
  JFT_CHECK(!ir::isComplex(element),
            "emitSplatConstant: complex constants have no TTIR form");
  uint64_t bits = 0;
  const size_t n =
      std::min<size_t>(bytes.size(), static_cast<size_t>(ir::storageBytes(element)));
  for (size_t i = 0; i < n; ++i)
    bits |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[i])) << (8 * i);
  const std::string reg = registerType(element);
  Value like{"", "", shape, reg};
  if (ir::isPred(element)) return ew::constBool(writer, like, bits != 0);
  if (reg[0] != 'i') return ew::constBits(writer, like, reg, bits);
  // Integers are written as the signed value of their register width (MLIR
  // integers are signless; every bit pattern has one).
  const int width = std::stoi(reg.substr(1));
  const int stored = static_cast<int>(8 * n);
  int64_t value = static_cast<int64_t>(bits);
  const int from = std::min(width, stored);
  if (from < 64) {
    // Sign-extend from the stored width for signed types, zero-extend
    // otherwise, then reinterpret in the register width.
    const uint64_t mask = (uint64_t{1} << from) - 1;
    bits &= mask;
    if (ir::isSignedInteger(element) && (bits >> (from - 1)) & 1) bits |= ~mask;
    if (width < 64) {
      const uint64_t wmask = (uint64_t{1} << width) - 1;
      bits &= wmask;
      if ((bits >> (width - 1)) & 1) bits |= ~wmask;
    }
    value = static_cast<int64_t>(bits);
  }
  return ew::constInt(writer, like, reg, value);
}

Value loadedToRegister(TtirWriter& writer, ElementType element, const Value& loaded) {
  if (!ir::isPred(element)) return loaded;
  // Any nonzero byte is true.
  return ew::cmpi(writer, "ne", loaded, ew::constInt(writer, loaded, loaded.scalar, 0));
}

Value registerToStored(TtirWriter& writer, ElementType element, const Value& value) {
  if (!ir::isPred(element)) return value;
  return ew::cast(writer, "arith.extui", value, "i8");
}

}  // namespace jft::codegen::ttir
