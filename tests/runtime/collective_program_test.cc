// Programs over several participants on the recording device: a
// CollectiveThunk reaches the runner resolved for the participant (the
// description with its ranks, the clique of global device ids, the rank, the
// slots' addresses), replica_id/partition_id write the participant's ids as
// little-endian u32, a collective program refuses to run alone, and
// program_check refuses collective and participant-id thunks whose slots are
// wrong. Expected cliques are worked by hand from the StableHLO spec.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "recording_device.h"
#include "runtime/collective_context.h"
#include "runtime/executable.h"
#include "runtime/program_check.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;
using Mode = CollectiveGroupMode;

// Records every call; its status is `result`.
class FakeRunner final : public CollectiveRunner {
 public:
  struct Call {
    CollectiveDesc desc;
    std::vector<int64_t> clique;
    int64_t rank;
    uint64_t input, output;
  };
  Status run(const CollectiveDesc& desc, std::span<const int64_t> clique, int64_t rank,
             uint64_t input, uint64_t output) override {
    calls.push_back({desc, {clique.begin(), clique.end()}, rank, input, output});
    return result;
  }
  std::vector<Call> calls;
  Status result = Status::ok();
};

CollectiveDesc gather(int64_t count) {
  CollectiveDesc d;
  d.kind = CollectiveKind::kAllGather;
  d.type = CollectiveType::kF32;
  d.count = count;
  return d;
}

CollectiveGroups groups(Mode mode, std::vector<std::vector<int64_t>> ids) {
  CollectiveGroups g;
  g.mode = mode;
  g.groups = std::move(ids);
  return g;
}

// all_gather of a 4-float parameter into output 0 (`gathered` floats), then
// replica_id into output 1 and partition_id into output 2:
//   slots: 0 x, 1 gathered, 2 replica, 3 partition
Program gatherProgram(CollectiveGroups g, int64_t gathered = 12) {
  Program p;
  p.name = "gather";
  p.slots.push_back(slot(K::kParameter, 16, 0));
  p.slots.push_back(slot(K::kOutput, static_cast<uint64_t>(gathered) * 4, 0));
  p.slots.push_back(slot(K::kOutput, 4, 1));
  p.slots.push_back(slot(K::kOutput, 4, 2));
  p.thunks.push_back(CollectiveThunk{gather(4), std::move(g), 0, 1});
  p.thunks.push_back(ParticipantIdThunk{false, 2});
  p.thunks.push_back(ParticipantIdThunk{true, 3});
  p.parameter_bytes = {16};
  p.output_slots = {1, 2, 3};
  return p;
}

std::vector<uint8_t> bytesAt(uint64_t address, size_t n) {
  std::vector<uint8_t> out(n);
  std::memcpy(out.data(), reinterpret_cast<const void*>(address), n);
  return out;
}

class CollectiveProgramTest : public ::testing::Test {
 protected:
  std::unique_ptr<Executable> load(Program program) {
    auto executable = Executable::load(device_, std::move(program));
    EXPECT_TRUE(executable.isOk()) << executable.status().toString();
    return executable.isOk() ? std::move(executable).value() : nullptr;
  }
  void release(const ExecuteResult& result) {
    for (auto& output : result.outputs) device_.deallocate(output.address, output.bytes);
  }
  // The load-time refusal's message.
  std::string refusal(const Program& program) {
    Status s = checkProgram(program, 32);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.toString();
    return s.message();
  }

  RecordingDevice device_;
  FakeRunner runner_;
};

// 3 replicas x 2 partitions on devices 10 + 2r + p. cross_replica [[0,1,2]]:
// participant (2, 1) is rank 2 of the partition-1 group {(0,1),(1,1),(2,1)}
// = devices [11, 13, 15].
TEST_F(CollectiveProgramTest, TheRunnerGetsTheResolvedCollectiveAndTheSlots) {
  auto executable = load(gatherProgram(groups(Mode::kCrossReplica, {{0, 1, 2}})));
  ASSERT_NE(executable, nullptr);
  ParticipantLayout layout{3, 2, {10, 11, 12, 13, 14, 15}};
  ParticipantContext participant{&layout, 2, 1, &runner_};
  uint64_t x = *device_.allocate(16);
  ExecuteArgument argument{x, 16, false};
  auto result = executable->execute({&argument, 1}, &participant);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_EQ(runner_.calls.size(), 1u);
  const FakeRunner::Call& call = runner_.calls[0];
  EXPECT_EQ(call.desc.kind, CollectiveKind::kAllGather);
  EXPECT_EQ(call.desc.ranks, 3);
  EXPECT_EQ(call.desc.count, 4);
  EXPECT_EQ(call.clique, (std::vector<int64_t>{11, 13, 15}));
  EXPECT_EQ(call.rank, 2);
  EXPECT_EQ(call.input, x);
  EXPECT_EQ(call.output, result->outputs[0].address);
  EXPECT_EQ(bytesAt(result->outputs[1].address, 4), (std::vector<uint8_t>{2, 0, 0, 0}));
  EXPECT_EQ(bytesAt(result->outputs[2].address, 4), (std::vector<uint8_t>{1, 0, 0, 0}));
  release(*result);
  device_.deallocate(x, 16);
}

// Partition 258 = 0x0102: bytes 02 01 00 00.
TEST_F(CollectiveProgramTest, ParticipantIdsAreLittleEndianU32) {
  Program p;
  p.name = "ids";
  p.slots.push_back(slot(K::kOutput, 8, 0));
  p.slots.push_back(slot(K::kOutput, 4, 1));
  p.thunks.push_back(ParticipantIdThunk{true, 0});
  p.thunks.push_back(ParticipantIdThunk{false, 1});
  p.output_slots = {0, 1};
  auto executable = load(p);
  ASSERT_NE(executable, nullptr);
  ParticipantLayout layout{1, 300, {}};
  for (int64_t i = 0; i < 300; ++i) layout.device_ids.push_back(i);
  // No collective: no runner needed.
  ParticipantContext participant{&layout, 0, 258, nullptr};
  auto result = executable->execute({}, &participant);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(bytesAt(result->outputs[0].address, 4), (std::vector<uint8_t>{2, 1, 0, 0}));
  EXPECT_EQ(bytesAt(result->outputs[1].address, 4), (std::vector<uint8_t>{0, 0, 0, 0}));
  // Queue-ordered fills, not a host copy that would wait for the queue.
  EXPECT_TRUE(device_.opsOfKind(RecordedOp::Kind::kUpload).empty());
  release(*result);
  // Alone, a program is participant (0, 0) of one.
  result = executable->execute({});
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(bytesAt(result->outputs[0].address, 4), (std::vector<uint8_t>{0, 0, 0, 0}));
  release(*result);
}

TEST_F(CollectiveProgramTest, ACollectiveProgramRefusesToRunAloneBeforeQueueingAnything) {
  auto executable = load(gatherProgram(groups(Mode::kCrossReplica, {})));
  ASSERT_NE(executable, nullptr);
  uint64_t x = *device_.allocate(16);
  ExecuteArgument argument{x, 16, false};
  device_.clearOps();
  const size_t live = device_.liveAllocations();
  auto result = executable->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(result.status().message().find("all_gather"), std::string::npos)
      << result.status().message();
  ParticipantLayout layout{1, 1, {0}};
  ParticipantContext noRunner{&layout, 0, 0, nullptr};
  result = executable->execute({&argument, 1}, &noRunner);
  EXPECT_EQ(result.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(device_.ops().empty());
  EXPECT_EQ(device_.liveAllocations(), live);
  device_.deallocate(x, 16);
}

// A collective in a while body runs on every iteration.
TEST_F(CollectiveProgramTest, ACollectiveInALoopRunsEachIteration) {
  Program p = gatherProgram(groups(Mode::kCrossReplica, {}));
  p.lists.push_back({p.thunks[0]});  // list 0, the body: the collective
  p.lists.push_back({});             // list 1, the cond: unused with a trip count
  p.thunks[0] = WhileThunk{1, -1, 0, 3};
  auto executable = load(p);
  ASSERT_NE(executable, nullptr);
  ParticipantLayout layout{3, 1, {4, 5, 6}};
  ParticipantContext participant{&layout, 1, 0, &runner_};
  uint64_t x = *device_.allocate(16);
  ExecuteArgument argument{x, 16, false};
  auto result = executable->execute({&argument, 1}, &participant);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_EQ(runner_.calls.size(), 3u);
  for (const FakeRunner::Call& call : runner_.calls) {
    EXPECT_EQ(call.clique, (std::vector<int64_t>{4, 5, 6}));
    EXPECT_EQ(call.rank, 1);
  }
  release(*result);
  device_.deallocate(x, 16);
}

TEST_F(CollectiveProgramTest, TheRunnersErrorNamesTheThunkAndFreesTheOutputs) {
  auto executable = load(gatherProgram(groups(Mode::kCrossReplica, {})));
  ASSERT_NE(executable, nullptr);
  runner_.result = unavailable("ncclAllGather failed: ncclRemoteError");
  ParticipantLayout layout{3, 1, {4, 5, 6}};
  ParticipantContext participant{&layout, 0, 0, &runner_};
  uint64_t x = *device_.allocate(16);
  ExecuteArgument argument{x, 16, false};
  const size_t live = device_.liveAllocations();
  auto result = executable->execute({&argument, 1}, &participant);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(result.status().message().find("program 'gather', thunk 0"),
            std::string::npos)
      << result.status().message();
  EXPECT_EQ(device_.liveAllocations(), live);
  device_.deallocate(x, 16);
}

TEST_F(CollectiveProgramTest, GroupsThatDoNotFitTheLayoutAreRefusedAtExecution) {
  // [[0,1]] leaves replica 2 of 3 out.
  auto executable = load(gatherProgram(groups(Mode::kCrossReplica, {{0, 1}})));
  ASSERT_NE(executable, nullptr);
  ParticipantLayout layout{3, 1, {4, 5, 6}};
  ParticipantContext participant{&layout, 0, 0, &runner_};
  uint64_t x = *device_.allocate(16);
  ExecuteArgument argument{x, 16, false};
  auto result = executable->execute({&argument, 1}, &participant);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("cross_replica groups {{0,1}}"),
            std::string::npos)
      << result.status().message();
  EXPECT_TRUE(runner_.calls.empty());
  device_.deallocate(x, 16);
}

// Empty groups' size is the replica count, known only at execution: 4
// replicas gather 16 floats into a 12-float slot.
TEST_F(CollectiveProgramTest, AResolvedSizeTheSlotDoesNotHoldIsRefusedAtExecution) {
  auto executable = load(gatherProgram(groups(Mode::kCrossReplica, {}), 12));
  ASSERT_NE(executable, nullptr);
  ParticipantLayout layout{4, 1, {0, 1, 2, 3}};
  ParticipantContext participant{&layout, 3, 0, &runner_};
  uint64_t x = *device_.allocate(16);
  ExecuteArgument argument{x, 16, false};
  auto result = executable->execute({&argument, 1}, &participant);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      result.status().message().find("receives 64 bytes, its output slot 1 holds 48"),
      std::string::npos)
      << result.status().message();
  EXPECT_TRUE(runner_.calls.empty());
  device_.deallocate(x, 16);
}

// An output that takes over its donated argument makes a collective that
// reads that argument run in place: all_reduce may, a permute may not.
TEST_F(CollectiveProgramTest, OnlyAllReduceAndBroadcastRunInPlace) {
  using Kind = CollectiveKind;
  for (Kind kind : {Kind::kAllReduce, Kind::kCollectivePermute}) {
    Program p;
    p.name = "in place";
    p.slots.push_back(slot(K::kParameter, 16, 0));
    p.slots.push_back(slot(K::kOutput, 16, 0));
    CollectiveDesc d = gather(4);
    d.kind = kind;
    CollectiveGroups g = groups(Mode::kCrossReplica, {});
    if (kind == Kind::kCollectivePermute) g.pairs = {{0, 1}, {1, 0}};
    p.thunks.push_back(CollectiveThunk{d, g, 0, 1});
    p.parameter_bytes = {16};
    p.output_slots = {1};
    p.output_aliases = {0};
    auto executable = load(p);
    ASSERT_NE(executable, nullptr);
    ParticipantLayout layout{2, 1, {0, 1}};
    ParticipantContext participant{&layout, 0, 0, &runner_};
    uint64_t x = *device_.allocate(16);
    ExecuteArgument donated{x, 16, true};
    runner_.calls.clear();
    auto result = executable->execute({&donated, 1}, &participant);
    if (kind == Kind::kAllReduce) {
      ASSERT_TRUE(result.isOk()) << result.status().toString();
      ASSERT_EQ(runner_.calls.size(), 1u);
      EXPECT_EQ(runner_.calls[0].input, x);
      EXPECT_EQ(runner_.calls[0].output, x);
      device_.deallocate(x, 16);
    } else {
      ASSERT_FALSE(result.isOk());
      EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(result.status().message().find("share memory"), std::string::npos)
          << result.status().message();
      EXPECT_TRUE(runner_.calls.empty());
      device_.deallocate(x, 16);
    }
  }
}

// --- program_check ---------------------------------------------------------------

TEST_F(CollectiveProgramTest, CheckSizesTheOutputForTheLargestKnownGroup) {
  // Groups of 3 gather 12 floats: 48 bytes; 44 is too few.
  Program p = gatherProgram(groups(Mode::kFlattenedIds, {{0, 1, 2}, {3, 4, 5}}), 12);
  EXPECT_TRUE(checkProgram(p, 32).isOk());
  p.slots[1].bytes = 44;
  EXPECT_NE(refusal(p).find("all_gather f32 x4 output slot 1 holds 44 bytes, not 48"),
            std::string::npos);
  // all_reduce outputs what it sends whatever the group: 16 bytes.
  p = gatherProgram(groups(Mode::kFlattenedIds, {{0}, {1, 2}}), 4);
  std::get<CollectiveThunk>(p.thunks[0]).desc.kind = CollectiveKind::kAllReduce;
  EXPECT_TRUE(checkProgram(p, 32).isOk());
  p.slots[1].bytes = 12;
  EXPECT_NE(refusal(p).find("holds 12 bytes, not 16"), std::string::npos);
}

TEST_F(CollectiveProgramTest, CheckRefusesBadCollectiveSlots) {
  Program p = gatherProgram(groups(Mode::kCrossReplica, {}));
  std::get<CollectiveThunk>(p.thunks[0]).input = 9;
  EXPECT_NE(refusal(p).find("thunk 0: all_gather f32 x4 input slot 9 of 4"),
            std::string::npos);
  p = gatherProgram(groups(Mode::kCrossReplica, {}));
  std::get<CollectiveThunk>(p.thunks[0]).output = 0;
  EXPECT_NE(refusal(p).find("read-only"), std::string::npos);
  p = gatherProgram(groups(Mode::kCrossReplica, {}));
  p.slots[0].bytes = 8;
  p.parameter_bytes = {8};
  EXPECT_NE(refusal(p).find("input slot 0 holds 8 bytes, each rank sends 16"),
            std::string::npos);
  p = gatherProgram(groups(Mode::kCrossReplica, {}));
  std::get<CollectiveThunk>(p.thunks[0]).desc.count = -1;
  EXPECT_NE(refusal(p).find("negative"), std::string::npos);
}

TEST_F(CollectiveProgramTest, CheckRefusesOverlappingCollectiveBuffers) {
  Program p = gatherProgram(groups(Mode::kCrossReplica, {}), 4);
  p.slots.push_back(slot(K::kTemp, 16, -1, 0));
  p.slots.push_back(slot(K::kTemp, 16, -1, 0));
  p.temp_bytes = 256;
  std::get<CollectiveThunk>(p.thunks[0]).desc.kind = CollectiveKind::kAllReduce;
  std::get<CollectiveThunk>(p.thunks[0]).input = 4;
  std::get<CollectiveThunk>(p.thunks[0]).output = 4;
  EXPECT_NE(refusal(p).find("reads and writes slot 4"), std::string::npos);
  std::get<CollectiveThunk>(p.thunks[0]).output = 5;
  EXPECT_NE(refusal(p).find("input slot 4 overlaps its output slot 5"),
            std::string::npos);
  p.slots[5].offset = 0;
  p.slots[5].bytes = 16;
  p.slots[4].offset = 256;
  p.temp_bytes = 512;
  EXPECT_TRUE(checkProgram(p, 32).isOk());
}

TEST_F(CollectiveProgramTest, CheckRefusesGroupsThatCanNeverResolve) {
  Program p = gatherProgram(groups(Mode::kCrossReplica, {{0, 1}, {1, 2}}));
  EXPECT_NE(refusal(p).find("id 1 is in two groups"), std::string::npos);
  p = gatherProgram(groups(Mode::kFlattenedIds, {{0, 1}, {2}}));
  EXPECT_NE(refusal(p).find("differ in size"), std::string::npos);
  // reduce_scatter of 4 elements cannot split among 3.
  p = gatherProgram(groups(Mode::kCrossReplica, {{0, 1, 2}}));
  std::get<CollectiveThunk>(p.thunks[0]).desc.kind = CollectiveKind::kReduceScatter;
  EXPECT_NE(refusal(p).find("not divisible"), std::string::npos);
  p = gatherProgram(groups(Mode::kCrossReplica, {}));
  std::get<CollectiveThunk>(p.thunks[0]).groups.pairs = {{0, 1}};
  EXPECT_NE(refusal(p).find("only collective_permute"), std::string::npos);
}

TEST_F(CollectiveProgramTest, CheckRefusesBadParticipantIdSlots) {
  Program p = gatherProgram(groups(Mode::kCrossReplica, {}));
  p.slots[2].bytes = 2;
  EXPECT_NE(refusal(p).find("thunk 1: participant id slot 2 holds 2 bytes, not 4"),
            std::string::npos);
  p = gatherProgram(groups(Mode::kCrossReplica, {}));
  std::get<ParticipantIdThunk>(p.thunks[2]).destination = 0;
  EXPECT_NE(refusal(p).find("participant id slot 0 is read-only"), std::string::npos);
  std::get<ParticipantIdThunk>(p.thunks[2]).destination = 7;
  EXPECT_NE(refusal(p).find("participant id slot 7 of 4"), std::string::npos);
}

}  // namespace
}  // namespace jft::runtime::testing
