// Horizontal fusion end to end on the CPU: small independent loop groups
// compiled (fake-worker binaries) into one combined launch, which the
// recording device runs as each member's group evaluated on the host in
// turn, reading and writing the combined kernel's buffers (every member's
// inputs, then every member's outputs). The outputs must equal the function
// evaluated op by op; a group that reads a run's output, or one too large,
// stays a launch of its own; XLA_FLAGTREE_HORIZONTAL=0 turns it off.
#include <gtest/gtest.h>

#ifdef JFT_FAKE_WORKER

#include <cstring>
#include <filesystem>

#include "codegen/ttir/capability.h"
#include "compiler/compiler.h"
#include "compiler/host_eval.h"
#include "compiler/ir_shorthands.h"
#include "compiler/program_checks.h"
#include "compiler/run_f32.h"
#include "fusion/fusion.h"
#include "ir/builder.h"
#include "kernel_compiler/fake_compiler_fixture.h"
#include "passes/pipeline.h"
#include "runtime/executable.h"
#include "runtime/recording_device.h"

namespace jft::compiler {
namespace {

namespace fs = std::filesystem;
using ir::OpKind;
using ir::ValueId;
using runtime::testing::RecordingDevice;
using testing::f32;

// x*x on f32[big], y+y on f32[6], z*z on f32[4]: three loop groups that
// read nothing of each other's.
ir::Module threeIndependent(int64_t big) {
  ir::Module m;
  ir::Builder b(m);
  auto p = b.beginFunction("main", {f32({big}), f32({6}), f32({4})},
                           {f32({big}), f32({6}), f32({4})});
  ValueId a = b.op1(OpKind::Multiply, {p[0], p[0]}, f32({big}));
  ValueId c = b.op1(OpKind::Add, {p[1], p[1]}, f32({6}));
  ValueId d = b.op1(OpKind::Multiply, {p[2], p[2]}, f32({4}));
  b.ret({a, c, d});
  b.endFunction();
  return m;
}

// v = x*x is read, transposed, by a second loop group: the second reads
// what the first writes, so the two cannot share a launch.
ir::Module dependent() {
  ir::Module m;
  ir::Builder b(m);
  auto p =
      b.beginFunction("main", {f32({4, 8}), f32({8, 4})}, {f32({8, 4}), f32({4, 8})});
  ValueId v = b.op1(OpKind::Multiply, {p[0], p[0]}, f32({4, 8}));
  ValueId t = b.op1(OpKind::Transpose, {v}, f32({8, 4}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  ValueId a = b.op1(OpKind::Add, {t, p[1]}, f32({8, 4}));
  ValueId sum = b.op1(OpKind::Add, {v, p[0]}, f32({4, 8}));
  b.ret({a, sum});
  b.endFunction();
  return m;
}

size_t launches(const runtime::Program& p) {
  size_t n = 0;
  for (const runtime::Thunk& t : p.thunks)
    n += std::holds_alternative<runtime::LaunchThunk>(t);
  return n;
}

class HorizontalRun : public kernel_compiler::testing::FakeCompilerFixture<> {
 protected:
  StatusOr<Executable> build(ir::Module module, bool horizontal,
                             Mode mode = Mode::kFlOnly) {
    Options options;
    options.mode = mode;
    options.horizontal = horizontal;
    return compileModule(std::move(module), options, compiler_.get());
  }
};

TEST_F(HorizontalRun, IndependentSmallGroupsRunAsOneLaunch) {
  // The plan the compiler makes, for the members' ops.
  ir::Module planned = threeIndependent(8);
  ASSERT_TRUE(passes::runPasses(planned, passes::PipelineOptions{}).isOk());
  fusion::PlanOptions plan_options;
  plan_options.library_route = true;
  plan_options.control_route = true;
  const ir::Function& entry = *planned.entry();
  const fusion::Plan plan =
      fusion::planFusions(planned, entry, ::jft::codegen::ttir::withTtir(plan_options));
  ASSERT_EQ(plan.fusions.size(), 3u);

  StatusOr<Executable> apart = build(threeIndependent(8), false);
  ASSERT_TRUE(apart.isOk()) << apart.status().toString();
  EXPECT_EQ(launches(apart->program), 3u);

  StatusOr<Executable> built = build(threeIndependent(8), true);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const runtime::Program& program = built->program;
  testing::expectConsistentProgram(program, true);
  ASSERT_EQ(program.kernels.size(), 1u);
  ASSERT_EQ(launches(program), 1u);
  const std::string combined = "hfusion_" + plan.fusions[0].name;
  EXPECT_EQ(program.kernels[0].name, combined);
  // The report keeps a row per group: the first two name the launch they
  // joined, the last shows the members' tiles side by side.
  ASSERT_EQ(built->report.entries.size(), 3u);
  EXPECT_EQ(built->report.entries[0].tile, "in " + combined);
  EXPECT_EQ(built->report.entries[1].tile, "in " + combined);
  EXPECT_NE(built->report.entries[2].tile.find(" | "), std::string::npos);
  EXPECT_TRUE(built->report.entries[2].compiled);
  // The worker's time per stage, in pipeline order, for the log line.
  std::vector<std::string> stages;
  for (const auto& [stage, seconds] : built->report.entries[2].stage_seconds)
    stages.push_back(stage);
  EXPECT_EQ(stages,
            (std::vector<std::string>{"parse", "ttir", "ttgir", "llir", "ptx", "cubin"}));

  // The combined kernel: each member's group on the host, its inputs at the
  // front of the buffer list in member order, its outputs after all inputs.
  RecordingDevice device;
  device.setKernelBody(
      combined, [&](const std::vector<uint64_t>& buffers, const runtime::LaunchDims&) {
        size_t inputs = 0;
        for (const fusion::Fusion& group : plan.fusions) inputs += group.inputs.size();
        size_t in_at = 0, out_at = inputs;
        for (const fusion::Fusion& group : plan.fusions)
          testing::runGroupOnBuffers(planned, entry, group, buffers, in_at, out_at);
      });
  auto loaded = runtime::Executable::load(device, program);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();

  const std::vector<std::vector<float>> inputs = {
      {1, -2, 3, -4, 5, -6, 7, -8}, {0.5f, 1, 1.5f, 2, 2.5f, 3}, {-3, 4, -5, 6}};
  StatusOr<std::vector<std::vector<float>>> got =
      testing::runF32(device, **loaded, inputs);
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  const std::vector<std::vector<float>> want = {
      {1, 4, 9, 16, 25, 36, 49, 64}, {1, 2, 3, 4, 5, 6}, {9, 16, 25, 36}};
  EXPECT_EQ(*got, want);
}

TEST_F(HorizontalRun, AGroupTooLargeKeepsItsOwnLaunch) {
  StatusOr<Executable> built = build(threeIndependent(int64_t{1} << 22), true);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  EXPECT_EQ(built->program.kernels.size(), 2u);
  EXPECT_EQ(launches(built->program), 2u);
  ASSERT_EQ(built->report.entries.size(), 3u);
  EXPECT_EQ(built->report.entries[0].tile.find("in "), std::string::npos);
  EXPECT_EQ(built->report.entries[1].tile.rfind("in hfusion_", 0), 0u);
}

TEST_F(HorizontalRun, AGroupReadingTheRunsOutputStartsANewOne) {
  StatusOr<Executable> built = build(dependent(), true);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  EXPECT_EQ(launches(built->program), 2u);
  for (const RouteEntry& entry : built->report.entries)
    EXPECT_EQ(entry.tile.find("hfusion"), std::string::npos) << entry.tile;
}

TEST_F(HorizontalRun, ACombinedLaunchThatFailsToCompileIsSplitBack) {
  // The combined kernel fails (fault injection); its members compile alone
  // and the program runs them one by one, as without horizontal fusion.
  Options options;
  options.mode = Mode::kFlOnly;
  options.fail_kernels = {"hfusion_"};
  StatusOr<Executable> built =
      compileModule(threeIndependent(8), options, compiler_.get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  testing::expectConsistentProgram(built->program, true);
  EXPECT_EQ(launches(built->program), 3u);
  ASSERT_EQ(built->program.kernels.size(), 3u);
  for (const runtime::KernelImage& k : built->program.kernels)
    EXPECT_EQ(k.name.find("hfusion_"), std::string::npos) << k.name;
  for (const RouteEntry& entry : built->report.entries) {
    EXPECT_EQ(entry.tile.find("hfusion"), std::string::npos) << entry.tile;
    EXPECT_TRUE(entry.compiled) << entry.name;
  }
}

TEST_F(HorizontalRun, BackFailKeepsEveryGroupItsOwnLaunch) {
  // Its fallback to the native route is per group.
  StatusOr<Executable> built = build(threeIndependent(8), true, Mode::kBackFail);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  EXPECT_EQ(launches(built->program), 3u);
}

}  // namespace
}  // namespace jft::compiler

#endif  // JFT_FAKE_WORKER
