// Multi-output and sibling fusion end to end on the CPU: a function compiled
// (fake-worker binaries) into kernels that store extra outputs and run in an
// order other than their roots', each kernel replaced by a host evaluation of
// its group's ops (host_eval.h: each op by its StableHLO definition, reading
// the kernel's input buffers, writing its output buffers), run on the
// runtime's recording device. The outputs must equal the whole function
// evaluated op by op: slots, temps, outputs and the order of the thunks all
// have to be right for that.
#include <gtest/gtest.h>

#ifdef JFT_FAKE_WORKER

#include <cstring>
#include <filesystem>
#include <map>

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
using ir::Type;
using ir::ValueId;
using runtime::testing::RecordingDevice;
using testing::f32;

// x: 4x8, y: 8x4. v = x*x is read by b = v + x (4x8) and, transposed, by
// a = v^T + y (8x4); c = 3x (4x8) reads x like b. v joins b's group (a's
// cannot store a 4x8 value) as an extra output, so that group runs before
// a's although a's root comes first; c's group is b's sibling and merges.
ir::Module program() {
  ir::Module m;
  ir::Builder b(m);
  auto p = b.beginFunction("main", {f32({4, 8}), f32({8, 4})},
                           {f32({8, 4}), f32({4, 8}), f32({4, 8})});
  ValueId v = b.op1(OpKind::Multiply, {p[0], p[0]}, f32({4, 8}));
  ValueId t = b.op1(OpKind::Transpose, {v}, f32({8, 4}),
                    {{"permutation", std::vector<int64_t>{1, 0}}});
  ValueId a = b.op1(OpKind::Add, {t, p[1]}, f32({8, 4}));
  ValueId sum = b.op1(OpKind::Add, {v, p[0]}, f32({4, 8}));
  ValueId three = b.constant(ir::denseFromValues(f32({}), {3.0}));
  ValueId wide = b.op1(OpKind::BroadcastInDim, {three}, f32({4, 8}),
                       {{"broadcast_dimensions", std::vector<int64_t>{}}});
  ValueId c = b.op1(OpKind::Multiply, {p[0], wide}, f32({4, 8}));
  b.ret({a, sum, c});
  b.endFunction();
  return m;
}

using MultiOutputRun = kernel_compiler::testing::FakeCompilerFixture<>;

TEST_F(MultiOutputRun, FusedProgramComputesWhatTheOpsDefine) {
  // The plan the compiler makes: the same passes and plan options on a copy.
  ir::Module planned = program();
  ASSERT_TRUE(passes::runPasses(planned, passes::PipelineOptions{}).isOk());
  fusion::PlanOptions plan_options;
  plan_options.library_route = true;
  plan_options.control_route = true;
  Options options;
  options.mode = Mode::kFlOnly;
  plan_options.matmul = options.matmul;
  const ir::Function& entry = *planned.entry();
  const fusion::Plan plan =
      fusion::planFusions(planned, entry, ::jft::codegen::ttir::withTtir(plan_options));

  Stages stages;
  StatusOr<Executable> built =
      compileModule(program(), options, compiler_.get(), &stages);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  ASSERT_EQ(stages.plan, fusion::describePlan(planned, entry, plan))
      << "the test's plan is not the compiler's";
  testing::expectConsistentProgram(built->program, true);

  // What fusion makes of it: two kernels, the first storing three values
  // (v for the second kernel, and two results), run before the kernel whose
  // root comes first in the function.
  ASSERT_EQ(plan.fusions.size(), 2u) << stages.plan;
  EXPECT_EQ(plan.fusions[0].outputs.size(), 3u) << stages.plan;
  EXPECT_GT(plan.fusions[0].ops.back(), plan.fusions[1].ops.back()) << stages.plan;
  EXPECT_EQ(built->program.kernels.size(), 2u);

  // Each kernel: its group's ops on the host, buffers in the kernel's order
  // (inputs, then outputs).
  RecordingDevice device;
  for (const fusion::Fusion& group : plan.fusions) {
    device.setKernelBody(
        group.name, [&planned, &entry, group](const std::vector<uint64_t>& buffers,
                                              const runtime::LaunchDims&) {
          size_t in_at = 0, out_at = group.inputs.size();
          testing::runGroupOnBuffers(planned, entry, group, buffers, in_at, out_at);
        });
  }
  auto loaded = runtime::Executable::load(device, built->program);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();

  // Small integers: every sum and product is exact in f32 and in double.
  std::vector<std::vector<float>> inputs(2);
  for (int e = 0; e < 32; ++e) {
    inputs[0].push_back(static_cast<float>(e % 7 - 3));
    inputs[1].push_back(static_cast<float>(e % 5));
  }
  StatusOr<std::vector<std::vector<float>>> got =
      testing::runF32(device, **loaded, inputs);
  ASSERT_TRUE(got.isOk()) << got.status().toString();

  // The reference: the unplanned function, op by op.
  ir::Module reference = program();
  testing::HostEval whole(reference);
  const ir::Function& f = *reference.entry();
  for (size_t i = 0; i < 2; ++i)
    whole.values[f.body.args[i]] = {
        reference.typeOf(f.body.args[i]).dims,
        std::vector<double>(inputs[i].begin(), inputs[i].end())};
  whole.run(f);
  const ir::Op& ret = f.body.ops.back();
  ASSERT_EQ(got->size(), ret.operands.size());
  for (size_t o = 0; o < ret.operands.size(); ++o) {
    const std::vector<double>& want = whole.values.at(ret.operands[o]).data;
    ASSERT_EQ((*got)[o].size(), want.size());
    for (size_t e = 0; e < want.size(); ++e)
      EXPECT_EQ((*got)[o][e], static_cast<float>(want[e]))
          << "output " << o << " at " << e;
  }
}

}  // namespace
}  // namespace jft::compiler

#endif  // JFT_FAKE_WORKER
