// The planner on the zoo (real JAX programs after the pass pipeline): the
// groups a reader of each program's text expects, and the plan contract on
// every program.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "codegen/ttir/capability.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "fusion/ttir_support.h"
#include "passes/pipeline.h"
#include "plan_checks.h"

namespace jft::fusion {
namespace {

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(fixtureDir()))
    if (std::filesystem::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The fixture imported and run through the pass pipeline.
ir::Module load(const std::string& name) {
  std::ifstream in(fixtureDir() + "/" + name + "/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << name;
  StatusOr<ir::Module> imported = frontend::importStableHlo(bytes.data(), bytes.size());
  EXPECT_TRUE(imported.isOk()) << imported.status().toString();
  if (!imported.isOk()) return {};
  ir::Module m = std::move(imported).value();
  StatusOr<passes::PipelineReport> report = passes::runPasses(m);
  EXPECT_TRUE(report.isOk()) << report.status().toString();
  return m;
}

struct Planned {
  ir::Module module;
  Plan plan;
  const ir::Function& main() const { return *module.entry(); }
  const ir::Op& op(size_t i) const { return main().body.ops[i]; }
  std::string text() const { return describePlan(module, main(), plan); }
};

Planned planFixture(const std::string& name, const PlanOptions& options = {}) {
  Planned p{load(name), {}};
  if (p.module.entry())
    p.plan =
        planFusions(p.module, *p.module.entry(), ::jft::codegen::ttir::withTtir(options));
  return p;
}

std::vector<const Fusion*> ofRoute(const Plan& plan, Route route) {
  std::vector<const Fusion*> out;
  for (const Fusion& f : plan.fusions)
    if (f.route == route) out.push_back(&f);
  return out;
}

size_t countKind(const Planned& p, const Fusion& f, ir::OpKind kind) {
  return std::count_if(f.ops.begin(), f.ops.end(),
                       [&](size_t i) { return p.op(i).kind == kind; });
}

size_t countKind(const Planned& p, ir::OpKind kind) {
  const auto& ops = p.main().body.ops;
  return std::count_if(ops.begin(), ops.end(),
                       [&](const ir::Op& op) { return op.kind == kind; });
}

class ZooPlan : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooPlan, KeepsThePlanContract) {
  Planned p = planFixture(GetParam());
  ASSERT_NE(p.module.entry(), nullptr);
  testing::checkPlan(p.module, p.main(), p.plan);
  PlanOptions unfused;
  unfused.fuse = false;
  Plan one_each =
      planFusions(p.module, p.main(), ::jft::codegen::ttir::withTtir(unfused));
  testing::checkPlan(p.module, p.main(), one_each);
  // Unfused, a group holds one op besides the constants copied into it.
  for (const Fusion& f : one_each.fusions)
    EXPECT_LE(
        std::count_if(f.ops.begin(), f.ops.end(),
                      [&](size_t i) { return p.op(i).kind != ir::OpKind::Constant; }),
        1)
        << f.name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ZooPlan, ::testing::ValuesIn(fixtureNames()),
                         [](const auto& info) { return info.param; });

// smoke: tanh(x * 1.25 + 0.5), one elementwise chain.
TEST(ZooPlanShapes, SmokeIsOneLoopKernel) {
  Planned p = planFixture("smoke");
  ASSERT_EQ(p.plan.fusions.size(), 1u) << p.text();
  const Fusion& f = p.plan.fusions[0];
  EXPECT_EQ(f.route, Route::kTtir);
  EXPECT_EQ(f.family, Family::kLoop);
  EXPECT_EQ(f.ops.size(), p.main().body.ops.size() - 1);  // all but the return
  EXPECT_EQ(f.inputs, p.main().body.args);
  EXPECT_EQ(f.outputs, p.main().body.ops.back().operands);
  EXPECT_TRUE(p.plan.unsupported.empty());
}

// softmax: max-reduce, subtract, exp, sum-reduce, divide over rows of 128.
TEST(ZooPlanShapes, SoftmaxIsOneReductionKernel) {
  Planned p = planFixture("softmax");
  ASSERT_EQ(p.plan.fusions.size(), 1u) << p.text();
  const Fusion& f = p.plan.fusions[0];
  EXPECT_EQ(f.family, Family::kReduction);
  EXPECT_EQ(countKind(p, f, ir::OpKind::Reduce), 2u);
  EXPECT_EQ(countKind(p, f, ir::OpKind::Exponential), 1u);
  EXPECT_EQ(f.reduce_shape, (std::vector<int64_t>{32, 128}));
  EXPECT_EQ(f.reduced_dims, (std::vector<int64_t>{1}));
  EXPECT_EQ(f.inputs, p.main().body.args);
}

// With rows longer than a tile may hold, the broadcasts back to rows split
// softmax at each reduce: reduce | subtract-exp | reduce | divide.
TEST(ZooPlanShapes, SoftmaxWithLongRowsSplitsAtTheBroadcastsBack) {
  PlanOptions options;
  options.max_row_elements = 64;
  Planned p = planFixture("softmax", options);
  testing::checkPlan(p.module, p.main(), p.plan);
  ASSERT_EQ(p.plan.fusions.size(), 4u) << p.text();
  std::vector<Family> families;
  for (const Fusion& f : p.plan.fusions) families.push_back(f.family);
  EXPECT_EQ(families, (std::vector<Family>{Family::kReduction, Family::kLoop,
                                           Family::kReduction, Family::kLoop}));
}

// layernorm: mean, centre, variance, rsqrt, scale and shift: one kernel.
TEST(ZooPlanShapes, LayerNormIsOneReductionKernel) {
  Planned p = planFixture("layernorm");
  ASSERT_EQ(p.plan.fusions.size(), 1u) << p.text();
  const Fusion& f = p.plan.fusions[0];
  EXPECT_EQ(f.family, Family::kReduction);
  EXPECT_EQ(countKind(p, f, ir::OpKind::Reduce), 2u);
  EXPECT_EQ(countKind(p, f, ir::OpKind::Rsqrt), 1u);
  EXPECT_EQ(f.inputs.size(), 3u);
  EXPECT_EQ(f.outputs, p.main().body.ops.back().operands);
}

TEST(ZooPlanShapes, DataMovementAndDtypesNeedOnlyTtir) {
  for (const char* name : {"shapes", "mixed_dtypes", "random_normal"}) {
    Planned p = planFixture(name);
    EXPECT_TRUE(p.plan.unsupported.empty()) << name << "\n" << p.text();
    for (const Fusion& f : p.plan.fusions)
      EXPECT_TRUE(f.route == Route::kTtir || f.route == Route::kNone)
          << name << " " << f.name;
    EXPECT_FALSE(ofRoute(p.plan, Route::kTtir).empty()) << name;
  }
}

// mlp: two dot_generals (zoo.py lines 31), with the GELU between them.
TEST(ZooPlanShapes, MlpReportsItsDotsWithTheirLines) {
  PlanOptions library_only;
  library_only.matmul = MatmulRoute::kLibrary;
  Planned p = planFixture("mlp", library_only);
  ASSERT_EQ(p.plan.unsupported.size(), 2u) << p.text();
  for (const UnsupportedOp& u : p.plan.unsupported) {
    EXPECT_EQ(p.op(u.op).kind, ir::OpKind::DotGeneral);
    EXPECT_EQ(u.reason, "no library route for dot_general yet");
    EXPECT_EQ(u.location.rfind("zoo.py:31:", 0), 0u) << u.location;
  }
  EXPECT_EQ(p.plan.unsupported[0].what,
            "stablehlo.dot_general (tensor<16x64xf32>, tensor<64x256xf32>) -> "
            "tensor<16x256xf32>");
  EXPECT_EQ(p.plan.unsupported[0].location, "zoo.py:31:23");
  // The dots are each a native group; the GELU between them one loop kernel
  // holding the tanh; the bias add after the second dot another.
  EXPECT_EQ(ofRoute(p.plan, Route::kNative).size(), 2u);
  std::vector<const Fusion*> loops = ofRoute(p.plan, Route::kTtir);
  ASSERT_EQ(loops.size(), 2u) << p.text();
  EXPECT_EQ(countKind(p, *loops[0], ir::OpKind::Tanh), 1u);

  PlanOptions with_library;
  with_library.library_route = true;
  with_library.matmul = MatmulRoute::kLibrary;
  Plan library =
      planFusions(p.module, p.main(), ::jft::codegen::ttir::withTtir(with_library));
  EXPECT_TRUE(library.unsupported.empty());
  EXPECT_EQ(ofRoute(library, Route::kLibrary).size(), 2u);
  // The f32 bias add after the second dot joins its product (cuBLASLt's
  // bias epilogue); the GELU after the first (bias, then tanh) stays a loop
  // kernel.
  std::vector<const Fusion*> library_loops = ofRoute(library, Route::kTtir);
  ASSERT_EQ(library_loops.size(), 1u) << describePlan(p.module, p.main(), library);
  EXPECT_EQ(countKind(p, *library_loops[0], ir::OpKind::Tanh), 1u);

  // auto: the dots are small (16x64x256, 16x256x64 <= 2^24): f32 products
  // take the TTIR route like 16-bit ones (their tiles rounded to TF32).
  with_library.matmul = MatmulRoute::kAuto;
  Plan automatic =
      planFusions(p.module, p.main(), ::jft::codegen::ttir::withTtir(with_library));
  EXPECT_TRUE(automatic.unsupported.empty());
  EXPECT_TRUE(ofRoute(automatic, Route::kLibrary).empty())
      << describePlan(p.module, p.main(), automatic);

  // ttir: each is a TTIR matmul kernel, the second with the bias add after
  // it fused.
  with_library.matmul = MatmulRoute::kTtir;
  Plan ttir =
      planFusions(p.module, p.main(), ::jft::codegen::ttir::withTtir(with_library));
  EXPECT_TRUE(ttir.unsupported.empty());
  EXPECT_TRUE(ofRoute(ttir, Route::kLibrary).empty());
  size_t matmuls = 0;
  for (const Fusion& f : ttir.fusions) matmuls += f.family == Family::kMatmul;
  EXPECT_EQ(matmuls, 2u) << describePlan(p.module, p.main(), ttir);
}

// sort_topk: jnp.sort and lax.top_k (sort of (values, iota), then slices)
// are sort groups, the iota computed inside; nothing is left unsupported.
TEST(ZooPlanShapes, SortTopKSortsInTtir) {
  Planned p = planFixture("sort_topk");
  EXPECT_TRUE(p.plan.unsupported.empty()) << p.text();
  size_t sorts = 0;
  for (const Fusion& f : p.plan.fusions) {
    if (countKind(p, f, ir::OpKind::Sort) == 0) continue;
    ++sorts;
    EXPECT_EQ(f.family, Family::kSort) << f.name;
    EXPECT_EQ(countKind(p, f, ir::OpKind::Sort), 1u) << f.name;
    EXPECT_EQ(f.inputs, std::vector<ir::ValueId>{p.main().body.args[0]}) << f.name;
  }
  EXPECT_EQ(sorts, countKind(p, ir::OpKind::Sort));
  EXPECT_EQ(sorts, 2u);
}

// gather_scatter: x[idx] and x.at[idx].add(u) share jnp's negative-index
// wrap (CSE makes it one value), so the wrap is a loop group of its own; the
// gather (a loop group with the index broadcast copied in) reads the table
// and the wrapped indices; the scatter is a scatter group.
TEST(ZooPlanShapes, GatherIsALoopGroupAndScatterItsOwnGroup) {
  Planned p = planFixture("gather_scatter");
  EXPECT_TRUE(p.plan.unsupported.empty()) << p.text();
  const Fusion* gather = nullptr;
  const Fusion* scatter = nullptr;
  for (const Fusion& f : p.plan.fusions) {
    if (countKind(p, f, ir::OpKind::Gather) > 0) gather = &f;
    if (countKind(p, f, ir::OpKind::Scatter) > 0) scatter = &f;
  }
  ASSERT_NE(gather, nullptr) << p.text();
  ASSERT_NE(scatter, nullptr) << p.text();
  EXPECT_EQ(gather->family, Family::kLoop);
  EXPECT_EQ(countKind(p, *gather, ir::OpKind::BroadcastInDim), 1u) << p.text();
  EXPECT_EQ(gather->inputs.size(), 2u) << p.text();
  EXPECT_EQ(scatter->family, Family::kScatter);
  EXPECT_EQ(countKind(p, *scatter, ir::OpKind::BroadcastInDim), 1u) << p.text();
  EXPECT_EQ(scatter->inputs.size(), 3u) << p.text();
}

// argmax_cumsum with the chlo.scan composite kept whole (as the compiler
// does when it asks codegen::ttir::ttirKeepsComposite): the cumsum is a scan group.
TEST(ZooPlanShapes, KeptChloScanIsAScanGroup) {
  std::ifstream in(fixtureDir() + "/argmax_cumsum/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  StatusOr<ir::Module> imported = frontend::importStableHlo(bytes.data(), bytes.size());
  ASSERT_TRUE(imported.isOk()) << imported.status().toString();
  ir::Module m = std::move(imported).value();
  passes::PipelineOptions options;
  options.inlining.keep_composite = [&m](const ir::Op& op) {
    return ::jft::codegen::ttir::ttirKeepsComposite(m, op);
  };
  ASSERT_TRUE(passes::runPasses(m, options).isOk());
  const Plan plan = planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  EXPECT_TRUE(plan.unsupported.empty()) << describePlan(m, *m.entry(), plan);
  size_t scans = 0;
  for (const Fusion& f : plan.fusions) scans += f.family == Family::kScan;
  EXPECT_EQ(scans, 1u) << describePlan(m, *m.entry(), plan);
}

// argmax: a two-operand reduce of (value, iota index) with its iota.
TEST(ZooPlanShapes, ArgmaxIsOneReductionWithItsIota) {
  Planned p = planFixture("argmax_cumsum");
  const Fusion* argmax = nullptr;
  for (const Fusion& f : p.plan.fusions)
    if (countKind(p, f, ir::OpKind::Reduce) > 0) argmax = &f;
  ASSERT_NE(argmax, nullptr) << p.text();
  EXPECT_EQ(argmax->family, Family::kReduction);
  EXPECT_EQ(countKind(p, *argmax, ir::OpKind::Iota), 1u);
  EXPECT_EQ(argmax->inputs, std::vector<ir::ValueId>{p.main().body.args[0]});
  // The while of the cumulative sum has no control route yet.
  bool while_reported = false;
  for (const UnsupportedOp& u : p.plan.unsupported)
    if (u.reason == "no control route for while yet") while_reported = true;
  EXPECT_TRUE(while_reported) << p.text();
}

TEST(ZooPlanShapes, RealOfAComplexValueIsALoopKernel) {
  // real(fft(x)): the fft waits for a library route; real reads the
  // complex64 pairs in a loop kernel.
  Planned p = planFixture("fft");
  ASSERT_EQ(p.plan.unsupported.size(), 1u) << p.text();
  EXPECT_EQ(p.op(p.plan.unsupported[0].op).kind, ir::OpKind::Fft);
  EXPECT_EQ(p.plan.unsupported[0].reason, "no library route for fft yet");
  bool real_in_loop = false;
  for (const Fusion& f : p.plan.fusions)
    if (f.route == Route::kTtir && f.family == Family::kLoop &&
        countKind(p, f, ir::OpKind::Real) == 1)
      real_in_loop = true;
  EXPECT_TRUE(real_in_loop) << p.text();
}

std::vector<const Fusion*> groupsOfFamily(const Plan& plan, Family family) {
  std::vector<const Fusion*> out;
  for (const Fusion& f : plan.fusions)
    if (f.family == family) out.push_back(&f);
  return out;
}

// attention (f32, q.k^T / sqrt(d), causal -1e9 fill, softmax, p.v): one
// flash-attention kernel reading q, k, v; the [2, 4, 64, 64] scores never
// leave it.
TEST(ZooPlanShapes, AttentionIsOneAttentionKernel) {
  Planned p = planFixture("attention");
  ASSERT_EQ(p.plan.fusions.size(), 1u) << p.text();
  const Fusion& f = p.plan.fusions[0];
  EXPECT_EQ(f.family, Family::kAttention);
  EXPECT_EQ(countKind(p, f, ir::OpKind::DotGeneral), 2u);
  EXPECT_EQ(countKind(p, f, ir::OpKind::Reduce), 2u);
  EXPECT_EQ(f.inputs, p.main().body.args);
  EXPECT_TRUE(p.plan.unsupported.empty()) << p.text();
}

// transformer_block: its attention is one kernel too, between the
// projections.
TEST(ZooPlanShapes, TransformerBlockAttentionIsOneKernel) {
  Planned p = planFixture("transformer_block");
  const std::vector<const Fusion*> attention = groupsOfFamily(p.plan, Family::kAttention);
  ASSERT_EQ(attention.size(), 1u) << p.text();
  EXPECT_EQ(countKind(p, *attention[0], ir::OpKind::DotGeneral), 2u);
  EXPECT_EQ(countKind(p, ir::OpKind::DotGeneral), 6u);
}

// transformer_train_step: the backward pass reads the probabilities, so the
// attention keeps today's plan (scores and probabilities in memory).
TEST(ZooPlanShapes, TransformerTrainStepHasNoAttentionKernel) {
  Planned p = planFixture("transformer_train_step");
  EXPECT_TRUE(groupsOfFamily(p.plan, Family::kAttention).empty()) << p.text();
}

}  // namespace
}  // namespace jft::fusion
