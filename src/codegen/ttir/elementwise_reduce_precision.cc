// stablehlo.reduce_precision: a float rounded to a format of fewer exponent
// and mantissa bits and back, done on the bits as XLA defines it (round to
// nearest even on the mantissa, then values beyond the reduced exponent range
// become signed infinities and those below it (the reduced format's
// subnormals included) signed zeros; NaN stays NaN, or +inf with no mantissa).
// Narrow floats are reduced in f32, which holds them exactly: a reduction
// wider than the source format is skipped per field, so the result is
// representable in the source type again.
#include "codegen/ttir/elementwise_internal.h"
#include "codegen/ttir/elementwise_ops.h"

namespace jft::codegen::ttir::ew {

namespace {

struct Format {
  int exponent, mantissa;
};

Format formatOf(ir::ElementType element) {
  switch (element) {
    case ir::ElementType::F16:
      return {5, 10};
    case ir::ElementType::BF16:
      return {8, 7};
    case ir::ElementType::F64:
      return {11, 52};
    default:
      return {8, 23};
  }
}

}  // namespace

Value emitReducePrecision(TtirWriter& w, ir::ElementType element, const Value& x,
                          int64_t exponent_bits, int64_t mantissa_bits) {
  const Format source = formatOf(element);
  const Value f = toCompute(w, element, x);
  const bool wide = f.scalar == "f64";
  const Format compute = wide ? Format{11, 52} : Format{8, 23};
  const int width = wide ? 64 : 32;
  const std::string int_type = wide ? "i64" : "i32";
  // Constants as the signed value of their width (MLIR rejects 2^31 as i32).
  auto c = [&](const Value& like, uint64_t v) {
    const int64_t value =
        wide ? static_cast<int64_t>(v)
             : static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(v)));
    return constInt(w, like, int_type, value);
  };
  Value bits = bitcast(w, f, int_type);
  if (mantissa_bits < source.mantissa) {
    const int shift = compute.mantissa - static_cast<int>(mantissa_bits);
    const uint64_t last = uint64_t{1} << shift;
    Value last_bit =
        binary(w, "arith.shrui", binary(w, "arith.andi", bits, c(bits, last)),
               c(bits, static_cast<uint64_t>(shift)));
    Value bias = binary(w, "arith.addi", last_bit, c(bits, (last >> 1) - 1));
    bits = binary(w, "arith.andi", binary(w, "arith.addi", bits, bias),
                  c(bits, ~(last - 1)));
  }
  if (exponent_bits < source.exponent) {
    const uint64_t sign = uint64_t{1} << (width - 1);
    const uint64_t exp_mask = ((uint64_t{1} << compute.exponent) - 1) << compute.mantissa;
    const uint64_t bias = (uint64_t{1} << (compute.exponent - 1)) - 1;
    const uint64_t reduced_bias = (uint64_t{1} << (exponent_bits - 1)) - 1;
    Value exponent = binary(w, "arith.andi", bits, c(bits, exp_mask));
    Value over =
        cmpi(w, "ugt", exponent, c(bits, (bias + reduced_bias) << compute.mantissa));
    Value under =
        cmpi(w, "ule", exponent, c(bits, (bias - reduced_bias) << compute.mantissa));
    Value signed_zero = binary(w, "arith.andi", bits, c(bits, sign));
    Value signed_inf = binary(w, "arith.ori", signed_zero, c(bits, exp_mask));
    bits = select(w, over, signed_inf, select(w, under, signed_zero, bits));
  }
  Value r = bitcast(w, bits, f.scalar);
  const Value nan = cmpf(w, "uno", f, f);
  r = select(w, nan,
             mantissa_bits > 0
                 ? f
                 : constBits(w, f, f.scalar, wide ? 0x7FF0000000000000 : 0x7F800000),
             r);
  return fromCompute(w, element, r);
}

}  // namespace jft::codegen::ttir::ew
