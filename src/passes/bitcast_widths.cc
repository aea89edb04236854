#include "passes/bitcast_widths.h"

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

bool plainBits(ElementType t) {
  return (ir::isInteger(t) || ir::isFloat(t)) && ir::bitWidth(t) >= 8;
}

ElementType unsignedOfWidth(int bits) {
  switch (bits) {
    case 8:
      return ElementType::U8;
    case 16:
      return ElementType::U16;
    case 32:
      return ElementType::U32;
    default:
      return ElementType::U64;
  }
}

// `v` reinterpreted as `element` (same width), or `v` itself.
ValueId reinterpret(OpEmitter& e, ValueId v, ElementType element) {
  const ir::Type type = e.typeOf(v);
  if (type.element == element) return v;
  return e.emit(OpKind::BitcastConvert, {v}, ir::Type::tensor(element, type.dims));
}

bool expandWidthChangingBitcast(ir::Module& module, const ir::Op& op,
                                std::vector<ir::Op>& out) {
  if (op.kind != OpKind::BitcastConvert || op.operands.size() != 1 ||
      op.results.size() != 1)
    return false;
  const ir::Type in = module.typeOf(op.operands[0]);
  const ir::Type result = module.typeOf(op.results[0]);
  if (!plainBits(in.element) || !plainBits(result.element)) return false;
  const int in_bits = ir::bitWidth(in.element), out_bits = ir::bitWidth(result.element);
  if (in_bits == out_bits) return false;
  OpEmitter e(module, op, out);
  const ValueId bits = reinterpret(e, op.operands[0], unsignedOfWidth(in_bits));
  ValueId value = bits;
  if (in_bits < out_bits) {
    const ElementType wide = unsignedOfWidth(out_bits);
    const int64_t last = in.rank() - 1;
    for (int64_t i = 0; i < out_bits / in_bits; ++i) {
      std::vector<int64_t> start(in.dims.size(), 0), limit = in.dims;
      start[static_cast<size_t>(last)] = i;
      limit[static_cast<size_t>(last)] = i + 1;
      ValueId part = e.convert(e.reshape(e.slice(bits, start, limit), result.dims), wide);
      if (i > 0)
        part =
            e.withConstant(OpKind::ShiftLeft, part, static_cast<uint64_t>(i * in_bits));
      value = i == 0 ? part : e.binary(OpKind::Or, value, part);
    }
  } else {
    const ElementType narrow = unsignedOfWidth(out_bits);
    std::vector<int64_t> piece_dims = in.dims;
    piece_dims.push_back(1);
    std::vector<ValueId> pieces;
    for (int64_t i = 0; i < in_bits / out_bits; ++i) {
      const ValueId shifted = i == 0
                                  ? bits
                                  : e.withConstant(OpKind::ShiftRightLogical, bits,
                                                   static_cast<uint64_t>(i * out_bits));
      pieces.push_back(e.reshape(e.convert(shifted, narrow), piece_dims));
    }
    value = e.concatenate(pieces, in.rank());
  }
  value = reinterpret(e, value, result.element);
  e.giveId(value, op.results[0]);
  return true;
}

}  // namespace

bool expandWidthChangingBitcasts(ir::Module& module) {
  return rewriteOps(module, expandWidthChangingBitcast);
}

}  // namespace jft::passes
