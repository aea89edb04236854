// Emitted kernels run by the host TTIR interpreter (ttir_interp/) against
// references computed here independently: the sort family against
// std::stable_sort by the comparator's total order, a loop kernel and row
// reductions against plain loops. Values are chosen so that the references
// are exact (multiples of 1/4: sums in any order are the same), except where
// a libdevice call is involved (a tolerance).
#include "ttir_interp.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>

#include "emit_test_util.h"
#include "sort_modules.h"

namespace jft::codegen::ttir::testing {
namespace {

using fusion::Family;

// Runs a group's kernels in order on `io` (inputs then outputs) and the
// group's scratch, filled with junk as uninitialised memory would be.
void interpRun(const std::vector<TtirKernel>& kernels, std::vector<InterpBuffer> io) {
  ASSERT_FALSE(kernels.empty());
  std::vector<std::vector<uint8_t>> scratch;
  for (uint64_t bytes : kernels[0].scratch) scratch.emplace_back(bytes, 0xA5);
  for (auto& s : scratch) io.push_back({s.data(), s.size()});
  for (const TtirKernel& k : kernels) {
    const Status s = runTtir(k.ttir, k.grid, io);
    ASSERT_TRUE(s.isOk()) << s.toString();
  }
}

template <typename T>
InterpBuffer interpBuffer(std::vector<T>& v) {
  return {v.data(), v.size() * sizeof(T)};
}

// The comparator of sortModule: -0.0 made +0.0, then TOTALORDER, whose key is
// the f32 bits as a signed integer with the magnitude bits of negatives
// flipped (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN).
int32_t interpTotalOrderKey(float x) {
  if (x == 0) x = 0.0f;
  const int32_t bits = std::bit_cast<int32_t>(x);
  return bits ^ ((bits >> 31) & 0x7FFFFFFF);
}

// Random values with the cases the comparator treats specially: NaN of both
// signs, infinities, -0.0 beside +0.0, and many ties.
std::vector<float> interpSortInput(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(),
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            1.5f,
                            -1.5f};
  std::vector<float> v(n);
  for (float& x : v) {
    const uint32_t r = rng() % 16;
    x = r < 4 ? specials[rng() % 8]
              : static_cast<float>(static_cast<int>(rng() % 64) - 32) / 4;
  }
  return v;
}

// Each row of [rows, cols] stably sorted by the total order (descending for
// GT), with the original positions.
void interpReferenceSort(const std::vector<float>& in, int64_t rows, int64_t cols,
                         bool gt, std::vector<float>* values,
                         std::vector<int32_t>* indices) {
  values->resize(in.size());
  indices->resize(in.size());
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int32_t> order(cols);
    std::iota(order.begin(), order.end(), 0);
    const float* row = in.data() + r * cols;
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const int32_t ka = interpTotalOrderKey(row[a]), kb = interpTotalOrderKey(row[b]);
      return gt ? ka > kb : ka < kb;
    });
    for (int64_t c = 0; c < cols; ++c) {
      (*values)[r * cols + c] = row[order[c]];
      (*indices)[r * cols + c] = order[c];
    }
  }
}

// Bit-exact: the sort only moves values, so -0.0 and NaN signs must survive.
void interpExpectSameBits(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i)
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i])) {
      ++bad;
      ADD_FAILURE() << "[" << i << "] = " << got[i] << " (0x" << std::hex
                    << std::bit_cast<uint32_t>(got[i]) << "), want " << want[i] << " (0x"
                    << std::bit_cast<uint32_t>(want[i]) << ")" << std::dec;
    }
}

// Sorts random rows through the emitted kernels and compares with the
// reference: values bit for bit, and the indices when the module has them;
// in both forms of the network (every step through scratch, and the short
// distances in registers: EmitOptions::sort_register_steps).
void interpCheckSortForm(int64_t rows, int64_t cols, bool with_indices,
                         ir::ComparisonDirection dir, uint32_t seed, bool registers) {
  ir::Module m = sortModule({rows, cols}, 1, with_indices, dir);
  EmitOptions options;
  options.sort_register_steps = registers;
  const std::vector<TtirKernel> kernels = emitWholeStages(m, Family::kSort, options);
  std::vector<float> in = interpSortInput(rows * cols, seed);
  std::vector<float> out(in.size(), -7.0f);
  std::vector<int32_t> idx(in.size(), -7);
  std::vector<InterpBuffer> io{interpBuffer(in), interpBuffer(out)};
  if (with_indices) io.push_back(interpBuffer(idx));
  interpRun(kernels, io);
  std::vector<float> want;
  std::vector<int32_t> want_idx;
  interpReferenceSort(in, rows, cols, dir == ir::ComparisonDirection::GT, &want,
                      &want_idx);
  interpExpectSameBits(out, want);
  if (with_indices) {
    EXPECT_EQ(idx, want_idx);
  }
}

void interpCheckSort(int64_t rows, int64_t cols, bool with_indices,
                     ir::ComparisonDirection dir, uint32_t seed) {
  for (bool registers : {false, true}) {
    SCOPED_TRACE(registers ? "register steps" : "exchanges through scratch");
    interpCheckSortForm(rows, cols, with_indices, dir, seed, registers);
  }
}

TEST(TtirInterp, RowSortEqualsStableSortByTheTotalOrder) {
  interpCheckSort(8, 100, false, ir::ComparisonDirection::LT, 1);
}

TEST(TtirInterp, TopKSortCarriesTheIndices) {
  interpCheckSort(8, 100, true, ir::ComparisonDirection::GT, 2);
}

TEST(TtirInterp, LongRowMergedThroughScratchEqualsStableSort) {
  interpCheckSort(2, 8192, false, ir::ComparisonDirection::LT, 3);
}

TEST(TtirInterp, RaggedLongRowTopKEqualsStableSort) {
  interpCheckSort(2, 5000, true, ir::ComparisonDirection::GT, 4);
}

// Rows around the network's internal boundaries: two lanes, padding past
// the row, exactly and just past the distances a form may treat apart (32),
// one tile exactly (4096), and a row over a tile by one.
TEST(TtirInterp, SortsOfEveryRowLengthClassEqualStableSort) {
  uint32_t seed = 10;
  for (int64_t cols : {2, 3, 17, 31, 32, 33, 63, 64, 65, 1024, 4096, 4097}) {
    SCOPED_TRACE("row of " + std::to_string(cols));
    interpCheckSort(3, cols, true, ir::ComparisonDirection::LT, seed++);
  }
  for (int64_t cols : {2, 31, 63, 1024}) {
    SCOPED_TRACE("descending row of " + std::to_string(cols));
    interpCheckSort(3, cols, true, ir::ComparisonDirection::GT, seed++);
  }
}

// Multiples of 1/4 in [-4, 4): products and sums below are exact in f32.
std::vector<float> interpQuarters(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 32) - 16) / 4;
  return v;
}

// out = max(a * b + a, b) - exp(a), elementwise over 3000 (three programs,
// the last one masked).
TEST(TtirInterp, LoopKernelEqualsPlainLoop) {
  const int64_t n = 3000;
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({n}), f32({n})}, {f32({n})});
  ValueId ab = b.op1(OpKind::Multiply, {a[0], a[1]}, f32({n}));
  ValueId s = b.op1(OpKind::Add, {ab, a[0]}, f32({n}));
  ValueId mx = b.op1(OpKind::Maximum, {s, a[1]}, f32({n}));
  ValueId e = b.op1(OpKind::Exponential, {a[0]}, f32({n}));
  b.ret({b.op1(OpKind::Subtract, {mx, e}, f32({n}))});
  b.endFunction();
  const TtirKernel k = emitWhole(m, Family::kLoop);
  std::vector<float> x = interpQuarters(n, 5), y = interpQuarters(n, 6), out(n, NAN);
  interpRun({k}, {interpBuffer(x), interpBuffer(y), interpBuffer(out)});
  for (int64_t i = 0; i < n; ++i) {
    const float want = std::max(x[i] * y[i] + x[i], y[i]) - std::exp(x[i]);
    ASSERT_NEAR(out[i], want, 1e-5f * std::max(1.0f, std::fabs(want))) << "at " << i;
  }
}

ValueId interpReduce(ir::Builder& b, ValueId x, ValueId init, const Type& result,
                     OpKind combine) {
  const Type scalar = Type::scalar(b.typeOf(x).element);
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(combine, {args[0], args[1]}, scalar)});
  ir::Region body = b.endRegion();
  return b.op1(OpKind::Reduce, {x, init}, result,
               {{"dimensions", std::vector<int64_t>{1}}}, {std::move(body)});
}

// Row sums of squares and row maxima of [rows, cols]: exact in f32 whatever
// the order of the sum (quarters squared are sixteenths, the sums < 2^20).
void interpCheckRowReduction(int64_t rows, int64_t cols, uint32_t seed) {
  ir::Module m;
  ir::Builder b(m);
  auto a = b.beginFunction("main", {f32({rows, cols})}, {f32({rows}), f32({rows})});
  ValueId zero = scalarConstant(b, f32(), 0);
  ValueId ninf = scalarConstant(b, f32(), -std::numeric_limits<double>::infinity());
  ValueId sq = b.op1(OpKind::Multiply, {a[0], a[0]}, f32({rows, cols}));
  ValueId sum = interpReduce(b, sq, zero, f32({rows}), OpKind::Add);
  ValueId mx = interpReduce(b, a[0], ninf, f32({rows}), OpKind::Maximum);
  b.ret({sum, mx});
  b.endFunction();
  const std::vector<TtirKernel> kernels = emitWholeStages(m, Family::kReduction);
  std::vector<float> x = interpQuarters(rows * cols, seed);
  std::vector<float> sums(rows, NAN), maxes(rows, NAN);
  interpRun(kernels, {interpBuffer(x), interpBuffer(sums), interpBuffer(maxes)});
  for (int64_t r = 0; r < rows; ++r) {
    double want_sum = 0;
    float want_max = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) {
      const float v = x[r * cols + c];
      want_sum += static_cast<double>(v) * v;
      want_max = std::max(want_max, v);
    }
    EXPECT_EQ(sums[r], static_cast<float>(want_sum)) << "row " << r;
    EXPECT_EQ(maxes[r], want_max) << "row " << r;
  }
}

TEST(TtirInterp, RaggedRowReductionEqualsPlainLoop) {
  interpCheckRowReduction(10, 100, 7);
}

TEST(TtirInterp, LongRowReductionInChunksEqualsPlainLoop) {
  interpCheckRowReduction(3, 20000, 8);
}

// The interpreter refuses what it cannot run instead of guessing.
TEST(TtirInterp, UnsupportedOpIsNamed) {
  const std::string ttir =
      "module {\n"
      "  tt.func public @k(%out0: !tt.ptr<f32> {tt.divisibility = 16 : i32}) {\n"
      "  %0 = arith.constant 1.000000e+00 : f32\n"
      "  %1 = math.tanh %0 : f32\n"
      "  tt.store %out0, %1 : !tt.ptr<f32>\n"
      "    tt.return\n"
      "  }\n"
      "}\n";
  float out = 0;
  const Status s = runTtir(ttir, {1, 1, 1}, {{&out, sizeof(out)}});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.toString().find("math.tanh"), std::string::npos) << s.toString();
}

// The shape ops the register steps of a sort use, worked by hand on 0..7:
// split takes the even and odd lanes of the minor pair, join interleaves
// them back, trans permutes as numpy's transpose(order), reshape is row-major.
TEST(TtirInterp, SplitJoinTransReshapeByHand) {
  const std::string ttir =
      "module {\n"
      "  tt.func public @k(%out0: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {\n"
      "  %0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>\n"
      "  %1 = tt.reshape %0 : tensor<8xi32> -> tensor<4x2xi32>\n"
      "  %2:2 = tt.split %1 : tensor<4x2xi32> -> tensor<4xi32>\n"
      "  %4 = tt.join %2#1, %2#0 : tensor<4xi32> -> tensor<4x2xi32>\n"
      "  %5 = tt.reshape %4 : tensor<4x2xi32> -> tensor<2x4xi32>\n"
      "  %6 = tt.trans %5 {order = array<i32: 1, 0>} : tensor<2x4xi32> -> "
      "tensor<4x2xi32>\n"
      "  %7 = tt.reshape %6 : tensor<4x2xi32> -> tensor<8xi32>\n"
      "  %8 = tt.splat %out0 : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>\n"
      "  %9 = tt.addptr %8, %0 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>\n"
      "  tt.store %9, %7 : tensor<8x!tt.ptr<i32>>\n"
      "    tt.return\n"
      "  }\n"
      "}\n";
  ASSERT_TRUE(checkTtirSyntax(ttir).isOk()) << checkTtirSyntax(ttir).toString();
  std::vector<int32_t> out(8, -1);
  const Status s = runTtir(ttir, {1, 1, 1}, {interpBuffer(out)});
  ASSERT_TRUE(s.isOk()) << s.toString();
  // join(odd, even) = [1,0,3,2,5,4,7,6]; as 2x4 transposed: columns read down.
  EXPECT_EQ(out, (std::vector<int32_t>{1, 5, 0, 4, 3, 7, 2, 6}));
}

// A store past its buffer fails the run, naming the access.
TEST(TtirInterp, OutOfBoundsStoreFails) {
  const std::string ttir =
      "module {\n"
      "  tt.func public @k(%out0: !tt.ptr<i32> {tt.divisibility = 16 : i32}) {\n"
      "  %0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>\n"
      "  %1 = tt.splat %out0 : !tt.ptr<i32> -> tensor<8x!tt.ptr<i32>>\n"
      "  %2 = tt.addptr %1, %0 : tensor<8x!tt.ptr<i32>>, tensor<8xi32>\n"
      "  tt.store %2, %0 : tensor<8x!tt.ptr<i32>>\n"
      "    tt.return\n"
      "  }\n"
      "}\n";
  std::vector<int32_t> out(7, 0);
  const Status s = runTtir(ttir, {1, 1, 1}, {interpBuffer(out)});
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.toString().find("outside"), std::string::npos) << s.toString();
}

// d = c + a . b on a [16, 32] x [32, 16] product, operands of `type` (bf16
// as the bits' top half of an f32), against a plain loop; values are small
// multiples of 1/8, so every sum is exact in any order.
void interpDotCase(const std::string& type) {
  const bool half = type == "bf16";
  auto offsets = [](const std::string& name, int64_t rows, int64_t cols) {
    const std::string r = std::to_string(rows), c = std::to_string(cols);
    const std::string t = "tensor<" + r + "x" + c + "xi32>";
    return "  %" + name + "r = tt.make_range {end = " + r +
           " : i32, start = 0 : i32} : tensor<" + r + "xi32>\n  %" + name +
           "r2 = tt.expand_dims %" + name + "r {axis = 1 : i32} : tensor<" + r +
           "xi32> -> tensor<" + r + "x1xi32>\n  %" + name +
           "c = tt.make_range {end = " + c + " : i32, start = 0 : i32} : tensor<" + c +
           "xi32>\n  %" + name + "c2 = tt.expand_dims %" + name +
           "c {axis = 0 : i32} : tensor<" + c + "xi32> -> tensor<1x" + c + "xi32>\n  %" +
           name + "w = arith.constant dense<" + c + "> : tensor<" + r + "x1xi32>\n  %" +
           name + "m = arith.muli %" + name + "r2, %" + name + "w : tensor<" + r +
           "x1xi32>\n  %" + name + "mb = tt.broadcast %" + name + "m : tensor<" + r +
           "x1xi32> -> " + t + "\n  %" + name + "cb = tt.broadcast %" + name +
           "c2 : tensor<1x" + c + "xi32> -> " + t + "\n  %" + name + " = arith.addi %" +
           name + "mb, %" + name + "cb : " + t + "\n";
  };
  auto load = [&](const std::string& name, const std::string& param, int64_t rows,
                  int64_t cols, const std::string& elem) {
    const std::string shape = std::to_string(rows) + "x" + std::to_string(cols);
    return "  %" + name + "p = tt.splat %" + param + " : !tt.ptr<" + elem +
           "> -> tensor<" + shape + "x!tt.ptr<" + elem + ">>\n  %" + name +
           "a = tt.addptr %" + name + "p, %" + name + "o : tensor<" + shape +
           "x!tt.ptr<" + elem + ">>, tensor<" + shape + "xi32>\n  %" + name +
           " = tt.load %" + name + "a : tensor<" + shape + "x!tt.ptr<" + elem + ">>\n";
  };
  const std::string ttir =
      "module {\n  tt.func public @k(%in0: !tt.ptr<" + type + ">, %in1: !tt.ptr<" + type +
      ">, %in2: !tt.ptr<f32>, %out0: !tt.ptr<f32>) {\n" + offsets("ao", 16, 32) +
      offsets("bo", 32, 16) + offsets("co", 16, 16) + load("a", "in0", 16, 32, type) +
      load("b", "in1", 32, 16, type) + load("c", "in2", 16, 16, "f32") +
      "  %d = tt.dot %a, %b, %c, inputPrecision = ieee : tensor<16x32x" + type +
      "> * tensor<32x16x" + type + "> -> tensor<16x16xf32>\n" +
      "  %op = tt.splat %out0 : !tt.ptr<f32> -> tensor<16x16x!tt.ptr<f32>>\n"
      "  %oa = tt.addptr %op, %co : tensor<16x16x!tt.ptr<f32>>, tensor<16x16xi32>\n"
      "  tt.store %oa, %d : tensor<16x16x!tt.ptr<f32>>\n    tt.return\n  }\n}\n";
  ASSERT_TRUE(checkTtirSyntax(ttir).isOk()) << checkTtirSyntax(ttir).toString() << ttir;
  std::vector<float> a(16 * 32), b(32 * 16), c(16 * 16), out(16 * 16, -1);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 8;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(static_cast<int>(i % 5) - 2) / 8;
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i) / 4;
  std::vector<uint16_t> a16(a.size()), b16(b.size());
  for (size_t i = 0; i < a.size(); ++i) a16[i] = std::bit_cast<uint32_t>(a[i]) >> 16;
  for (size_t i = 0; i < b.size(); ++i) b16[i] = std::bit_cast<uint32_t>(b[i]) >> 16;
  const Status s = half ? runTtir(ttir, {1, 1, 1},
                                  {interpBuffer(a16), interpBuffer(b16), interpBuffer(c),
                                   interpBuffer(out)})
                        : runTtir(ttir, {1, 1, 1},
                                  {interpBuffer(a), interpBuffer(b), interpBuffer(c),
                                   interpBuffer(out)});
  ASSERT_TRUE(s.isOk()) << s.toString();
  for (int64_t i = 0; i < 16; ++i)
    for (int64_t j = 0; j < 16; ++j) {
      double want = c[i * 16 + j];
      for (int64_t k = 0; k < 32; ++k) want += double{a[i * 32 + k]} * b[k * 16 + j];
      EXPECT_EQ(out[i * 16 + j], static_cast<float>(want)) << i << "," << j;
    }
}

TEST(TtirInterp, DotAccumulatesOntoItsThirdOperand) {
  interpDotCase("bf16");
  interpDotCase("f32");
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
