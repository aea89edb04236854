// runtime/activity_scope.h: labels name each run and step; with hooks
// installed an execution pushes one id per top-level step (its run and step)
// and pops it, and without hooks nothing is pushed.
#include "runtime/activity_scope.h"

#include <gtest/gtest.h>

#include <vector>

#include "recording_device.h"
#include "runtime/executable.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

std::vector<uint64_t> pushed;
int popped = 0;
void recordPush(uint64_t id) {
  pushed.push_back(id);
}
void recordPop() {
  ++popped;
}
const ActivityScopeHooks kRecording{&recordPush, &recordPop};

TEST(ActivityScope, LabelsResolveRunAndStep) {
  clearActivityLabels();
  auto steps = std::make_shared<const std::vector<std::string>>(
      std::vector<std::string>{"fusion_a", "gemm f32"});
  const uint64_t run = beginActivityRun("jit_g", steps);
  auto label = lookUpActivityLabel(activityId(run, 1));
  ASSERT_TRUE(label.has_value());
  EXPECT_EQ(label->module, "jit_g");
  EXPECT_EQ(label->run, run);
  EXPECT_EQ(label->op, "gemm f32");
  EXPECT_EQ(lookUpActivityLabel(activityId(run, 5))->op, "");  // past the steps
  EXPECT_FALSE(lookUpActivityLabel(activityId(run + 1, 0)).has_value());
  clearActivityLabels();
  EXPECT_FALSE(lookUpActivityLabel(activityId(run, 0)).has_value());
}

TEST(ActivityScope, ExecutionsPushOneIdPerStepWhileHooksAreInstalled) {
  RecordingDevice device;
  device.setKernelBody("add", [](const std::vector<uint64_t>&, const LaunchDims&) {});
  auto executable = Executable::load(device, vectorProgram());
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  const uint64_t x = *device.allocate(kVectorBytes);
  ExecuteArgument argument{x, kVectorBytes, false};

  pushed.clear();
  popped = 0;
  auto quiet = (*executable)->execute({&argument, 1});
  ASSERT_TRUE(quiet.isOk());
  EXPECT_TRUE(pushed.empty());

  clearActivityLabels();
  setActivityScopeHooks(&kRecording);
  auto traced = (*executable)->execute({&argument, 1});
  setActivityScopeHooks(nullptr);
  ASSERT_TRUE(traced.isOk()) << traced.status().toString();
  ASSERT_EQ(pushed.size(), 3u);  // two launches and a copy
  EXPECT_EQ(popped, 3);
  for (size_t i = 0; i < pushed.size(); ++i) {
    auto label = lookUpActivityLabel(pushed[i]);
    ASSERT_TRUE(label.has_value());
    EXPECT_EQ(label->module, "vector");
    EXPECT_EQ(label->op, i < 2 ? "add" : "copy");
  }
  for (const auto* result : {&*quiet, &*traced})
    for (const auto& output : result->outputs)
      device.deallocate(output.address, output.bytes);
}

}  // namespace
}  // namespace jft::runtime::testing
