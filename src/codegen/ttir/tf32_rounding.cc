#include "codegen/ttir/tf32_rounding.h"

#include "codegen/ttir/elementwise_ops.h"

namespace jft::codegen::ttir {

Value roundToTf32(TtirWriter& w, const Value& tile) {
  using namespace ew;
  // One statement per op: the text must not depend on the order in which a
  // compiler evaluates call arguments.
  const Value bits = bitcast(w, tile, "i32");
  auto c = [&](int64_t v) { return constInt(w, bits, "i32", v); };
  const Value half_ulp = c(0x1000);
  const Value biased = binary(w, "arith.addi", bits, half_ulp);
  const Value mask = c(-0x2000);  // ~0x1FFF as i32 (MLIR takes signed values)
  const Value rounded = binary(w, "arith.andi", biased, mask);
  const Value abs_mask = c(0x7FFFFFFF);
  const Value magnitude = binary(w, "arith.andi", bits, abs_mask);
  const Value inf = c(0x7F800000);
  const Value finite = cmpi(w, "slt", magnitude, inf);
  const Value nan = cmpi(w, "sgt", magnitude, inf);
  const Value quiet_bit = c(0x00400000);
  const Value quiet = binary(w, "arith.ori", bits, quiet_bit);
  const Value special = select(w, nan, quiet, bits);
  const Value result = select(w, finite, rounded, special);
  return bitcast(w, result, "f32");
}

}  // namespace jft::codegen::ttir
