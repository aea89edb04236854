// rng_bit_generator's expansion, run by the reference evaluator: Philox4x32-10
// and Threefry2x32-20 against the Random123 known-answer vectors, and the
// layouts XLA gives the words (round-robin Philox words, Threefry halves
// along the first even dim, 64-bit joins, narrow truncation, 128-bit counter
// carry, the advanced state) against a host implementation of the two
// algorithms checked by those same vectors.
#include "passes/rng_expand.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "integer_eval.h"
#include "pass_test_util.h"

namespace jft::passes {
namespace {

using namespace testing;
using Words4 = std::array<uint32_t, 4>;
using Words2 = std::array<uint32_t, 2>;

// The algorithms as their paper defines them, on the host.
Words4 hostPhilox(Words4 x, Words2 key) {
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = uint64_t{0xD2511F53} * x[0];
    const uint64_t p1 = uint64_t{0xCD9E8D57} * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key[1], static_cast<uint32_t>(p0)};
    key = {key[0] + 0x9E3779B9u, key[1] + 0xBB67AE85u};
  }
  return x;
}

uint32_t rotl(uint32_t v, int r) {
  return (v << r) | (v >> (32 - r));
}

Words2 hostThreefry(Words2 x, Words2 key) {
  const uint32_t ks[3] = {key[0], key[1], key[0] ^ key[1] ^ 0x1BD11BDAu};
  const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  x[0] += ks[0];
  x[1] += ks[1];
  for (int s = 1; s <= 5; ++s) {
    for (int i = 0; i < 4; ++i) {
      x[0] += x[1];
      x[1] = rotl(x[1], rot[(s % 2 == 1 ? 0 : 4) + i]) ^ x[0];
    }
    x[0] += ks[s % 3];
    x[1] += ks[(s + 1) % 3] + static_cast<uint32_t>(s);
  }
  return x;
}

Words2 split(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}
uint64_t join(uint32_t lo, uint32_t hi) {
  return lo | (uint64_t{hi} << 32);
}

TEST(RngHostReference, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(hostPhilox({0, 0, 0, 0}, {0, 0}),
            (Words4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(hostPhilox({~0u, ~0u, ~0u, ~0u}, {~0u, ~0u}),
            (Words4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(hostPhilox({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                       {0xa4093822, 0x299f31d0}),
            (Words4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  EXPECT_EQ(hostThreefry({0, 0}, {0, 0}), (Words2{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(hostThreefry({~0u, ~0u}, {~0u, ~0u}), (Words2{0x1cb996fc, 0xbb002be7}));
  EXPECT_EQ(hostThreefry({0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}),
            (Words2{0xc4923a9c, 0x483df7a0}));
}

// main(state) = rng_bit_generator(state), expanded; returns (state', bits).
std::pair<std::vector<uint64_t>, Tensor> run(std::vector<uint64_t> state,
                                             ElementType element,
                                             std::vector<int64_t> dims,
                                             std::optional<ir::RngAlgorithm> algorithm) {
  ir::Module m;
  ir::Builder b(m);
  const int64_t words = static_cast<int64_t>(state.size());
  const Type state_type = tensor(ElementType::U64, {words});
  const Type out = tensor(element, dims);
  auto args = b.beginFunction("main", {state_type}, {state_type, out});
  ir::NamedAttrs attrs;
  if (algorithm) attrs.push_back({"rng_algorithm", *algorithm});
  const auto results = b.op(OpKind::RngBitGenerator, {args[0]}, {state_type, out}, attrs);
  b.ret(results);
  b.endFunction();
  EXPECT_TRUE(expandRngBitGenerators(m));
  EXPECT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).message();
  for (const ir::Op& op : m.functions[0].body.ops)
    EXPECT_NE(op.kind, OpKind::RngBitGenerator);
  Tensor in{{words}, {}};
  for (uint64_t w : state) in.data.push_back(static_cast<int64_t>(w));
  const std::vector<Tensor> got = evaluate(m, {in});
  std::vector<uint64_t> next;
  for (int64_t w : got.at(0).data) next.push_back(static_cast<uint64_t>(w));
  return {next, got.at(1)};
}

uint32_t u32(int64_t v) {
  return static_cast<uint32_t>(v);
}

TEST(RngExpand, PhiloxThreeWordStateGivesTheKnownAnswers) {
  // state = [key, counter low, counter high]; four words per counter.
  auto [next, bits] = run({0, 0, 0}, ElementType::U32, {4}, ir::RngAlgorithm::PHILOX);
  EXPECT_EQ(bits.data,
            (std::vector<int64_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(next, (std::vector<uint64_t>{0, 1, 0}));
  std::tie(next, bits) = run({join(0xa4093822, 0x299f31d0), join(0x243f6a88, 0x85a308d3),
                              join(0x13198a2e, 0x03707344)},
                             ElementType::U32, {2, 2}, ir::RngAlgorithm::PHILOX);
  EXPECT_EQ(bits.data,
            (std::vector<int64_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(RngExpand, DefaultIsPhiloxRoundRobinWithTheCounterCarry) {
  // 9 words from 3 counters; a 2-word state's counter is (state[1], state[0])
  // and its low word wraps here, carrying into the high word.
  const uint64_t key = 0x0123456789abcdefULL, low = ~uint64_t{0} - 1;
  auto [next, bits] = run({key, low}, ElementType::U32, {3, 3}, std::nullopt);
  ASSERT_EQ(bits.data.size(), 9u);
  for (int64_t i = 0; i < 9; ++i) {
    const int64_t c = i / 4;
    const uint64_t lo = low + static_cast<uint64_t>(c);
    const uint64_t hi = lo < low ? key + 1 : key;
    const Words4 w =
        hostPhilox({split(lo)[0], split(lo)[1], split(hi)[0], split(hi)[1]}, split(key));
    EXPECT_EQ(u32(bits.data[static_cast<size_t>(i)]), w[static_cast<size_t>(i % 4)]) << i;
  }
  EXPECT_EQ(next, (std::vector<uint64_t>{key, low + 3}));  // only the low word kept
}

TEST(RngExpand, PhiloxSixtyFourBitJoinsWordPairs) {
  const uint64_t key = 77, low = 5, high = 9;
  auto [next, bits] =
      run({key, low, high}, ElementType::U64, {5}, ir::RngAlgorithm::PHILOX);
  for (int64_t i = 0; i < 5; ++i) {
    const Words4 w = hostPhilox(
        {split(low + static_cast<uint64_t>(i / 2))[0], 0, split(high)[0], 0}, split(key));
    const size_t h = static_cast<size_t>(i % 2) * 2;
    EXPECT_EQ(static_cast<uint64_t>(bits.data[static_cast<size_t>(i)]),
              join(w[h], w[h + 1]))
        << i;
  }
  EXPECT_EQ(next, (std::vector<uint64_t>{key, low + 3, high}));
}

TEST(RngExpand, NarrowAndSignedOutputsKeepTheLowBits) {
  const uint64_t key = 3, low = 11;
  for (ElementType e :
       {ElementType::U8, ElementType::U16, ElementType::I32, ElementType::I8}) {
    SCOPED_TRACE(ir::elementTypeName(e));
    auto [next, bits] = run({key, low}, e, {2, 3}, ir::RngAlgorithm::PHILOX);
    for (int64_t i = 0; i < 6; ++i) {
      const Words4 w =
          hostPhilox({split(low + static_cast<uint64_t>(i / 4))[0], 0, split(key)[0], 0},
                     split(key));
      EXPECT_EQ(bits.data[static_cast<size_t>(i)],
                wrap(static_cast<int64_t>(w[static_cast<size_t>(i % 4)]), e))
          << i;
    }
    EXPECT_EQ(next, (std::vector<uint64_t>{key, low + 2}));
  }
}

TEST(RngExpand, ThreefryKnownAnswersInBothWidths) {
  auto [next, bits] = run({join(0x13198a2e, 0x03707344), join(0x243f6a88, 0x85a308d3)},
                          ElementType::U64, {1}, ir::RngAlgorithm::THREE_FRY);
  EXPECT_EQ(static_cast<uint64_t>(bits.data.at(0)), join(0xc4923a9c, 0x483df7a0));
  EXPECT_EQ(next[1], join(0x243f6a88, 0x85a308d3) + 1);
  // 32-bit: the two words of one counter fill the two halves of [2].
  std::tie(next, bits) = run({0, 0}, ElementType::U32, {2}, ir::RngAlgorithm::THREE_FRY);
  EXPECT_EQ(bits.data, (std::vector<int64_t>{0x6b200159, 0x99ba4efe}));
  EXPECT_EQ(next, (std::vector<uint64_t>{0, 1}));
}

TEST(RngExpand, ThreefryHalvesAlongTheFirstEvenDimElseTheLargest) {
  const uint64_t key = 0xfeedULL, c = 40;
  auto tf = [&](uint64_t counter) { return hostThreefry(split(counter), split(key)); };
  // [4, 3]: split dim 0; half [2, 1, 3]; out[2i + h][k] = word h of c + 3i + k.
  auto [next, bits] =
      run({key, c}, ElementType::U32, {4, 3}, ir::RngAlgorithm::THREE_FRY);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t k = 0; k < 3; ++k)
        EXPECT_EQ(u32(bits.data[static_cast<size_t>((2 * i + h) * 3 + k)]),
                  tf(c + static_cast<uint64_t>(3 * i + k))[static_cast<size_t>(h)]);
  EXPECT_EQ(next, (std::vector<uint64_t>{key, c + 6}));
  // [3, 5]: no even dim, split the largest (dim 1): half [3, 3, 1], joined
  // as [3, 6] and cut to [3, 5]: out[i][2j + h] = word h of c + 3i + j.
  std::tie(next, bits) =
      run({key, c}, ElementType::U32, {3, 5}, ir::RngAlgorithm::THREE_FRY);
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t col = 0; col < 5; ++col)
      EXPECT_EQ(
          u32(bits.data[static_cast<size_t>(i * 5 + col)]),
          tf(c + static_cast<uint64_t>(3 * i + col / 2))[static_cast<size_t>(col % 2)]);
  EXPECT_EQ(next, (std::vector<uint64_t>{key, c + 9}));
  // A scalar: word 0 of the counter.
  std::tie(next, bits) = run({key, c}, ElementType::U32, {}, ir::RngAlgorithm::THREE_FRY);
  EXPECT_EQ(u32(bits.data.at(0)), tf(c)[0]);
  EXPECT_EQ(next, (std::vector<uint64_t>{key, c + 1}));
  // 64-bit: no split, one counter per element in row-major order.
  std::tie(next, bits) =
      run({key, c}, ElementType::U64, {2, 3}, ir::RngAlgorithm::THREE_FRY);
  for (int64_t i = 0; i < 6; ++i) {
    const Words2 w = tf(c + static_cast<uint64_t>(i));
    EXPECT_EQ(static_cast<uint64_t>(bits.data[static_cast<size_t>(i)]), join(w[0], w[1]));
  }
  EXPECT_EQ(next, (std::vector<uint64_t>{key, c + 6}));
}

TEST(RngExpand, NoElementsLeavesTheStateAlone) {
  auto [next, bits] = run({7, 8, 9}, ElementType::U32, {0, 4}, ir::RngAlgorithm::PHILOX);
  EXPECT_TRUE(bits.data.empty());
  EXPECT_EQ(next, (std::vector<uint64_t>{7, 8, 9}));
}

TEST(RngExpand, FloatOutputsAreLeftForThePlanner) {
  ir::Module m;
  ir::Builder b(m);
  const Type state = tensor(ElementType::U64, {2});
  auto args = b.beginFunction("main", {state}, {state, f32({4})});
  b.ret(b.op(OpKind::RngBitGenerator, {args[0]}, {state, f32({4})}, {}));
  b.endFunction();
  EXPECT_FALSE(expandRngBitGenerators(m));
  EXPECT_EQ(m.functions[0].body.ops[0].kind, OpKind::RngBitGenerator);
}

}  // namespace
}  // namespace jft::passes
