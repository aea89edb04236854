// The sort family: jnp.sort's comparator (NaN and -0.0 canonicalised through
// captured constants, then TOTALORDER LT), lax.top_k's two-operand sort
// (values by GT, indices following) with the slices after it, a sort along a
// major dim, rows longer than a tile merged through scratch, and rows the
// planner refuses (longer than 2^17).
#include <gtest/gtest.h>

#include <limits>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "launch_dump.h"
#include "sort_modules.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

// A row of up to a tile: the bitonic network as two nested loops (stage,
// partner distance) whose one step exchanges every lane with its partner
// through the row's scratch between two barriers, so the TTIR does not
// grow with the row (the unrolled network took Triton 9 s at 1024 lanes
// and 27 s at 4096 on an H100).
TEST(EmitSort, RowSortIsALoopOfExchangesThroughScratch) {
  ir::Module m = sortModule({8, 100}, 1, false, ir::ComparisonDirection::LT);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  ASSERT_EQ(plan.fusions.back().family, Family::kSort);
  TtirKernel k = emitWhole(m, Family::kSort);
  dumpLaunch(k);
  EXPECT_EQ(k.tile, "128");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{8, 1, 1}));
  // Scratch of 128 lanes per row: the values, then the i32 positions.
  EXPECT_EQ(k.scratch, (std::vector<uint64_t>{8 * 128 * 4, 8 * 128 * 4}));
  EXPECT_EQ(count(k.ttir, "scf.for"), 2);
  EXPECT_EQ(count(k.ttir, "gpu.barrier"), 2);
  EXPECT_EQ(count(k.ttir, "tt.split"), 0);
  EXPECT_EQ(count(k.ttir, "tt.trans"), 0);
  // The row in, the partner's value and position, the row out; the step's
  // value and position into scratch.
  EXPECT_EQ(count(k.ttir, "tt.load "), 3);
  EXPECT_EQ(count(k.ttir, "tt.store "), 3);
  // The captured 0.0 is splatted where the comparator runs; no arithmetic
  // moves the values (only selects).
  EXPECT_EQ(count(k.ttir, "arith.addf"), 0);
  EXPECT_EQ(count(k.ttir, "arith.mulf"), 0);
  // Lanes 100..127 are past the row: masked on load and store.
  EXPECT_NE(k.ttir.find("dense<100> : tensor<128xi32>"), std::string::npos);
}

TEST(EmitSort, TopKSortsValuesWithIndicesFollowing) {
  ir::Module m = sortModule({8, 100}, 1, true, ir::ComparisonDirection::GT);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty());
  ASSERT_EQ(plan.fusions.back().family, Family::kSort);
  EXPECT_EQ(plan.fusions.back().inputs.size(), 1u);  // the iota is computed inside
  TtirKernel k = emitWhole(m, Family::kSort);
  dumpLaunch(k);
  EXPECT_EQ(k.scratch.size(), 3u);               // values, indices, positions
  EXPECT_EQ(count(k.ttir, "tt.store "), 2 + 3);  // the two results, the exchange
  EXPECT_EQ(count(k.ttir, "tt.load "), 1 + 3);
}

TEST(EmitSort, MajorDimSortStridesByTheInnerExtent) {
  ir::Module m = sortModule({16, 3}, 0, false, ir::ComparisonDirection::LT);
  TtirKernel k = emitWhole(m, Family::kSort);
  dumpLaunch(k);
  EXPECT_EQ(k.tile, "16");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{3, 1, 1}));
  EXPECT_NE(k.ttir.find("arith.remsi %"), std::string::npos);
  EXPECT_NE(k.ttir.find("arith.constant dense<3> : tensor<16xi32>"), std::string::npos);
}

TEST(EmitSort, RowsLongerThanTheLimitAreNotTtir) {
  ir::Module m = sortModule({2, 200000}, 1, false, ir::ComparisonDirection::LT);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_NE(plan.unsupported[0].reason.find("200000"), std::string::npos);
}

// jnp.sort(x, axis=-1) of 1024 x 8192 (the sort benchmark): a program per
// row sorts its two tiles of 4096 by the loop network into scratch, then
// merges them: the mirror pass through memory, the steps below a tile as
// one loop on each tile, and the outputs stored by that last pass.
TEST(EmitSort, LongRowsMergeSortedTilesThroughScratch) {
  ir::Module m = sortModule({1024, 8192}, 1, false, ir::ComparisonDirection::LT);
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kSort);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].tile, "8192 in tiles of 4096");
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{1024, 1, 1}));
  EXPECT_EQ(k[0].num_warps, 8);
  // The values and the positions, [1024, 8192] each.
  EXPECT_EQ(k[0].scratch, (std::vector<uint64_t>{1024 * 8192 * 4, 1024 * 8192 * 4}));
  EXPECT_NE(k[0].ttir.find("%tmp1: !tt.ptr<i32>"), std::string::npos);
  // The tiles (their network's two loops), a barrier, the mirror pass, a
  // barrier, the tiles again (the merge's loop); each exchange between two
  // barriers, written once.
  EXPECT_EQ(count(k[0].ttir, "scf.for"), 1 + 2 + 1 + 1 + 1);
  EXPECT_EQ(count(k[0].ttir, "gpu.barrier"), 2 + 1 + 1 + 2);
  // Input, partners, pass pairs, tile, partners.
  EXPECT_EQ(count(k[0].ttir, "tt.load %"), 1 + 2 + 4 + 2 + 2);
  EXPECT_EQ(count(k[0].ttir, "tt.splat %out0"), 1);
  EXPECT_EQ(count(k[0].ttir, "tt.split"), 0);
  // Mirror pairs in blocks of 8192: hi = start + 8191 - r.
  EXPECT_NE(k[0].ttir.find("dense<8191> : tensor<4096xi32>"), std::string::npos);
  EXPECT_NE(k[0].ttir.find("arith.subi"), std::string::npos);
}

// top_k-style (values by GT, indices following) on ragged rows of 20000:
// padded to 32768, merges of 8192, 16384 and 32768 take 1 + 2 + 3 passes
// through memory; the scratch holds both operands and the positions, 32768
// lanes per row.
TEST(EmitSort, RaggedLongRowsSkipPairsPastTheRow) {
  ir::Module m = sortModule({3, 20000}, 1, true, ir::ComparisonDirection::GT);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kSort);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].tile, "32768 in tiles of 4096");
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{3, 1, 1}));
  EXPECT_EQ(k[0].scratch,
            (std::vector<uint64_t>{3 * 32768 * 4, 3 * 32768 * 4, 3 * 32768 * 4}));
  // Tiles (network: two exchange barriers) and one after; the passes; per
  // merge the tiles' exchange, and a barrier after the first two merges.
  EXPECT_EQ(count(k[0].ttir, "gpu.barrier"), 2 + 1 + 6 + 3 * 2 + 2);
  EXPECT_EQ(count(k[0].ttir, "scf.for"), 1 + 2 + 6 + 3 * 2);
  EXPECT_NE(k[0].ttir.find("dense<20000> : tensor<4096xi32>"), std::string::npos);
  EXPECT_EQ(count(k[0].ttir, "tt.splat %out0"), 1);
  EXPECT_EQ(count(k[0].ttir, "tt.splat %out1"), 1);
}

// The register form (EmitOptions::sort_register_steps): the distances below
// kRegisterDistances (32) of each stage are done in registers, unrolled once
// in the stage loop (distances 16, 8, 4 and 2 only in the stages that have
// them); the longer ones stay exchanges through scratch, so the TTIR still
// does not grow with the row.
TEST(EmitSort, RegisterFormDoesTheShortDistancesInRegisters) {
  ir::Module m = sortModule({8, 100}, 1, false, ir::ComparisonDirection::LT);
  EmitOptions options;
  options.sort_register_steps = true;
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kSort, options);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(count(k[0].ttir, "scf.for"), 2);
  EXPECT_EQ(count(k[0].ttir, "gpu.barrier"), 2);
  // The scratch distances of a stage: stage - 5 of them, none before stage 6.
  EXPECT_NE(k[0].ttir.find("arith.maxsi"), std::string::npos);
  // Five register steps, each splitting the value, the position and the
  // pair's direction flag, and joining back the value and the position.
  EXPECT_EQ(count(k[0].ttir, "tt.split"), 5 * 3);
  EXPECT_EQ(count(k[0].ttir, "tt.join"), 5 * 2);
  EXPECT_EQ(count(k[0].ttir, "scf.if"), 4);
  EXPECT_NE(k[0].ttir.find("-> tensor<4x2x16xf32>"), std::string::npos);  // distance 16
  EXPECT_NE(k[0].ttir.find("-> tensor<64x2x1xf32>"), std::string::npos);  // distance 1
  // Values move, never through arithmetic.
  EXPECT_EQ(count(k[0].ttir, "arith.addf"), 0);
}

TEST(EmitSort, RegisterFormOfLongRowsAlsoMergesInRegisters) {
  ir::Module m = sortModule({1024, 8192}, 1, false, ir::ComparisonDirection::LT);
  EmitOptions options;
  options.sort_register_steps = true;
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kSort, options);
  ASSERT_EQ(k.size(), 1u);
  // Five steps in the tiles' network (value, position and direction flag
  // split), five in the merge (value and position).
  EXPECT_EQ(count(k[0].ttir, "tt.split"), 5 * 3 + 5 * 2);
  EXPECT_EQ(count(k[0].ttir, "scf.if"), 4);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
