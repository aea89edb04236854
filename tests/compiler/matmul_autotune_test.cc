// The dot_general autotuner (compiler/matmul_autotune.h): the candidate set,
// the decision with a fake Measurer whose times the test chooses, the cache
// on disk, the report, and that level 0 or no measurer changes nothing.
#include "compiler/matmul_autotune.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "compiler/autotune_cache.h"
#include "compiler/matmul_candidates.h"
#include "compiler/measurer.h"
#include "compiler/route_report.h"
#include "fusion/matmul_form.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

// relu(x @ w + bias): x [m, k], w [k, n] of `operand`, the product in f32.
ir::Module denseRelu(ElementType operand, int64_t m, int64_t k, int64_t n,
                     bool highest = false) {
  ir::Module module;
  ir::Builder b(module);
  const Type t = Type::tensor(ElementType::F32, {m, n});
  auto a = b.beginFunction("main",
                           {Type::tensor(operand, {m, k}), Type::tensor(operand, {k, n}),
                            Type::tensor(ElementType::F32, {n})},
                           {t});
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  ir::NamedAttrs attrs = {{"dot_dimension_numbers", dn}};
  if (highest)
    attrs.push_back(
        {"precision_config",
         std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGHEST}});
  ValueId d = b.op1(OpKind::DotGeneral, {a[0], a[1]}, t, attrs);
  ValueId bias = b.op1(OpKind::BroadcastInDim, {a[2]}, t,
                       {{"broadcast_dimensions", std::vector<int64_t>{1}}});
  ValueId sum = b.op1(OpKind::Add, {d, bias}, t);
  ValueId zero = b.constant(ir::DenseElements::makeSplat(t, {0, 0, 0, 0}));
  b.ret({b.op1(OpKind::Maximum, {sum, zero}, t)});
  b.endFunction();
  return module;
}

fusion::MatmulForm formOf(ElementType operand, int64_t m, int64_t k, int64_t n,
                          bool highest = false) {
  ir::Module module = denseRelu(operand, m, k, n, highest);
  for (const ir::Op& op : module.entry()->body.ops)
    if (op.kind == OpKind::DotGeneral) return *fusion::matmulFormOf(module, op);
  ADD_FAILURE() << "no dot";
  return {};
}

std::vector<std::string> namesOf(const std::vector<MatmulCandidate>& candidates) {
  std::vector<std::string> names;
  for (const MatmulCandidate& c : candidates) names.push_back(candidateName(c));
  return names;
}

// Times chosen by the test, by candidate name; 100 us for any other; an
// error for the names in `fails`.
class FakeMeasurer final : public Measurer {
 public:
  std::map<std::string, double> times;
  std::set<std::string> fails;
  std::vector<std::string> measured;

  std::string deviceKey() const override { return "Fake GPU cc 9.0"; }
  StatusOr<double> time(const runtime::Program&, const std::string& label) override {
    measured.push_back(label);
    if (fails.count(label) != 0) return internalError(label + " failed to launch");
    auto it = times.find(label);
    return it == times.end() ? 100.0 : it->second;
  }
};

class CacheDir {
 public:
  CacheDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("jft_autotune_test_" + std::to_string(::getpid()) + "_" +
             std::to_string(counter_++));
    std::filesystem::remove_all(path_);
  }
  ~CacheDir() { std::filesystem::remove_all(path_); }
  std::string str() const { return path_.string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

struct CompiledAutotune {
  Executable executable;
  Stages stages;
  size_t gemms = 0;
  std::string autotune;  // the matmul row's note
};

CompiledAutotune compileAutotuned(ir::Module module, int level, Measurer* measurer,
                                  const std::string& cache_dir) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.autotune_level = level;
  options.measurer = measurer;
  options.autotune_cache_dir = cache_dir;
  CompiledAutotune c;
  StatusOr<Executable> e = compileModule(std::move(module), options, nullptr, &c.stages);
  EXPECT_TRUE(e.isOk()) << e.status().toString();
  if (!e.isOk()) return c;
  c.executable = std::move(*e);
  for (const runtime::Thunk& t : c.executable.program.thunks)
    c.gemms += std::holds_alternative<runtime::GemmThunk>(t);
  for (const RouteEntry& entry : c.executable.report.entries)
    if (!entry.autotune.empty()) c.autotune = entry.autotune;
  return c;
}

// --- candidates ---------------------------------------------------------

// Every list below is worked by hand from the rules in matmul_candidates.h
// and tile_choice.h's heuristic.
TEST(MatmulCandidates, SixteenBitLargeProblem) {
  // 512^3 bf16: the heuristic halves 128x128 while the grid has < 132
  // programs: 64x128 (32 programs), 64x64 (64); K = 512 > 64: 3 stages.
  EXPECT_EQ(
      namesOf(matmulCandidates(formOf(ElementType::BF16, 512, 512, 512))),
      (std::vector<std::string>{"library", "ttir 64x64x64 w4 s3", "ttir 128x128x64 w8 s3",
                                "ttir 128x64x64 w4 s3", "ttir 64x128x64 w4 s3",
                                "ttir 128x128x32 w8 s3", "ttir 64x64x32 w4 s3"}));
}

TEST(MatmulCandidates, RaggedShapeClampsBlocks) {
  // m 100 (next power 128), n 300 (512), k 40 (64): the heuristic ends at
  // 64x64 (10 programs); BLOCK_K 64 covers k in one step (1 stage), 32 does
  // not (3 stages).
  EXPECT_EQ(
      namesOf(matmulCandidates(formOf(ElementType::F16, 100, 40, 300))),
      (std::vector<std::string>{"library", "ttir 64x64x64 w4 s1", "ttir 128x128x64 w8 s1",
                                "ttir 128x64x64 w4 s1", "ttir 64x128x64 w4 s1",
                                "ttir 128x128x32 w8 s3", "ttir 64x64x32 w4 s3"}));
}

TEST(MatmulCandidates, TinyProblemLeavesOneTile) {
  // 16^3: every block clamps to 16, every tile is the same.
  EXPECT_EQ(namesOf(matmulCandidates(formOf(ElementType::BF16, 16, 16, 16))),
            (std::vector<std::string>{"library", "ttir 16x16x16 w4 s1"}));
}

TEST(MatmulCandidates, F32HighestUsesSmallFmaTiles) {
  // ieee: the heuristic caps at 64 and BLOCK_K 16 (256 > 16: 3 stages).
  EXPECT_EQ(
      namesOf(matmulCandidates(formOf(ElementType::F32, 256, 256, 256, true))),
      (std::vector<std::string>{"library", "ttir 64x64x16 w4 s3", "ttir 64x32x16 w4 s3",
                                "ttir 32x64x16 w4 s3", "ttir 32x32x16 w4 s3"}));
}

TEST(MatmulCandidates, BoundedAndValidForManyShapes) {
  for (int64_t m : {1, 7, 64, 1000, 4096})
    for (int64_t n : {1, 33, 128, 5000})
      for (int64_t k : {1, 16, 300, 8192})
        for (ElementType t : {ElementType::BF16, ElementType::F32}) {
          std::vector<MatmulCandidate> c = matmulCandidates(formOf(t, m, k, n));
          ASSERT_GE(c.size(), 2u);
          EXPECT_LE(c.size(), 1 + kMaxTtirCandidates);
          EXPECT_TRUE(c[0].library);
          for (size_t i = 1; i < c.size(); ++i) {
            EXPECT_FALSE(c[i].library);
            for (int64_t e : {c[i].tile.m, c[i].tile.n, c[i].tile.k})
              EXPECT_TRUE(e >= 16 && (e & (e - 1)) == 0) << candidateName(c[i]);
            EXPECT_LE(c[i].tile.m, std::max<int64_t>(16, 2 * m));
          }
        }
}

// --- decision -------------------------------------------------------------

TEST(MatmulAutotune, PickWinnerTakesTheFastestThatRan) {
  std::vector<MatmulCandidate> c =
      matmulCandidates(formOf(ElementType::BF16, 512, 512, 512));
  std::vector<std::optional<double>> t(c.size());
  EXPECT_FALSE(pickWinner(c, t).has_value());
  t[0] = 9.0;
  t[2] = 4.0;
  t[3] = 4.0;  // a tie keeps the first
  std::optional<MatmulDecision> d = pickWinner(c, t);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(candidateName(d->winner), "ttir 128x128x64 w8 s3");
  EXPECT_EQ(d->micros, 4.0);
  EXPECT_EQ(d->candidates, 7);
}

TEST(MatmulAutotune, LibraryWinsWhenFastest) {
  // 64^3 bf16 is small: the cost model alone sends it to TTIR.
  CacheDir dir;
  FakeMeasurer fake;
  fake.times = {{"library", 5.0}, {"ttir 64x64x64 w4 s1", 7.0}};
  CompiledAutotune c =
      compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  EXPECT_EQ(c.gemms, 1u);
  EXPECT_EQ(fake.measured.size(), 3u);  // library, 64x64x64 s1, 64x64x32 s3
  EXPECT_EQ(c.autotune, "autotuned: library (5.0 us) over 3 candidates");
  EXPECT_EQ(
      compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 0, nullptr, "").gemms,
      0u);
}

TEST(MatmulAutotune, TileWinsWhenFastestAndIsEmitted) {
  // 512^3 bf16 with the epilogue (the cost model's guess: TTIR with its
  // own tile, 64x64x64): the measured tile is the one the kernel uses.
  CacheDir dir;
  FakeMeasurer fake;
  fake.times = {{"library", 9.0}, {"ttir 128x64x64 w4 s3", 3.0}};
  CompiledAutotune c =
      compileAutotuned(denseRelu(ElementType::BF16, 512, 512, 512), 1, &fake, dir.str());
  EXPECT_EQ(c.gemms, 0u);
  EXPECT_EQ(fake.measured.size(), 7u);
  ASSERT_EQ(c.stages.ttir.size(), 1u);  // dot, bias and relu in one kernel
  EXPECT_NE(c.stages.ttir[0].find("tt.dot"), std::string::npos);
  // BLOCK_M x BLOCK_K lhs tile, BLOCK_K x BLOCK_N rhs tile.
  EXPECT_NE(c.stages.ttir[0].find("tensor<128x64xbf16>"), std::string::npos);
  EXPECT_NE(c.stages.ttir[0].find("tensor<128x64xf32>"), std::string::npos);
  EXPECT_EQ(c.autotune, "autotuned: ttir 128x64x64 w4 s3 (3.0 us) over 7 candidates");
  ASSERT_EQ(c.executable.report.entries.size(), 1u);
  EXPECT_EQ(c.executable.report.entries[0].tile, "128x64x64");
  EXPECT_NE(c.executable.report.text().find(
                "autotuned: ttir 128x64x64 w4 s3 (3.0 us) over 7 candidates"),
            std::string::npos);
}

TEST(MatmulAutotune, FailedTtirCandidatesLeaveTheLibrary) {
  CacheDir dir;
  FakeMeasurer fake;
  fake.times = {{"library", 50.0}};
  for (const MatmulCandidate& c : matmulCandidates(formOf(ElementType::BF16, 64, 64, 64)))
    if (!c.library) fake.fails.insert(candidateName(c));
  CompiledAutotune c =
      compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  EXPECT_EQ(c.gemms, 1u);
  EXPECT_EQ(c.autotune, "autotuned: library (50.0 us) over 3 candidates");
}

TEST(MatmulAutotune, SkippedCandidatesAreLoggedAndDumped) {
  CacheDir dir;
  FakeMeasurer fake;
  fake.times = {{"library", 5.0}};
  fake.fails = {"ttir 64x64x32 w4 s3"};
  Options options;
  options.mode = Mode::kFlOnly;
  options.autotune_level = 3;
  options.measurer = &fake;
  options.autotune_cache_dir = dir.str();
  options.log = true;
  ::testing::internal::CaptureStderr();
  StatusOr<Executable> e =
      compileModule(denseRelu(ElementType::BF16, 64, 64, 64), options, nullptr);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(e.isOk()) << e.status().toString();
  EXPECT_NE(log.find("jax-flagtree: autotune: measuring 3 candidates on Fake GPU cc 9.0"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("jax-flagtree: autotune: ttir 64x64x32 w4 s3 skipped: ttir 64x64x32 "
                     "w4 s3 failed to launch"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("jax-flagtree: autotune: ttir 64x64x64 w4 s1 100.0 us"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("autotuned: library (5.0 us) over 3 candidates"), std::string::npos)
      << log;
  // The same lines are the dump's autotune.txt; a cached decision is listed too.
  CacheDir dump;
  options.log = false;
  options.dump_dir = dump.str();
  ASSERT_TRUE(
      compileModule(denseRelu(ElementType::BF16, 64, 64, 64), options, nullptr).isOk());
  std::string dumped;
  for (const auto& file : std::filesystem::recursive_directory_iterator(dump.str()))
    if (file.path().filename() == "autotune.txt") {
      std::ifstream in(file.path());
      dumped.assign(std::istreambuf_iterator<char>(in), {});
    }
  EXPECT_NE(dumped.find("autotuned (cached): library (5.0 us) over 3 candidates"),
            std::string::npos)
      << dumped;
}

TEST(MatmulAutotune, NothingMeasuredLeavesTheCostModel) {
  CacheDir dir;
  FakeMeasurer fake;
  for (const MatmulCandidate& c : matmulCandidates(formOf(ElementType::BF16, 64, 64, 64)))
    fake.fails.insert(candidateName(c));
  CompiledAutotune c =
      compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  EXPECT_EQ(c.gemms, 0u);  // the cost model's TTIR
  EXPECT_EQ(c.autotune, "");
  // Nothing was cached: the next compile measures again.
  fake.measured.clear();
  compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  EXPECT_EQ(fake.measured.size(), 3u);
}

TEST(MatmulAutotune, LevelZeroOrNoMeasurerChangesNothing) {
  for (ElementType t : {ElementType::BF16, ElementType::F32})
    for (int64_t size : {64, 512}) {
      CompiledAutotune plain =
          compileAutotuned(denseRelu(t, size, size, size), 0, nullptr, "");
      CacheDir dir;
      FakeMeasurer fake;
      fake.times = {{"library", 1.0}};
      CompiledAutotune level0 =
          compileAutotuned(denseRelu(t, size, size, size), 0, &fake, dir.str());
      CompiledAutotune unmeasured =
          compileAutotuned(denseRelu(t, size, size, size), 4, nullptr, "");
      EXPECT_TRUE(fake.measured.empty());
      for (const CompiledAutotune* c : {&level0, &unmeasured}) {
        EXPECT_EQ(c->stages.plan, plain.stages.plan);
        EXPECT_EQ(c->stages.ttir, plain.stages.ttir);
        EXPECT_EQ(c->gemms, plain.gemms);
        EXPECT_EQ(c->executable.report.text(), plain.executable.report.text());
        EXPECT_EQ(c->autotune, "");
      }
      EXPECT_FALSE(std::filesystem::exists(dir.str()));
    }
}

TEST(MatmulAutotune, F32IsMeasuredUnderTf32AndHighest) {
  // The TTIR matmul rounds f32 tiles to TF32 to nearest as cuBLASLt does
  // (codegen/ttir/tf32_rounding.h), so both routes compute the same
  // product: the cost model's TTIR guess loses to a faster library.
  CacheDir dir;
  FakeMeasurer fake;
  fake.times = {{"library", 1.0}};
  CompiledAutotune tf32 =
      compileAutotuned(denseRelu(ElementType::F32, 64, 64, 64), 2, &fake, dir.str());
  // library, the heuristic's 64x64x32 and 64x64x16 (the other TF32 shapes
  // clamp to the first).
  EXPECT_EQ(fake.measured.size(), 3u);
  EXPECT_EQ(tf32.gemms, 1u);
  EXPECT_EQ(tf32.autotune, "autotuned: library (1.0 us) over 3 candidates");
  EXPECT_EQ(
      compileAutotuned(denseRelu(ElementType::F32, 64, 64, 64), 0, nullptr, "").gemms,
      0u);
  fake.times = {{"ttir 64x64x16 w4 s3", 2.0}};
  CompiledAutotune ieee = compileAutotuned(denseRelu(ElementType::F32, 64, 64, 64, true),
                                           2, &fake, dir.str());
  EXPECT_FALSE(fake.measured.empty());
  EXPECT_EQ(ieee.gemms, 0u);
  EXPECT_EQ(ieee.autotune.rfind("autotuned: ttir 64x64x16 w4 s3 (2.0 us)", 0), 0u)
      << ieee.autotune;
}

TEST(MatmulAutotune, DotOfASplatConstantIsNotMeasured) {
  // The planner keeps it on the library whatever a measurement says.
  ir::Module module;
  ir::Builder b(module);
  const Type x = Type::tensor(ElementType::BF16, {64, 64});
  auto a = b.beginFunction("main", {x}, {x});
  ir::DotDimensionNumbers dn;
  dn.lhs_contracting_dims = {1};
  dn.rhs_contracting_dims = {0};
  ValueId ones = b.constant(ir::DenseElements::makeSplat(x, {0x80, 0x3f}));  // bf16 1.0
  b.ret({b.op1(OpKind::DotGeneral, {a[0], ones}, x, {{"dot_dimension_numbers", dn}})});
  b.endFunction();
  CacheDir dir;
  FakeMeasurer fake;
  CompiledAutotune c = compileAutotuned(std::move(module), 2, &fake, dir.str());
  EXPECT_TRUE(fake.measured.empty());
  EXPECT_EQ(c.autotune, "");
}

TEST(MatmulAutotune, ForcedMatmulSettingIsNotMeasured) {
  CacheDir dir;
  FakeMeasurer fake;
  Options options;
  options.mode = Mode::kFlOnly;
  options.autotune_level = 2;
  options.measurer = &fake;
  options.autotune_cache_dir = dir.str();
  options.matmul = fusion::MatmulRoute::kLibrary;
  ASSERT_TRUE(
      compileModule(denseRelu(ElementType::BF16, 64, 64, 64), options, nullptr).isOk());
  EXPECT_TRUE(fake.measured.empty());
}

TEST(MatmulAutotune, FixedTileMustBePowersOfTwo) {
  ir::Module module = denseRelu(ElementType::BF16, 64, 64, 64);
  std::string signature;
  for (const ir::Op& op : module.entry()->body.ops)
    if (op.kind == OpKind::DotGeneral) signature = fusion::matmulSignature(module, op);
  Options options;
  options.mode = Mode::kFlOnly;
  options.matmul = fusion::MatmulRoute::kTtir;
  options.matmul_tiles[signature] = {96, 64, 32, 8, 4, 3};
  StatusOr<Executable> e = compileModule(std::move(module), options, nullptr);
  ASSERT_FALSE(e.isOk());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      e.status().message().find("a fixed matmul tile 96x64x32 w4 s3 is not of powers "
                                "of two >= 16"),
      std::string::npos)
      << e.status().message();
}

// --- cache ----------------------------------------------------------------

TEST(AutotuneCache, SecondCompileReusesTheDecision) {
  CacheDir dir;
  FakeMeasurer first;
  first.times = {{"ttir 64x128x64 w4 s3", 2.5}};
  compileAutotuned(denseRelu(ElementType::BF16, 512, 512, 512), 2, &first, dir.str());
  ASSERT_EQ(first.measured.size(), 7u);

  FakeMeasurer second;  // would pick the library: it must not be asked
  second.times = {{"library", 0.1}};
  CompiledAutotune again = compileAutotuned(denseRelu(ElementType::BF16, 512, 512, 512),
                                            2, &second, dir.str());
  EXPECT_TRUE(second.measured.empty());
  EXPECT_EQ(again.gemms, 0u);
  EXPECT_EQ(again.autotune,
            "autotuned (cached): ttir 64x128x64 w4 s3 (2.5 us) over 7 candidates");
  EXPECT_EQ(again.executable.report.entries.at(0).tile, "64x128x64");
}

TEST(AutotuneCache, CorruptEntryIsMeasuredAgain) {
  CacheDir dir;
  FakeMeasurer fake;
  fake.times = {{"library", 1.0}};
  compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  size_t entries = 0;
  for (const auto& file : std::filesystem::directory_iterator(
           std::filesystem::path(dir.str()) / "autotune")) {
    std::ofstream(file.path(), std::ios::trunc) << "{\"key\": 3, garbage";
    ++entries;
  }
  ASSERT_EQ(entries, 1u);
  fake.measured.clear();
  CompiledAutotune again =
      compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  EXPECT_EQ(fake.measured.size(), 3u);
  EXPECT_EQ(again.autotune, "autotuned: library (1.0 us) over 3 candidates");
}

TEST(AutotuneCache, WriteReadAndReject) {
  CacheDir dir;
  const std::string key = autotuneKey("dot A", "Fake GPU cc 9.0");
  EXPECT_NE(key.find("matmul candidates v" + std::to_string(kMatmulCandidateSetVersion)),
            std::string::npos);
  EXPECT_FALSE(readDecision(dir.str(), key).has_value());  // absent

  MatmulDecision d;
  d.winner.tile = {128, 64, 32, 8, 4, 3};
  d.micros = 12.25;
  d.candidates = 5;
  ASSERT_TRUE(writeDecision(dir.str(), key, d).isOk());
  std::optional<MatmulDecision> read = readDecision(dir.str(), key);
  ASSERT_TRUE(read.has_value());
  EXPECT_TRUE(read->cached);
  EXPECT_FALSE(read->winner.library);
  EXPECT_EQ(candidateName(read->winner), "ttir 128x64x32 w4 s3");
  EXPECT_EQ(read->winner.tile.group_m, 8);
  EXPECT_EQ(read->micros, 12.25);
  EXPECT_EQ(read->candidates, 5);

  // Another device's key names another file, and a file holding another key
  // (a collision, or a copied file) is a miss.
  const std::string other = autotuneKey("dot A", "Other GPU cc 8.0");
  EXPECT_NE(autotuneEntryPath(dir.str(), key), autotuneEntryPath(dir.str(), other));
  std::filesystem::copy_file(autotuneEntryPath(dir.str(), key),
                             autotuneEntryPath(dir.str(), other));
  std::string why;
  EXPECT_FALSE(readDecision(dir.str(), other, &why).has_value());
  EXPECT_NE(why.find("another key"), std::string::npos) << why;

  // A tile the emitter cannot take is a damaged entry.
  d.winner.tile.m = 96;
  ASSERT_TRUE(writeDecision(dir.str(), key, d).isOk());
  EXPECT_FALSE(readDecision(dir.str(), key, &why).has_value());
  EXPECT_NE(why.find("tile out of range"), std::string::npos) << why;

  // Not JSON at all.
  std::ofstream(autotuneEntryPath(dir.str(), key), std::ios::trunc) << "\x01\x02";
  EXPECT_FALSE(readDecision(dir.str(), key, &why).has_value());
  EXPECT_FALSE(why.empty());
}

TEST(AutotuneCache, UnwritableDirectoryDoesNotFailTheCompile) {
  CacheDir dir;
  std::filesystem::create_directories(dir.str());
  std::ofstream(dir.str() + "/autotune") << "a file where the folder should be";
  FakeMeasurer fake;
  fake.times = {{"library", 1.0}};
  CompiledAutotune c =
      compileAutotuned(denseRelu(ElementType::BF16, 64, 64, 64), 2, &fake, dir.str());
  EXPECT_EQ(c.gemms, 1u);
  EXPECT_EQ(c.autotune, "autotuned: library (1.0 us) over 3 candidates");
}

// --- report -------------------------------------------------------------

TEST(AutotuneReport, NoteEndsTheRowAndTheLogLine) {
  RouteReport report;
  RouteEntry tuned;
  tuned.name = "fusion_1_matmul";
  tuned.route = "ttir";
  tuned.family = "matmul";
  tuned.ops = "dot_general";
  tuned.shapes = "tensor<64x64xf32>";
  tuned.tile = "64x64x64";
  MatmulDecision d;
  d.winner.tile = {64, 64, 64, 8, 4, 1};
  d.micros = 3.04;
  d.candidates = 3;
  tuned.autotune = autotuneNote(d);
  EXPECT_EQ(tuned.autotune, "autotuned: ttir 64x64x64 w4 s1 (3.0 us) over 3 candidates");
  d.cached = true;
  d.winner.library = true;
  EXPECT_EQ(autotuneNote(d), "autotuned (cached): library (3.0 us) over 3 candidates");
  RouteEntry plain = tuned;
  plain.name = "fusion_2_loop";
  plain.autotune.clear();
  report.entries = {tuned, plain};
  const std::string text = report.text();
  const size_t row = text.find("fusion_1_matmul");
  ASSERT_NE(row, std::string::npos);
  const std::string line = text.substr(row, text.find('\n', row) - row);
  EXPECT_EQ(line.substr(line.size() - tuned.autotune.size()), tuned.autotune) << text;
  const size_t other = text.find("fusion_2_loop");
  EXPECT_EQ(text.substr(other, text.find('\n', other) - other).find("autotuned"),
            std::string::npos);
  EXPECT_NE(logLine(tuned).find(" autotuned: ttir 64x64x64 w4 s1 (3.0 us)"),
            std::string::npos);
}

}  // namespace
}  // namespace jft::compiler
