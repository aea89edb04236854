// The reduction family on hand-built functions: softmax in registers, a long
// row in chunks, a column reduction, a two-operand reduce (argmax), and the
// split into partials and their reduction when a long reduction has too few
// outputs to fill the device.
#include <gtest/gtest.h>

#include <limits>

#include "emit_test_util.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

ValueId reduce(ir::Builder& b, ValueId x, ValueId init, std::vector<int64_t> dims,
               const Type& result, OpKind combine) {
  const Type scalar = Type::scalar(b.typeOf(x).element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(combine, {args[0], args[1]}, scalar)});
  ir::Region body = b.endRegion();
  return b.op1(OpKind::Reduce, {x, init}, result, {{"dimensions", dims}},
               {std::move(body)});
}

ValueId rowBroadcast(ir::Builder& b, ValueId v, const Type& to) {
  return b.op1(OpKind::BroadcastInDim, {v}, to,
               {{"broadcast_dimensions", std::vector<int64_t>{0}}});
}

// softmax over the rows of [rows, cols].
ir::Module softmax(int64_t rows, int64_t cols) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({rows, cols}), kept = f32({rows});
  auto a = b.beginFunction("main", {full}, {full});
  ValueId ninf = scalarConstant(b, f32(), -std::numeric_limits<double>::infinity());
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId mx = reduce(b, a[0], ninf, {1}, kept, OpKind::Maximum);
  ValueId e =
      b.op1(OpKind::Exponential,
            {b.op1(OpKind::Subtract, {a[0], rowBroadcast(b, mx, full)}, full)}, full);
  ValueId sum = reduce(b, e, zero, {1}, kept, OpKind::Add);
  b.ret({b.op1(OpKind::Divide, {e, rowBroadcast(b, sum, full)}, full)});
  b.endFunction();
  return m;
}

TEST(EmitReduction, SoftmaxIsOneKernelWithOneTtReducePerReduce) {
  ir::Module m = softmax(32, 128);
  TtirKernel k = emitWhole(m, Family::kReduction);
  // 128 columns in one tile; 2048/128 = 16 rows per program: 2 programs.
  EXPECT_EQ(k.tile, "16x128");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 2);
  EXPECT_EQ(count(k.ttir, "scf.for"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 1);  // x is read once, reused by both reduces
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
  // The max combiner: one scalar max op in the first tt.reduce's body.
  EXPECT_EQ(count(k.ttir, "arith.maxnumf") + count(k.ttir, "arith.maximumf"), 1);
  EXPECT_NE(k.ttir.find("tensor<16x128x!tt.ptr<f32>>"), std::string::npos);
  EXPECT_EQ(count(k.ttir, "arith.divsi"), 0);
  EXPECT_EQ(count(k.ttir, "arith.remsi"), 0);
}

// A reduce whose operand is a ladder of elementwise ops each reading the one
// below twice: tracing which axis of the input is contiguous must visit each
// value once, not once per path (2^60 paths; random_lax's maxwell sampler and
// eigh_tridiagonal's solve hung in the emitter).
TEST(EmitReduction, ContiguousAxisTraceVisitsASharedOperandOnce) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({128, 8});  // minor extent too short: every path fails
  auto a = b.beginFunction("main", {full}, {f32({128})});
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId v = a[0];
  for (int i = 0; i < 60; ++i) v = b.op1(OpKind::Add, {v, v}, full);
  b.ret({reduce(b, v, zero, {1}, f32({128}), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 61);  // the ladder, and the combiner
}

TEST(EmitReduction, RaggedRowsAreMaskedAndFilledWithInit) {
  ir::Module m = softmax(10, 100);
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "16x128");  // 2048/128 = 16 rows, capped to 16 (10 -> 16)
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_GE(count(k.ttir, "arith.cmpi slt"), 2);            // row and column bounds
  EXPECT_GE(count(k.ttir, "arith.select"), 2);              // masked lanes take each init
  EXPECT_NE(k.ttir.find("0xFF800000"), std::string::npos);  // -inf init of the max
}

TEST(EmitReduction, LongRowLoopsInChunks) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({8, 100000})}, {f32({8})});
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId sq = b.op1(OpKind::Multiply, {a[0], a[0]}, f32({8, 100000}));
  b.ret({reduce(b, sq, zero, {1}, f32({8}), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "1x2048 looped");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{8, 1, 1}));
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
  EXPECT_EQ(count(k.ttir, "scf.yield"), 1);
  // Each step folds the chunk into per-lane accumulators with the combiner;
  // one tt.reduce after the loop reduces the lanes.
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k.ttir, "arith.addf"), 2);
  EXPECT_NE(k.ttir.find("arith.constant 100000 : i32"), std::string::npos);
}

TEST(EmitReduction, ColumnReductionReadsAlongTheKeptAxis) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({1000, 64})}, {f32({64})});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {0}, f32({64}), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "64x64 looped");  // 64 kept lanes, 4096/64 rows of 1000 per step
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  // The address is k*64 + o: o (contiguous) comes from the axis-0 range.
  EXPECT_NE(k.ttir.find("arith.constant dense<64> : tensor<1x64xi32>"),
            std::string::npos);
  EXPECT_EQ(count(k.ttir, "scf.for"), 1);
}

TEST(EmitReduction, ArgmaxIsOneTwoOperandReduce) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({16, 256});
  auto a = b.beginFunction("main", {full}, {i32({16})});
  ValueId iota =
      b.op1(OpKind::Iota, {}, i32({16, 256}), {{"iota_dimension", int64_t{1}}});
  ValueId ninf = scalarConstant(b, f32(), -std::numeric_limits<double>::infinity());
  ValueId izero = scalarConstant(b, i32(), 0);
  const Type fs = f32(), is = i32();
  auto args = b.beginRegion({fs, is, fs, is});
  ValueId gt = b.op1(OpKind::Compare, {args[0], args[2]}, pred(),
                     {{"comparison_direction", ir::ComparisonDirection::GE}});
  ValueId v = b.op1(OpKind::Select, {gt, args[0], args[2]}, fs);
  ValueId i = b.op1(OpKind::Select, {gt, args[1], args[3]}, is);
  b.ret({v, i});
  ir::Region body = b.endRegion();
  auto r = b.op(OpKind::Reduce, {a[0], iota, ninf, izero}, {f32({16}), i32({16})},
                {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
  b.ret({r[1]});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(count(k.ttir, "\"tt.reduce\""), 1);
  EXPECT_NE(k.ttir.find(":2 = \"tt.reduce\""), std::string::npos);
  EXPECT_NE(k.ttir.find("-> (tensor<8xf32>, tensor<8xi32>)"), std::string::npos);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{2, 1, 1}));  // 2048/256 = 8 rows per program
}

TEST(EmitReduction, FullReductionToAScalar) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({3000})}, {f32()});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {0}, f32(), OpKind::Add)});
  b.endFunction();
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(k.tile, "1x4096");
  EXPECT_EQ(count(k.ttir, "tt.store "), 1);
}

// x.sum(axis=0) of 16384 x 4096 (the col_sum benchmark): 32 kept tiles of
// 128 columns alone would use a quarter of an H200, so 16 chunks of 1024
// rows each get a program (512), storing partial sums to scratch; a second
// kernel reduces the 16 partials of each column.
TEST(EmitReduction, LongColumnSumSplitsIntoPartialsAndTheirReduction) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({16384, 4096})}, {f32({4096})});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {0}, f32({4096}), OpKind::Add)});
  b.endFunction();
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "fusion_0_test_partials");
  EXPECT_EQ(k[0].tile, "128x32 looped, 16 chunks of 1024");
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{512, 1, 1}));
  EXPECT_EQ(k[0].scratch, (std::vector<uint64_t>{16 * 4096 * 4}));
  EXPECT_EQ(k[1].scratch, k[0].scratch);
  // Program p: column tile p % 32, rows [p / 32 * 1024, + 1024).
  EXPECT_NE(k[0].ttir.find("arith.remsi"), std::string::npos);
  EXPECT_NE(k[0].ttir.find("arith.constant 1024 : i32"), std::string::npos);
  EXPECT_EQ(count(k[0].ttir, "scf.for"), 1);
  EXPECT_EQ(count(k[0].ttir, "tt.load "), 1);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 1);
  EXPECT_NE(k[0].ttir.find("%tmp0: !tt.ptr<f32> {tt.divisibility = 16 : i32}"),
            std::string::npos);
  EXPECT_EQ(k[0].ttir.find("tt.splat %out0"), std::string::npos);
  // Exact chunks: no bound on the row index.
  EXPECT_EQ(k[0].ttir.find("dense<16384>"), std::string::npos);
  // Then 128 columns by the 16 partials per program, 32 programs, no loop.
  EXPECT_EQ(k[1].name, "fusion_0_test");
  EXPECT_EQ(k[1].tile, "128x16 of partials");
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{32, 1, 1}));
  EXPECT_EQ(count(k[1].ttir, "scf.for"), 0);
  EXPECT_EQ(count(k[1].ttir, "\"tt.reduce\""), 1);
  EXPECT_EQ(count(k[1].ttir, "tt.load "), 1);
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 1);
  EXPECT_NE(k[1].ttir.find("tt.splat %tmp0"), std::string::npos);
  EXPECT_NE(k[1].ttir.find("tt.splat %out0"), std::string::npos);
}

// A bias gradient as flax's backward pass writes it: g[tokens, features]
// transposed, then summed over its (now minor) token axis. Memory is
// contiguous along the kept feature axis, so the kernel takes the column tile
// (and its split), not one kept lane per program reading every 2048th element.
TEST(EmitReduction, ReduceOverTheMinorAxisOfATransposeTakesAColumnTile) {
  for (bool through_convert : {false, true}) {
    ir::Module m;
    ir::Builder b(m);
    const Type in = through_convert ? Type::tensor(ElementType::BF16, {4096, 2048})
                                    : f32({4096, 2048});
    auto a = b.beginFunction("main", {in}, {f32({2048})});
    ValueId g = a[0];
    if (through_convert) g = b.op1(OpKind::Convert, {g}, f32({4096, 2048}));
    ValueId t = b.op1(OpKind::Transpose, {g}, f32({2048, 4096}),
                      {{"permutation", std::vector<int64_t>{1, 0}}});
    ValueId zero = scalarConstant(b, f32(), 0);
    b.ret({reduce(b, t, zero, {1}, f32({2048}), OpKind::Add)});
    b.endFunction();
    const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
    ASSERT_EQ(k.size(), 2u) << through_convert;
    EXPECT_EQ(k[0].tile.rfind("128x32 looped", 0), 0u) << k[0].tile;
    EXPECT_EQ(k[1].tile.find("of partials") != std::string::npos, true) << k[1].tile;
  }
}

// The same reduce of an input that is contiguous along the reduced axis keeps
// the row tile.
TEST(EmitReduction, ReduceOverAContiguousMinorAxisKeepsTheRowTile) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({2048, 4096})}, {f32({2048})});
  ValueId e = b.op1(OpKind::Exponential, {a[0]}, f32({2048, 4096}));
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, e, zero, {1}, f32({2048}), OpKind::Add)});
  b.endFunction();
  EXPECT_EQ(emitWhole(m, Family::kReduction).tile, "1x4096");
}

// x.sum(axis=1) of 16384 x 4096 (row_sum) has a program per row already.
TEST(EmitReduction, ManyRowsAreNotSplit) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({16384, 4096})}, {f32({16384})});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {1}, f32({16384}), OpKind::Add)});
  b.endFunction();
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].tile, "1x4096");
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{16384, 1, 1}));
  EXPECT_TRUE(k[0].scratch.empty());
}

// A sum of 10^7 elements to a scalar: 4883 steps of 2048 in one program
// become 489 chunks of 10 steps (the last one masked at 10^7), then one
// program reduces 489 partials in a [1, 512] tile.
TEST(EmitReduction, HugeFullReductionSplitsWithARaggedLastChunk) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({10000000})}, {f32()});
  ValueId zero = scalarConstant(b, f32(), 0);
  b.ret({reduce(b, a[0], zero, {0}, f32(), OpKind::Add)});
  b.endFunction();
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].tile, "1x2048 looped, 489 chunks of 20480");
  EXPECT_EQ(k[0].grid, (std::array<uint32_t, 3>{489, 1, 1}));
  EXPECT_NE(k[0].ttir.find("dense<10000000> : tensor<1x2048xi32>"), std::string::npos);
  EXPECT_EQ(k[0].scratch, (std::vector<uint64_t>{489 * 4}));
  EXPECT_EQ(k[1].tile, "1x512 of partials");
  EXPECT_EQ(k[1].grid, (std::array<uint32_t, 3>{1, 1, 1}));
  // Lanes 489..511 are past the partials: masked, then set to the init 0.
  EXPECT_NE(k[1].ttir.find("dense<489> : tensor<1x512xi32>"), std::string::npos);
  EXPECT_GE(count(k[1].ttir, "arith.select"), 1);
}

// argmax over a long column: both accumulators (value and index) get a
// scratch buffer, and the finishing reduce combines the pairs.
TEST(EmitReduction, SplitArgmaxKeepsBothAccumulators) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({65536, 64});
  auto a = b.beginFunction("main", {full}, {i32({64})});
  ValueId iota =
      b.op1(OpKind::Iota, {}, i32({65536, 64}), {{"iota_dimension", int64_t{0}}});
  ValueId ninf = scalarConstant(b, f32(), -std::numeric_limits<double>::infinity());
  ValueId izero = scalarConstant(b, i32(), 0);
  const Type fs = f32(), is = i32();
  auto args = b.beginRegion({fs, is, fs, is});
  ValueId gt = b.op1(OpKind::Compare, {args[0], args[2]}, pred(),
                     {{"comparison_direction", ir::ComparisonDirection::GE}});
  ValueId v = b.op1(OpKind::Select, {gt, args[0], args[2]}, fs);
  ValueId i = b.op1(OpKind::Select, {gt, args[1], args[3]}, is);
  b.ret({v, i});
  ir::Region body = b.endRegion();
  auto r = b.op(OpKind::Reduce, {a[0], iota, ninf, izero}, {f32({64}), i32({64})},
                {{"dimensions", std::vector<int64_t>{0}}}, {std::move(body)});
  b.ret({r[1]});
  b.endFunction();
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].tile, "64x64 looped, 256 chunks of 256");
  EXPECT_EQ(k[0].scratch, (std::vector<uint64_t>{256 * 64 * 4, 256 * 64 * 4}));
  EXPECT_NE(k[0].ttir.find("%tmp1: !tt.ptr<i32>"), std::string::npos);
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 2);
  EXPECT_EQ(count(k[1].ttir, "tt.load "), 2);
  EXPECT_NE(k[1].ttir.find(":2 = \"tt.reduce\""), std::string::npos);
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 1);  // only the index is returned
}

// A summand returned whole next to its sum (flax's bias gradient beside the
// weight gradient's input): the full-size output needs no reduce result, so
// it is stored where the loop reads each chunk, and the reduction keeps its
// column tile and split instead of holding the whole reduced extent in one
// tile with one kept lane per program.
ir::Module sumAndSummand(int64_t rows, int64_t cols, int64_t reduced_dim, bool flat) {
  ir::Module m;
  ir::Builder b(m);
  const Type full = f32({rows, cols});
  const Type kept = f32({reduced_dim == 0 ? cols : rows});
  const Type summand_type = flat ? f32({rows * cols}) : full;
  auto a = b.beginFunction("main", {full}, {kept, summand_type});
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId sq = b.op1(OpKind::Multiply, {a[0], a[0]}, full);
  ValueId summand = flat ? b.op1(OpKind::Reshape, {sq}, summand_type) : sq;
  b.ret({reduce(b, sq, zero, {reduced_dim}, kept, OpKind::Add), summand});
  b.endFunction();
  return m;
}

// The store of %out1 lies between the loop's head and its yield.
bool storedInsideTheLoop(const std::string& ttir, const std::string& param) {
  const size_t loop = ttir.find("scf.for"), store = ttir.find("tt.splat " + param),
               yield = ttir.find("scf.yield");
  return loop != std::string::npos && store != std::string::npos && loop < store &&
         store < yield;
}

TEST(EmitReduction, ASummandReturnedWholeIsStoredByThePartialsKernel) {
  ir::Module m = sumAndSummand(4096, 2048, 0, false);
  const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].tile.rfind("128x32 looped, ", 0), 0u) << k[0].tile;
  EXPECT_TRUE(storedInsideTheLoop(k[0].ttir, "%out1")) << k[0].ttir;
  EXPECT_EQ(count(k[0].ttir, "tt.load "), 1);   // the input, once
  EXPECT_EQ(count(k[0].ttir, "tt.store "), 2);  // the summand and the partials
  // The finishing kernel stores only the sum.
  EXPECT_EQ(k[1].ttir.find("tt.splat %out1"), std::string::npos);
  EXPECT_EQ(count(k[1].ttir, "tt.store "), 1);
}

TEST(EmitReduction, ASummandReturnedWholeIsStoredInsideTheRowLoop) {
  for (bool flat : {false, true}) {
    ir::Module m = sumAndSummand(600, 100000, 1, flat);
    const std::vector<TtirKernel> k = emitWholeStages(m, Family::kReduction);
    ASSERT_EQ(k.size(), 1u) << flat;
    EXPECT_EQ(k[0].tile, "1x2048 looped");
    EXPECT_EQ(count(k[0].ttir, "scf.for"), 1);
    EXPECT_TRUE(storedInsideTheLoop(k[0].ttir, "%out1")) << k[0].ttir;
    EXPECT_EQ(count(k[0].ttir, "tt.load "), 1) << flat;
    EXPECT_EQ(count(k[0].ttir, "tt.store "), 2);
    // The last chunk of 100000 is masked, for the summand's store as for the sum.
    EXPECT_NE(k[0].ttir.find("arith.constant dense<100000> : tensor<1x2048xi32>"),
              std::string::npos);
  }
}

TEST(EmitReduction, ASummandReturnedWholeBesideAShortRowIsOneTile) {
  ir::Module m = sumAndSummand(32, 128, 1, false);
  TtirKernel k = emitWhole(m, Family::kReduction);
  EXPECT_EQ(k.tile, "16x128");
  EXPECT_EQ(count(k.ttir, "scf.for"), 0);
  EXPECT_EQ(count(k.ttir, "tt.load "), 1);
  EXPECT_EQ(count(k.ttir, "tt.store "), 2);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
