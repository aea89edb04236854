// Runs of launches replayed as device graphs (runtime/executable_graphs.cc),
// on the recording device: from the device's chosen execution on, a run of
// four or more launches is one graph; launches reading parameter or output
// slots are updated when those move; results equal the launch-by-launch ones.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "recording_device.h"
#include "runtime/activity_scope.h"
#include "runtime/executable.h"
#include "test_programs.h"
#include "vector_fixture.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;
using Op = RecordedOp::Kind;

// `runs[r]` launches each, the runs separated by a copy of the running value
// into a second temp: x + c + c + ... lands in the output, which a last copy
// (or, with `launchWritesOutput`, the last launch) writes.
//   slots: 0 x, 1 c (constant), 2 t (temp at 0), 3 u (temp at 256), 4 out
Program chainProgram(const std::vector<int>& runs, bool launchWritesOutput = false) {
  Program p;
  p.name = "chain";
  p.kernels.push_back(addKernel());
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  BufferSlot constant = slot(K::kConstant, kVectorBytes);
  constant.data = floatBytes(std::vector<float>(kElements, 1.0f));
  p.slots.push_back(constant);
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 0));
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 256));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  int value = 0;  // the slot holding the running sum
  for (size_t r = 0; r < runs.size(); ++r) {
    for (int i = 0; i < runs[r]; ++i) {
      const bool last = r + 1 == runs.size() && i + 1 == runs[r];
      const int into = last && launchWritesOutput ? 4 : (value == 2 ? 3 : 2);
      p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {value, 1, into}});
      value = into;
    }
    if (r + 1 < runs.size()) {
      p.thunks.push_back(CopyThunk{value, value == 2 ? 3 : 2, kVectorBytes});
      value = value == 2 ? 3 : 2;
    }
  }
  if (!launchWritesOutput) p.thunks.push_back(CopyThunk{value, 4, kVectorBytes});
  p.temp_bytes = 512;
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {4};
  p.output_aliases = {-1};
  return p;
}

// t = x; a loop of `trips` (known) whose body adds c four times, its last
// launch writing the output when `bodyWritesOutput` (then t = out after it):
// out = x + 4 * trips * c.
//   slots: 0 x, 1 c (constant), 2 t (temp at 0), 3 u (temp at 256), 4 out
Program loopProgram(int64_t trips, bool bodyWritesOutput) {
  Program p = chainProgram({0});
  p.thunks.clear();
  p.thunks.push_back(CopyThunk{0, 2, kVectorBytes});
  const int last = bodyWritesOutput ? 4 : 2;
  std::vector<Thunk> body = {
      LaunchThunk{0, {1, 1, 1}, {2, 1, 3}}, LaunchThunk{0, {1, 1, 1}, {3, 1, 2}},
      LaunchThunk{0, {1, 1, 1}, {2, 1, 3}}, LaunchThunk{0, {1, 1, 1}, {3, 1, last}}};
  if (bodyWritesOutput) body.push_back(CopyThunk{4, 2, kVectorBytes});
  p.lists.push_back({});    // 0: cond (a known trip count never runs it)
  p.lists.push_back(body);  // 1: body
  p.thunks.push_back(WhileThunk{0, -1, 1, trips});
  if (!bodyWritesOutput) p.thunks.push_back(CopyThunk{2, 4, kVectorBytes});
  return p;
}

class LaunchGraphTest : public VectorDeviceTest {
 protected:
  // Runs once with `x` and checks out = x + additions; the ops it queued.
  std::vector<RecordedOp> run(Executable& executable, uint64_t x, int additions) {
    device_.clearOps();
    ExecuteArgument argument{x, kVectorBytes, false};
    auto result = executable.execute({&argument, 1});
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    if (!result.isOk()) return {};
    for (int i = 0; i < kElements; ++i)
      EXPECT_EQ(floats(result->outputs[0].address)[i], floats(x)[i] + additions) << i;
    device_.deallocate(result->outputs[0].address, result->outputs[0].bytes);
    return device_.ops();
  }
  static size_t count(const std::vector<RecordedOp>& ops, Op kind) {
    size_t n = 0;
    for (const RecordedOp& op : ops) n += op.kind == kind;
    return n;
  }
};

TEST_F(LaunchGraphTest, ARunIsOneGraphFromTheDevicesExecutionOn) {
  device_.enableGraphs(2);
  auto executable = load(chainProgram({5}));
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  auto first = run(*executable, x, 5);
  EXPECT_EQ(count(first, Op::kGraphCreate), 0u) << "the first execution records nothing";
  EXPECT_EQ(count(first, Op::kLaunch), 5u);
  for (int execution = 2; execution <= 4; ++execution) {
    auto ops = run(*executable, x, 5);
    EXPECT_EQ(count(ops, Op::kGraphCreate), execution == 2 ? 1u : 0u) << execution;
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 1u) << execution;
    EXPECT_EQ(count(ops, Op::kGraphUpdate), 0u) << "x stayed where it was";
    EXPECT_EQ(count(ops, Op::kCopy), 1u) << "the copy to the output follows the graph";
  }
  EXPECT_EQ(device_.liveGraphs(), 1u);
  executable.reset();
  EXPECT_EQ(device_.liveGraphs(), 0u);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(LaunchGraphTest, LaunchesOfMovedSlotsAreUpdatedAndOnlyThose) {
  device_.enableGraphs(1);
  auto executable = load(chainProgram({5}, /*launchWritesOutput=*/true));
  ASSERT_NE(executable, nullptr);
  uint64_t a = input(0.0f), b = input(40.0f);
  run(*executable, a, 5);
  for (uint64_t x : {b, a, a, b}) {
    auto ops = run(*executable, x, 5);
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 1u);
    for (const RecordedOp& op : ops) {
      if (op.kind != Op::kGraphUpdate) continue;
      EXPECT_TRUE(op.bytes == 0 || op.bytes == 4)
          << "launch " << op.bytes << " reads and writes temps only";
    }
  }
  device_.deallocate(a, kVectorBytes);
  device_.deallocate(b, kVectorBytes);
}

TEST_F(LaunchGraphTest, ANewArgumentUpdatesTheLaunchThatReadsIt) {
  device_.enableGraphs(1);
  auto executable = load(chainProgram({4}));
  ASSERT_NE(executable, nullptr);
  uint64_t a = input(0.0f), b = input(7.0f);
  run(*executable, a, 4);
  auto moved = run(*executable, b, 4);
  ASSERT_EQ(count(moved, Op::kGraphUpdate), 1u);
  for (const RecordedOp& op : moved) {
    if (op.kind != Op::kGraphUpdate) continue;
    EXPECT_EQ(op.bytes, 0u);
    EXPECT_EQ(op.params.at(0), b);
  }
  EXPECT_EQ(count(run(*executable, b, 4), Op::kGraphUpdate), 0u);
  device_.deallocate(a, kVectorBytes);
  device_.deallocate(b, kVectorBytes);
}

TEST_F(LaunchGraphTest, RunsAreSplitByOtherStepsAndShortRunsLaunchOneByOne) {
  device_.enableGraphs(1);
  auto executable = load(chainProgram({4, 3, 6}));
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(2.0f);
  for (int execution = 0; execution < 2; ++execution) {
    auto ops = run(*executable, x, 13);
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 2u);
    // The run of three between them launches directly: the graphs' ten
    // launches are recorded at replay as well.
    EXPECT_EQ(count(ops, Op::kLaunch), 13u);
    size_t graphLaunches = 0, lastGraph = 0;
    for (size_t i = 0; i < ops.size(); ++i)
      if (ops[i].kind == Op::kGraphLaunch) {
        graphLaunches += ops[i].bytes;
        lastGraph = i;
      }
    EXPECT_EQ(graphLaunches, 10u);
    EXPECT_EQ(ops[lastGraph].bytes, 6u) << "the second graph is the run of six";
  }
  EXPECT_EQ(device_.liveGraphs(), 2u);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(LaunchGraphTest, ALoopBodyIsOneGraphReplayedEachIteration) {
  device_.enableGraphs(1);
  auto executable = load(loopProgram(3, /*bodyWritesOutput=*/false));
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  for (int execution = 0; execution < 3; ++execution) {
    auto ops = run(*executable, x, 12);
    EXPECT_EQ(count(ops, Op::kGraphCreate), execution == 0 ? 1u : 0u);
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 3u) << "one replay per iteration";
    EXPECT_EQ(count(ops, Op::kGraphUpdate), 0u);
  }
  device_.deallocate(x, kVectorBytes);
}

TEST_F(LaunchGraphTest, ABodyWritingTheOutputIsUpdatedOncePerExecution) {
  device_.enableGraphs(1);
  auto executable = load(loopProgram(5, /*bodyWritesOutput=*/true));
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  for (int execution = 0; execution < 4; ++execution) {
    auto ops = run(*executable, x, 20);
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 5u);
    EXPECT_LE(count(ops, Op::kGraphUpdate), 1u)
        << "the output moves between executions, not between iterations";
  }
  device_.deallocate(x, kVectorBytes);
}

TEST_F(LaunchGraphTest, TracedExecutionsLaunchOneByOne) {
  device_.enableGraphs(1);
  auto executable = load(loopProgram(2, /*bodyWritesOutput=*/false));
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  const ActivityScopeHooks hooks{[](uint64_t) {}, [] {}};
  setActivityScopeHooks(&hooks);
  auto ops = run(*executable, x, 8);
  setActivityScopeHooks(nullptr);
  EXPECT_EQ(count(ops, Op::kGraphLaunch), 0u);
  EXPECT_EQ(count(ops, Op::kLaunch), 8u);
  EXPECT_EQ(count(run(*executable, x, 8), Op::kGraphLaunch), 2u) << "untraced again";
  device_.deallocate(x, kVectorBytes);
}

// Launches and 4x4 products in one run: t = x + c; u = t W; t = u + c;
// u = t + c; out = u W (out an output slot, so the last product follows it).
Program productChainProgram() {
  Program p = chainProgram({0});
  p.thunks.clear();
  BufferSlot w = slot(K::kConstant, kVectorBytes);
  std::vector<float> values(kElements);
  for (int i = 0; i < kElements; ++i) values[i] = static_cast<float>(i % 5) - 2.0f;
  w.data = floatBytes(values);
  p.slots.push_back(w);  // 5
  GemmDesc g;
  g.m = g.n = g.k = 4;
  g.a = {GemmType::kF32, false, 4, 16};
  g.b = {GemmType::kF32, false, 4, 16};
  g.d_ld = 4;
  g.d_batch_stride = 16;
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {0, 1, 2}});
  p.thunks.push_back(GemmThunk{g, 2, 5, 3});
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {3, 1, 2}});
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {2, 1, 3}});
  p.thunks.push_back(GemmThunk{g, 3, 5, 4});
  return p;
}

TEST_F(LaunchGraphTest, LibraryProductsJoinTheRunWhereTheDeviceRecordsThem) {
  RecordingDevice reference;
  reference.setKernelBody("add", addBody());
  auto direct = Executable::load(reference, productChainProgram());
  ASSERT_TRUE(direct.isOk());
  device_.enableGraphs(1, /*libraryCalls=*/true);
  auto executable = load(productChainProgram());
  ASSERT_NE(executable, nullptr);
  std::vector<ExecuteResult> kept;  // outputs stay allocated, so each lands elsewhere
  for (float start : {1.0f, 1.0f, -3.0f}) {
    uint64_t x = input(start);
    uint64_t expectedX = *reference.allocate(kVectorBytes);
    std::memcpy(reinterpret_cast<void*>(expectedX), reinterpret_cast<void*>(x),
                kVectorBytes);
    ExecuteArgument argument{expectedX, kVectorBytes, false};
    auto expected = (*direct)->execute({&argument, 1});
    ASSERT_TRUE(expected.isOk());
    device_.clearOps();
    ExecuteArgument ours{x, kVectorBytes, false};
    auto result = executable->execute({&ours, 1});
    ASSERT_TRUE(result.isOk()) << result.status().toString();
    auto ops = device_.ops();
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 1u) << "three launches and two products";
    if (!kept.empty()) {
      size_t libraryUpdates = 0;
      for (const RecordedOp& op : ops)
        libraryUpdates += op.kind == Op::kGraphUpdate && op.kernel == "library call";
      EXPECT_EQ(libraryUpdates, 1u)
          << "the product writing the moved output is recorded again";
    }
    for (int i = 0; i < kElements; ++i)
      EXPECT_EQ(floats(result->outputs[0].address)[i],
                floats(expected->outputs[0].address)[i])
          << i;
    kept.push_back(std::move(result).value());
  }
  for (const ExecuteResult& r : kept)
    for (const auto& output : r.outputs) device_.deallocate(output.address, output.bytes);
}

TEST_F(LaunchGraphTest, WithoutRecordedLibraryCallsAProductEndsTheRun) {
  device_.enableGraphs(1);
  auto executable = load(productChainProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  device_.clearOps();
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  EXPECT_EQ(count(device_.ops(), Op::kGraphLaunch), 0u) << "no run of four launches";
  device_.deallocate(result->outputs[0].address, result->outputs[0].bytes);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(LaunchGraphTest, WithoutGraphsEveryLaunchGoesOneByOne) {
  auto executable = load(chainProgram({6}));  // graphs not enabled: from 0
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  for (int execution = 0; execution < 3; ++execution) {
    auto ops = run(*executable, x, 6);
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 0u);
    EXPECT_EQ(count(ops, Op::kLaunch), 6u);
  }
  device_.deallocate(x, kVectorBytes);
}

TEST_F(LaunchGraphTest, AGraphTheDeviceCannotMakeFallsBackToLaunches) {
  device_.enableGraphs(1);
  device_.failGraphs(true);
  auto executable = load(chainProgram({5, 5}));
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(3.0f);
  for (int execution = 0; execution < 3; ++execution) {
    auto ops = run(*executable, x, 10);
    EXPECT_EQ(count(ops, Op::kGraphLaunch), 0u);
    EXPECT_EQ(count(ops, Op::kLaunch), 10u);
  }
  EXPECT_EQ(device_.liveGraphs(), 0u);
  device_.deallocate(x, kVectorBytes);
}

}  // namespace
}  // namespace jft::runtime::testing
