// Trip counts of counted loops (see trip_count.h).
#include "compiler/trip_count.h"

#include <optional>
#include <span>

namespace jft::compiler {
namespace {

using ir::ComparisonDirection;

// Wide enough for any 64-bit counter plus a step without overflow.
__extension__ typedef __int128 Wide;

struct Counter {
  bool is_signed = true;
  Wide min = 0, max = 0;
};

std::optional<Counter> counterType(const ir::Type& type) {
  if (!type.isTensor() || type.rank() != 0 || !ir::isInteger(type.element))
    return std::nullopt;
  const int bits = ir::bitWidth(type.element);
  if (bits > 64) return std::nullopt;
  Counter c;
  c.is_signed = ir::isSignedInteger(type.element);
  if (c.is_signed) {
    c.max = (Wide{1} << (bits - 1)) - 1;
    c.min = -c.max - 1;
  } else {
    c.max = (Wide{1} << bits) - 1;
  }
  return c;
}

// A scalar integer literal, read with the counter's signedness.
std::optional<Wide> literal(const ir::Op* op, const ir::Type& type,
                            const Counter& counter) {
  if (op == nullptr || op->kind != ir::OpKind::Constant) return std::nullopt;
  const auto* dense = ir::findAttrAs<ir::DenseElements>(op->attrs, "value");
  const size_t bytes = static_cast<size_t>(ir::storageBytes(type.element));
  if (dense == nullptr || dense->type != type || !dense->wellFormed() ||
      dense->numElements() != 1 || bytes > 8)
    return std::nullopt;
  const std::span<const uint8_t> element = dense->element(0);
  uint64_t raw = 0;
  for (size_t i = 0; i < bytes; ++i) raw |= uint64_t{element[i]} << (8 * i);
  if (!counter.is_signed) return Wide{raw};
  const int bits = static_cast<int>(bytes * 8);
  if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~uint64_t{0} << bits;  // sign-extend
  return Wide{static_cast<int64_t>(raw)};
}

// Whether `counter <dir> bound` holds.
bool holds(ComparisonDirection dir, Wide counter, Wide bound) {
  switch (dir) {
    case ComparisonDirection::EQ:
      return counter == bound;
    case ComparisonDirection::NE:
      return counter != bound;
    case ComparisonDirection::GE:
      return counter >= bound;
    case ComparisonDirection::GT:
      return counter > bound;
    case ComparisonDirection::LE:
      return counter <= bound;
    case ComparisonDirection::LT:
      return counter < bound;
  }
  return false;
}

// The op defining `value` among `region`'s ops, or null.
const ir::Op* definedIn(const ir::Region& region, ir::ValueId value) {
  for (const ir::Op& op : region.ops)
    for (ir::ValueId result : op.results)
      if (result == value) return &op;
  return nullptr;
}

}  // namespace

int64_t knownTripCount(const ir::Module& module, const ir::Op& loop,
                       const ConstantLookup& constant) {
  if (loop.kind != ir::OpKind::While || loop.regions.size() != 2) return -1;
  const ir::Region& cond = loop.regions[0];
  const ir::Region& body = loop.regions[1];
  if (cond.ops.empty() || body.ops.empty() || cond.ops.back().operands.size() != 1)
    return -1;
  const ir::Op* compare = definedIn(cond, cond.ops.back().operands[0]);
  if (compare == nullptr || compare->kind != ir::OpKind::Compare ||
      compare->operands.size() != 2)
    return -1;
  const auto* direction =
      ir::findAttrAs<ir::ComparisonDirection>(compare->attrs, "comparison_direction");
  if (direction == nullptr) return -1;
  auto lookup = [&](const ir::Region& region, ir::ValueId value) {
    const ir::Op* op = definedIn(region, value);
    return op != nullptr ? op : constant(value);
  };

  // Which carried position is the counter: the compare's region-argument operand.
  for (int side = 0; side < 2; ++side) {
    const ir::ValueId arg = compare->operands[side];
    size_t k = 0;
    while (k < cond.args.size() && cond.args[k] != arg) ++k;
    if (k == cond.args.size() || k >= body.args.size() || k >= loop.operands.size())
      continue;
    const ir::Type& type = module.typeOf(arg);
    std::optional<Counter> counter = counterType(type);
    if (!counter) return -1;
    const ComparisonDirection dir = side == 0 ? *direction : ir::mirrored(*direction);
    std::optional<Wide> bound =
        literal(lookup(cond, compare->operands[1 - side]), type, *counter);
    std::optional<Wide> init = literal(constant(loop.operands[k]), type, *counter);
    // The body's next value: add(counter, S) or add(S, counter).
    const ir::Op& ret = body.ops.back();
    if (!bound || !init || k >= ret.operands.size()) return -1;
    const ir::Op* add = definedIn(body, ret.operands[k]);
    if (add == nullptr || add->kind != ir::OpKind::Add || add->operands.size() != 2)
      return -1;
    int step_side = add->operands[0] == body.args[k]   ? 1
                    : add->operands[1] == body.args[k] ? 0
                                                       : -1;
    if (step_side < 0) return -1;
    std::optional<Wide> step =
        literal(lookup(body, add->operands[step_side]), type, *counter);
    if (!step || *step == 0) return -1;
    Wide value = *init;
    const Wide s = *step;
    if (!holds(dir, value, *bound)) return 0;
    // Trips while the condition holds, for a monotone counter: the first n
    // with !holds(init + n*s). Monotone conditions only (not EQ/NE).
    if (dir == ComparisonDirection::EQ)  // true once: the next value differs
      return value + s < counter->min || value + s > counter->max ? -1 : 1;
    if (dir == ComparisonDirection::NE) {
      const Wide distance = *bound - value;
      if (distance % s != 0 || distance / s <= 0) return -1;  // would wrap around
      return distance / s <= INT64_MAX ? static_cast<int64_t>(distance / s) : -1;
    }
    const bool rising = dir == ComparisonDirection::LT || dir == ComparisonDirection::LE;
    if (rising != (s > 0)) return -1;  // never ends without wrapping around
    // Condition holds for the counter values init, init+s, ... up to the
    // last one before the bound; n is how many there are.
    const Wide limit = dir == ComparisonDirection::LT   ? *bound - 1
                       : dir == ComparisonDirection::LE ? *bound
                       : dir == ComparisonDirection::GT ? *bound + 1
                                                        : *bound;
    const Wide n = rising ? (limit - value) / s + 1 : (value - limit) / (-s) + 1;
    // The last increment (to init + n*s) must not leave the type's range.
    const Wide last = value + n * s;
    if (last < counter->min || last > counter->max || n > INT64_MAX) return -1;
    return static_cast<int64_t>(n);
  }
  return -1;
}

}  // namespace jft::compiler
