// While and conditional thunks over the recording device: how often bodies
// run (checked against the data they leave), when the runtime reads the
// device (never for a known trip count), StableHLO's branch-index clamping,
// nesting, and nested lists in load-time checks.
#include <gtest/gtest.h>

#include <cstring>

#include "recording_device.h"
#include "runtime/executable.h"
#include "runtime/program_check.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;
using Op = RecordedOp::Kind;
using P = KernelImage::Param;

// Slots: 0 x (parameter), 1 out (output), 2 counter (i32 temp), 3 pred
// (1-byte temp), 4 inner counter (i32 temp).
// Kernels: 0 "less" pred = counter < limit; 1 "step" counter += 1,
// out += x; 2 "inner_less" pred = inner < kInnerLimit; 3 "inner_step"
// inner += 1, out += x.
constexpr int kLimit = 5;
constexpr int kInnerLimit = 4;

Program loopProgram(int64_t trip_count) {
  Program p;
  p.name = "loop";
  p.kernels.push_back(kernelImage("less", {P::kBuffer, P::kBuffer}));
  p.kernels.push_back(kernelImage("step", {P::kBuffer, P::kBuffer, P::kBuffer}));
  p.kernels.push_back(kernelImage("inner_less", {P::kBuffer, P::kBuffer}));
  p.kernels.push_back(kernelImage("inner_step", {P::kBuffer, P::kBuffer, P::kBuffer}));
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.slots.push_back(slot(K::kTemp, 4, -1, 0));
  p.slots.push_back(slot(K::kTemp, 1, -1, 256));
  p.slots.push_back(slot(K::kTemp, 4, -1, 512));
  p.temp_bytes = 768;
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {1};
  // out = x; counter = 0; while (counter < limit) { counter++; out += x }
  p.thunks.push_back(CopyThunk{0, 1, kVectorBytes});
  p.thunks.push_back(MemsetThunk{2, 0, 4});
  p.lists.push_back({LaunchThunk{0, {1, 1, 1}, {2, 3}}});     // 0: cond
  p.lists.push_back({LaunchThunk{1, {1, 1, 1}, {2, 0, 1}}});  // 1: body
  p.thunks.push_back(WhileThunk{0, 3, 1, trip_count});
  return p;
}

// loopProgram with two sets of carried slots (WhileThunk's ping-pong): out
// and counter (slots 1, 2), then their second set (slots 6, 5). The body
// "step_to" computes the next values into the other set, so no body
// copies; after an odd number of bodies the exit list copies them back.
Program pingPongProgram(int64_t trip_count) {
  Program p = loopProgram(trip_count);
  p.kernels.push_back(kernelImage(
      "step_to", {P::kBuffer, P::kBuffer, P::kBuffer, P::kBuffer, P::kBuffer}));  // 4
  p.slots.push_back(slot(K::kTemp, 4, -1, 768));                                  // 5
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 1024));                      // 6
  p.temp_bytes = 1024 + kVectorBytes;
  p.lists[1] = {LaunchThunk{4, {1, 1, 1}, {2, 0, 1, 5, 6}}};               // even body
  p.lists.push_back({LaunchThunk{0, {1, 1, 1}, {5, 3}}});                  // 2: odd cond
  p.lists.push_back({LaunchThunk{4, {1, 1, 1}, {5, 0, 6, 2, 1}}});         // 3: odd body
  p.lists.push_back({CopyThunk{5, 2, 4}, CopyThunk{6, 1, kVectorBytes}});  // 4: exit
  auto& loop = std::get<WhileThunk>(p.thunks.back());
  loop.odd_cond = 2;
  loop.odd_predicate = 3;
  loop.odd_body = 3;
  loop.odd_exit = 4;
  return p;
}

class ControlFlowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto less = [](int limit) {
      return [limit](const std::vector<uint64_t>& p, const LaunchDims&) {
        *reinterpret_cast<uint8_t*>(p[1]) = *ints(p[0]) < limit ? 1 : 0;
      };
    };
    auto step = [](const std::vector<uint64_t>& p, const LaunchDims&) {
      *ints(p[0]) += 1;
      for (int i = 0; i < kElements; ++i) floats(p[2])[i] += floats(p[1])[i];
    };
    device_.setKernelBody("less", less(kLimit));
    device_.setKernelBody("inner_less", less(kInnerLimit));
    device_.setKernelBody("step", step);
    // (counter, x, out) -> (counter + 1, out + x), into other slots.
    device_.setKernelBody("step_to",
                          [](const std::vector<uint64_t>& p, const LaunchDims&) {
                            *ints(p[3]) = *ints(p[0]) + 1;
                            for (int i = 0; i < kElements; ++i)
                              floats(p[4])[i] = floats(p[2])[i] + floats(p[1])[i];
                          });
    device_.setKernelBody("inner_step", step);
    x_ = *device_.allocate(kVectorBytes);
    for (int i = 0; i < kElements; ++i) floats(x_)[i] = 1.0f + static_cast<float>(i);
  }
  void TearDown() override { device_.deallocate(x_, kVectorBytes); }

  // Runs `program` on x and returns out / x (the same for every element), or
  // -1 after a failure.
  float runMultiple(Program program) {
    auto executable = Executable::load(device_, std::move(program));
    EXPECT_TRUE(executable.isOk()) << executable.status().toString();
    if (!executable.isOk()) return -1;
    device_.clearOps();
    ExecuteArgument argument{x_, kVectorBytes, false};
    auto result = (*executable)->execute({&argument, 1});
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    if (!result.isOk()) return -1;
    uint64_t out = result->outputs[0].address;
    float multiple = floats(out)[0] / floats(x_)[0];
    for (int i = 1; i < kElements; ++i)
      EXPECT_EQ(floats(out)[i], multiple * floats(x_)[i]) << i;
    device_.deallocate(out, kVectorBytes);
    return multiple;
  }

  size_t launchesOf(const std::string& kernel) const {
    size_t n = 0;
    for (const RecordedOp& op : device_.opsOfKind(Op::kLaunch)) n += op.kernel == kernel;
    return n;
  }

  RecordingDevice device_;
  uint64_t x_ = 0;
};

TEST_F(ControlFlowTest, UnknownTripCountReadsThePredicateEachIteration) {
  EXPECT_EQ(runMultiple(loopProgram(-1)), 1.0f + kLimit);
  EXPECT_EQ(launchesOf("step"), static_cast<size_t>(kLimit));
  EXPECT_EQ(launchesOf("less"), static_cast<size_t>(kLimit + 1));
  auto downloads = device_.opsOfKind(Op::kDownload);
  ASSERT_EQ(downloads.size(), static_cast<size_t>(kLimit + 1));
  for (const RecordedOp& read : downloads) EXPECT_EQ(read.bytes, 1u);
  // Each read follows a condition launch and precedes the next body launch.
  auto ops = device_.ops();
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind != Op::kDownload) continue;
    ASSERT_GT(i, 0u);
    EXPECT_EQ(ops[i - 1].kernel, "less") << i;
  }
}

TEST_F(ControlFlowTest, KnownTripCountRunsTheBodyWithoutReadingTheDevice) {
  Program program = loopProgram(7);
  std::get<WhileThunk>(program.thunks.back()).predicate = -1;  // unused
  EXPECT_EQ(runMultiple(std::move(program)), 8.0f);
  EXPECT_EQ(launchesOf("step"), 7u);
  EXPECT_EQ(launchesOf("less"), 0u) << "a known trip count never runs the condition";
  EXPECT_TRUE(device_.opsOfKind(Op::kDownload).empty());
}

TEST_F(ControlFlowTest, ZeroTripsRunNothing) {
  EXPECT_EQ(runMultiple(loopProgram(0)), 1.0f);
  EXPECT_EQ(launchesOf("step"), 0u);
  EXPECT_TRUE(device_.opsOfKind(Op::kDownload).empty());
}

TEST_F(ControlFlowTest, ConditionFalseAtOnceRunsNoBody) {
  Program program = loopProgram(-1);
  program.thunks[1] = MemsetThunk{2, 0x7f, 4};  // counter starts huge
  EXPECT_EQ(runMultiple(std::move(program)), 1.0f);
  EXPECT_EQ(launchesOf("step"), 0u);
  EXPECT_EQ(device_.opsOfKind(Op::kDownload).size(), 1u);
}

// Two sets of carried slots: the values end in the first set whatever the
// parity, copied back only after an odd number of bodies.
TEST_F(ControlFlowTest, PingPongLoopsEndInTheFirstSetWithoutBodyCopies) {
  EXPECT_EQ(runMultiple(pingPongProgram(-1)), 1.0f + kLimit);  // 5 bodies: odd
  EXPECT_EQ(launchesOf("step_to"), static_cast<size_t>(kLimit));
  EXPECT_EQ(launchesOf("less"), static_cast<size_t>(kLimit + 1));
  EXPECT_EQ(device_.opsOfKind(Op::kCopy).size(), 1u + 2u) << "x into out, then the exit";
  for (int64_t trips : {0, 4, 7}) {
    SCOPED_TRACE(trips);
    EXPECT_EQ(runMultiple(pingPongProgram(trips)), 1.0f + static_cast<float>(trips));
    EXPECT_EQ(launchesOf("step_to"), static_cast<size_t>(trips));
    EXPECT_EQ(device_.opsOfKind(Op::kCopy).size(), trips % 2 == 1 ? 3u : 1u);
  }
}

// Outer loop of 3 known trips; each resets the inner counter and runs an
// inner data-dependent loop of kInnerLimit trips: out = x + 3 * 4 x.
TEST_F(ControlFlowTest, NestedLoopsRunInnerLoopsPerOuterIteration) {
  Program program = loopProgram(3);
  program.lists[1] = {MemsetThunk{4, 0, 4}, WhileThunk{2, 3, 3, -1}};
  program.lists.push_back({LaunchThunk{2, {1, 1, 1}, {4, 3}}});     // 2: inner cond
  program.lists.push_back({LaunchThunk{3, {1, 1, 1}, {4, 0, 1}}});  // 3: inner body
  EXPECT_EQ(runMultiple(std::move(program)), 1.0f + 3 * kInnerLimit);
  EXPECT_EQ(launchesOf("inner_step"), static_cast<size_t>(3 * kInnerLimit));
  EXPECT_EQ(device_.opsOfKind(Op::kDownload).size(),
            static_cast<size_t>(3 * (kInnerLimit + 1)));
}

// Three branches filling out with 0x11, 0x22, 0x33 per byte, chosen by an
// i32 parameter (or a pred parameter with two branches).
Program caseProgram(bool predicate) {
  Program p;
  p.name = "case";
  const uint64_t index_bytes = predicate ? 1 : 4;
  p.slots.push_back(slot(K::kParameter, index_bytes, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.parameter_bytes = {index_bytes};
  p.output_slots = {1};
  ConditionalThunk conditional;
  conditional.index = 0;
  conditional.predicate = predicate;
  for (uint8_t fill : {0x11, 0x22, 0x33}) {
    if (predicate && fill == 0x33) break;
    conditional.branches.push_back(static_cast<int>(p.lists.size()));
    p.lists.push_back({MemsetThunk{1, fill, kVectorBytes}});
  }
  p.thunks.push_back(std::move(conditional));
  return p;
}

class ConditionalTest : public ::testing::Test {
 protected:
  // The fill byte the executed branch left in the output.
  int branchFill(bool predicate, int32_t index) {
    auto executable = Executable::load(device_, caseProgram(predicate));
    EXPECT_TRUE(executable.isOk()) << executable.status().toString();
    if (!executable.isOk()) return -1;
    const uint64_t bytes = predicate ? 1 : 4;
    uint64_t argument = *device_.allocate(bytes);
    if (predicate)
      *reinterpret_cast<uint8_t*>(argument) = static_cast<uint8_t>(index);
    else
      std::memcpy(reinterpret_cast<void*>(argument), &index, 4);
    device_.clearOps();
    ExecuteArgument arg{argument, bytes, false};
    auto result = (*executable)->execute({&arg, 1});
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    EXPECT_EQ(device_.opsOfKind(Op::kDownload).size(), 1u) << "the index is read once";
    EXPECT_EQ(device_.opsOfKind(Op::kFill).size(), 1u) << "one branch runs";
    int fill = -1;
    if (result.isOk()) {
      const auto* out = reinterpret_cast<const uint8_t*>(result->outputs[0].address);
      fill = out[0];
      for (uint64_t i = 1; i < kVectorBytes; ++i) EXPECT_EQ(out[i], fill);
      device_.deallocate(result->outputs[0].address, kVectorBytes);
    }
    device_.deallocate(argument, bytes);
    return fill;
  }

  RecordingDevice device_;
};

TEST_F(ConditionalTest, IndexInRangeRunsThatBranch) {
  EXPECT_EQ(branchFill(false, 0), 0x11);
  EXPECT_EQ(branchFill(false, 1), 0x22);
  EXPECT_EQ(branchFill(false, 2), 0x33);
}

TEST_F(ConditionalTest, IndexOutOfRangeRunsTheLastBranch) {
  EXPECT_EQ(branchFill(false, -1), 0x33);
  EXPECT_EQ(branchFill(false, 3), 0x33);
  EXPECT_EQ(branchFill(false, INT32_MIN), 0x33);
  EXPECT_EQ(branchFill(false, 1 << 24), 0x33) << "all four index bytes are read";
}

TEST_F(ConditionalTest, PredicateTrueRunsTheFirstBranch) {
  EXPECT_EQ(branchFill(true, 1), 0x11);
  EXPECT_EQ(branchFill(true, 0), 0x22);
}

TEST(ControlFlowCheck, NestedFaultsAreNamedByTheirPath) {
  Program p = loopProgram(-1);
  p.lists[1][0] = LaunchThunk{1, {1, 1, 1}, {2, 0, 9}};
  Status status = checkProgram(p, 32);
  ASSERT_FALSE(status.isOk());
  EXPECT_NE(status.message().find("thunk 2: while body thunk 0: buffer 2"),
            std::string::npos)
      << status.message();

  p = loopProgram(-1);
  std::get<WhileThunk>(p.thunks[2]).predicate = -1;
  status = checkProgram(p, 32);
  EXPECT_NE(status.message().find("while predicate slot -1"), std::string::npos)
      << status.message();
  std::get<WhileThunk>(p.thunks[2]).trip_count = 4;  // then the predicate is unused
  EXPECT_TRUE(checkProgram(p, 32).isOk());
  std::get<WhileThunk>(p.thunks[2]).trip_count = -2;
  EXPECT_FALSE(checkProgram(p, 32).isOk());

  p = caseProgram(false);
  p.slots[0].bytes = 2;
  p.parameter_bytes[0] = 2;
  status = checkProgram(p, 32);
  EXPECT_NE(status.message().find("holds 2 bytes, not 4"), std::string::npos)
      << status.message();
  p = caseProgram(false);
  std::get<ConditionalThunk>(p.thunks[0]).branches.clear();
  EXPECT_FALSE(checkProgram(p, 32).isOk());
  p = caseProgram(false);
  p.lists[2][0] = MemsetThunk{0, 0, 1};
  status = checkProgram(p, 32);
  EXPECT_NE(status.message().find("thunk 0: branch 2 thunk 0: memset destination"),
            std::string::npos)
      << status.message();
  p = caseProgram(true);
  std::get<ConditionalThunk>(p.thunks[0]).branches.push_back(1);
  EXPECT_FALSE(checkProgram(p, 32).isOk()) << "if takes exactly two branches";

  // Lists must exist and come after the list naming them (no cycles).
  p = loopProgram(-1);
  std::get<WhileThunk>(p.thunks[2]).body = 2;
  status = checkProgram(p, 32);
  EXPECT_NE(status.message().find("while body list 2 is not one of the 2 lists"),
            std::string::npos)
      << status.message();
  p = loopProgram(-1);
  p.lists[1].push_back(WhileThunk{0, 3, 1, -1});  // the body runs itself
  status = checkProgram(p, 32);
  EXPECT_NE(status.message().find("after list 1"), std::string::npos) << status.message();
}

TEST_F(ControlFlowTest, NestedLaunchErrorsNameTheLoop) {
  device_.failLaunchOf("step");
  auto executable = Executable::load(device_, loopProgram(2));
  ASSERT_TRUE(executable.isOk());
  const size_t live = device_.liveAllocations();
  ExecuteArgument argument{x_, kVectorBytes, false};
  auto result = (*executable)->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("thunk 2"), std::string::npos);
  EXPECT_NE(result.status().message().find("while body thunk 0"), std::string::npos)
      << result.status().message();
  EXPECT_EQ(device_.liveAllocations(), live) << "the output is released";
}

// Triton scratch is sized over launches inside loops too.
TEST_F(ControlFlowTest, ScratchCoversLaunchesInsideLoops) {
  Program program = loopProgram(1);
  KernelImage& step = program.kernels[1];
  step.params.push_back(P::kGlobalScratch);
  step.global_scratch_size = 1024;
  uint64_t scratch = 0;
  device_.setKernelBody("step", [&](const std::vector<uint64_t>& p, const LaunchDims&) {
    scratch = p[3];
    std::memset(reinterpret_cast<void*>(p[3]), 0, 1024);  // must be real memory
    *ints(p[0]) += 1;
    for (int i = 0; i < kElements; ++i) floats(p[2])[i] += floats(p[1])[i];
  });
  EXPECT_EQ(runMultiple(std::move(program)), 2.0f);
  EXPECT_NE(scratch, 0u);
}

}  // namespace
}  // namespace jft::runtime::testing
