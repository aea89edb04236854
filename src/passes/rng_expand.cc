#include "passes/rng_expand.h"

#include <array>
#include <utility>
#include <vector>

#include "passes/op_emitter.h"
#include "support/int_lists.h"

namespace jft::passes {
namespace {

using Words4 = std::array<ValueId, 4>;
using Words2 = std::array<ValueId, 2>;

// Philox4x32 with 10 rounds (Salmon et al., SC 2011); `key` words have the
// counter words' shape.
Words4 philox4x32(OpEmitter& e, Words4 x, Words2 key) {
  auto mulHiLo = [&](ValueId v, uint64_t k) {
    const ValueId product =
        e.withConstant(OpKind::Multiply, e.convert(v, ElementType::U64), k);
    return e.halves(product);  // {low, high}
  };
  for (int round = 0; round < 10; ++round) {
    const Words2 p0 = mulHiLo(x[0], 0xD2511F53);
    const Words2 p1 = mulHiLo(x[2], 0xCD9E8D57);
    x = {e.binary(OpKind::Xor, e.binary(OpKind::Xor, p1[1], x[1]), key[0]), p1[0],
         e.binary(OpKind::Xor, e.binary(OpKind::Xor, p0[1], x[3]), key[1]), p0[0]};
    if (round + 1 < 10)
      key = {e.withConstant(OpKind::Add, key[0], 0x9E3779B9),
             e.withConstant(OpKind::Add, key[1], 0xBB67AE85)};
  }
  return x;
}

// Threefry2x32 with 20 rounds; `key` words have the counter words' shape.
Words2 threefry2x32(OpEmitter& e, Words2 x, Words2 key) {
  const ValueId ks2 =
      e.binary(OpKind::Xor, e.withConstant(OpKind::Xor, key[0], 0x1BD11BDA), key[1]);
  const std::array<ValueId, 3> ks = {key[0], key[1], ks2};
  auto rotl = [&](ValueId v, int r) {
    return e.binary(
        OpKind::Or, e.withConstant(OpKind::ShiftLeft, v, static_cast<uint64_t>(r)),
        e.withConstant(OpKind::ShiftRightLogical, v, static_cast<uint64_t>(32 - r)));
  };
  auto rounds = [&](const std::array<int, 4>& rotations) {
    for (int r : rotations) {
      x[0] = e.binary(OpKind::Add, x[0], x[1]);
      x[1] = e.binary(OpKind::Xor, x[0], rotl(x[1], r));
    }
  };
  constexpr std::array<int, 4> kFirst = {13, 15, 26, 6};
  constexpr std::array<int, 4> kSecond = {17, 29, 16, 24};
  x[0] = e.binary(OpKind::Add, x[0], ks[0]);
  x[1] = e.binary(OpKind::Add, x[1], ks[1]);
  for (int step = 1; step <= 5; ++step) {
    rounds(step % 2 == 1 ? kFirst : kSecond);
    x[0] = e.binary(OpKind::Add, x[0], ks[static_cast<size_t>(step % 3)]);
    x[1] = e.withConstant(
        OpKind::Add, e.binary(OpKind::Add, x[1], ks[static_cast<size_t>((step + 1) % 3)]),
        static_cast<uint64_t>(step));
  }
  return x;
}

struct Generated {
  ValueId bits;     // ui32 or ui64 of the output's shape
  ValueId counter;  // the advanced counter words (ui64[1] or ui64[2])
};

Words2 keyWords(OpEmitter& e, ValueId key, const Dims& dims) {
  const Words2 k = e.halves(key);
  return {e.broadcast(k[0], dims), e.broadcast(k[1], dims)};
}

// PHILOX: `low`/`high` are the 128-bit counter's words (scalars).
Generated philoxBits(OpEmitter& e, ValueId key, ValueId low, ValueId high,
                     const Dims& shape, int bits, bool keep_high) {
  const int64_t n = product(shape);
  const int64_t words = bits == 64 ? 2 * n : n;
  const int64_t counters = (words + 3) / 4;
  const Dims lanes = {counters};
  const ValueId step = e.iota(ElementType::U64, lanes, 0);
  const ValueId lo = e.binary(OpKind::Add, e.broadcast(low, lanes), step);
  const ValueId carried = e.lessUnsigned(lo, e.broadcast(low, lanes));
  const ValueId hi =
      e.select(carried, e.broadcast(e.withConstant(OpKind::Add, high, 1), lanes),
               e.broadcast(high, lanes));
  const Words2 l = e.halves(lo), h = e.halves(hi);
  const Words4 out = philox4x32(e, {l[0], l[1], h[0], h[1]}, keyWords(e, key, lanes));
  std::vector<ValueId> columns;
  if (bits == 64) {
    columns = {e.join(out[0], out[1]), e.join(out[2], out[3])};
  } else {
    columns.assign(out.begin(), out.end());
  }
  for (ValueId& c : columns) c = e.reshape(c, {counters, 1});
  const int64_t per = static_cast<int64_t>(columns.size());
  ValueId flat = e.reshape(e.concatenate(columns, 1), {counters * per});
  if (counters * per != n) flat = e.slice(flat, {0}, {n});
  const ValueId value = e.reshape(flat, shape);
  // The counter advanced by the counters used, as a 128-bit addition.
  const ValueId next_low =
      e.withConstant(OpKind::Add, low, static_cast<uint64_t>(counters));
  std::vector<ValueId> counter = {e.reshape(next_low, {1})};
  if (keep_high) {
    const ValueId carry = e.lessUnsigned(next_low, low);
    counter.push_back(
        e.reshape(e.select(carry, e.withConstant(OpKind::Add, high, 1), high), {1}));
  }
  return {value, counter.size() == 1 ? counter[0] : e.concatenate(counter, 0)};
}

// THREE_FRY counters: `counter` (ui64[1]) + the row-major index over the
// dims of size >= 2.
ValueId threefryCounters(OpEmitter& e, ValueId counter, const Dims& dims) {
  ValueId input = e.broadcast(e.reshape(counter, {}), dims);
  uint64_t trailing = 1;
  for (size_t i = dims.size(); i-- > 0;) {
    if (dims[i] < 2) continue;
    const ValueId index = e.iota(ElementType::U64, dims, static_cast<int64_t>(i));
    input =
        e.binary(OpKind::Add, input, e.withConstant(OpKind::Multiply, index, trailing));
    trailing *= static_cast<uint64_t>(dims[i]);
  }
  return input;
}

// `counter` is ui64[1].
Generated threefryBits(OpEmitter& e, ValueId key, ValueId counter, const Dims& shape,
                       int bits) {
  if (bits == 64) {
    const Words2 c = e.halves(threefryCounters(e, counter, shape));
    const Words2 out = threefry2x32(e, c, keyWords(e, key, shape));
    const ValueId next =
        e.withConstant(OpKind::Add, counter, static_cast<uint64_t>(product(shape)));
    return {e.join(out[0], out[1]), next};
  }
  // Split the shape in halves along its first even dim (else its largest);
  // a new size-1 dim after it is where the two halves are joined.
  Dims half, joined;
  int64_t split = 0;
  if (shape.empty()) {
    half = {1};
  } else {
    split = -1;
    for (size_t i = 0; i < shape.size() && split < 0; ++i)
      if (shape[i] % 2 == 0) split = static_cast<int64_t>(i);
    if (split < 0) {
      split = 0;
      for (size_t i = 1; i < shape.size(); ++i)
        if (shape[i] > shape[static_cast<size_t>(split)]) split = static_cast<int64_t>(i);
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      if (static_cast<int64_t>(i) == split) {
        half.push_back((shape[i] + 1) / 2);
        half.push_back(1);
      } else {
        half.push_back(shape[i]);
      }
    }
  }
  const Words2 c = e.halves(threefryCounters(e, counter, half));
  const Words2 out = threefry2x32(e, c, keyWords(e, key, half));
  const ValueId next =
      e.withConstant(OpKind::Add, counter, static_cast<uint64_t>(product(half)));
  if (shape.empty()) return {e.reshape(out[0], {}), next};
  ValueId value = e.concatenate({out[0], out[1]}, split + 1);
  Dims even = shape;
  even[static_cast<size_t>(split)] += shape[static_cast<size_t>(split)] % 2;
  value = e.reshape(value, even);
  if (even != shape) value = e.slice(value, Dims(shape.size(), 0), shape);
  return {value, next};
}

bool expandRngBitGenerator(ir::Module& module, const ir::Op& op,
                           std::vector<ir::Op>& out) {
  if (op.kind != OpKind::RngBitGenerator || op.operands.size() != 1 ||
      op.results.size() != 2)
    return false;
  const ir::Type state = module.typeOf(op.operands[0]);
  const ir::Type result = module.typeOf(op.results[1]);
  if (state.element != ElementType::U64 || state.rank() != 1) return false;
  if (!ir::isInteger(result.element) || ir::bitWidth(result.element) < 8) return false;
  const auto* given = ir::findAttrAs<ir::RngAlgorithm>(op.attrs, "rng_algorithm");
  // XLA's GPU backend runs DEFAULT as PHILOX.
  const bool philox = given == nullptr || *given != ir::RngAlgorithm::THREE_FRY;
  const int64_t words = state.dims[0];
  if (philox ? (words != 2 && words != 3) : words != 2) return false;

  OpEmitter e(module, op, out);
  const int bits = ir::bitWidth(result.element) == 64 ? 64 : 32;
  const ElementType raw = bits == 64 ? ElementType::U64 : ElementType::U32;
  const ValueId key = e.word(op.operands[0], 0);
  ValueId value, state_out;
  if (product(result.dims) == 0) {
    // Nothing drawn: the counter does not move.
    value = e.constant(result.element, result.dims, 0);
    state_out = e.withConstant(OpKind::Add, op.operands[0], 0);
  } else {
    Generated g;
    if (philox) {
      const ValueId low = e.word(op.operands[0], 1);
      const ValueId high = e.word(op.operands[0], words == 3 ? 2 : 0);
      g = philoxBits(e, key, low, high, result.dims, bits, words == 3);
    } else {
      g = threefryBits(e, key, e.slice(op.operands[0], {1}, {2}), result.dims, bits);
    }
    value = g.bits;
    const ir::Type unsigned_type =
        ir::Type::tensor(ir::bitWidth(result.element) == bits ? raw
                         : ir::bitWidth(result.element) == 8  ? ElementType::U8
                                                              : ElementType::U16,
                         result.dims);
    if (unsigned_type.element != raw) value = e.convert(value, unsigned_type.element);
    if (unsigned_type.element != result.element)
      value = e.emit(OpKind::BitcastConvert, {value}, result);
    state_out = e.concatenate({e.reshape(key, {1}), g.counter}, 0);
  }
  e.giveId(state_out, op.results[0]);
  e.giveId(value, op.results[1]);
  return true;
}

}  // namespace

bool expandRngBitGenerators(ir::Module& module) {
  return rewriteOps(module, expandRngBitGenerator);
}

}  // namespace jft::passes
