// Collectives through CudaDevice::collectiveRunner on real GPUs: the path a
// program over several participants takes (runtime/gpu/nccl_cliques.h), from
// a platform whose devices share their communicators, to results compared
// with StableHLO's definitions worked on the host (exact f32 values).
//
// One GPU: a clique of one device (ncclCommInitRank of size 1) runs
// all_reduce and all_gather, whose result over a group of one is the input,
// and a permute nobody sends to (zeros, through the device's fill); then a
// Program with a CollectiveThunk and a ParticipantIdThunk runs through
// Executable with a ParticipantContext. Two GPUs (skipped with one): devices
// 0 and 1 driven by two threads through their own runners, as the PJRT layer
// drives them, the clique id passing through the platform's exchange;
// all_reduce, all_gather and collective_permute against host references.
// Each test opens its platform and destroys it at the end, so the
// communicators' teardown runs too. Skips, saying why, without a driver, a
// GPU or NCCL (JFT_NCCL_LIBRARY names the wheel's libnccl.so.2).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/collective_context.h"
#include "runtime/executable.h"
#include "runtime/gpu/cuda_platform.h"
#include "runtime/gpu/driver.h"
#include "runtime/gpu/nccl.h"
#include "runtime/in_process_clique_ids.h"

namespace jft::runtime {
namespace {

// A platform over the first `devices` GPUs, or why there is none.
struct Gpus {
  std::unique_ptr<Platform> platform;
  std::string skip;
};

Gpus openGpus(int devices) {
  Gpus g;
  StatusOr<const gpu::Driver*> driver = gpu::Driver::load();
  if (!driver.isOk()) {
    g.skip = driver.status().toString();
    return g;
  }
  int count = 0;
  if ((*driver)->deviceGetCount(&count) != gpu::kCudaSuccess || count < devices) {
    g.skip = "needs " + std::to_string(devices) + " GPU(s), the driver reports " +
             std::to_string(count);
    return g;
  }
  if (StatusOr<const gpu::Nccl*> nccl = gpu::Nccl::load(); !nccl.isOk()) {
    g.skip = nccl.status().toString();
    return g;
  }
  std::vector<int> ordinals;
  for (int i = 0; i < devices; ++i) ordinals.push_back(i);
  StatusOr<std::unique_ptr<Platform>> platform = gpu::openCudaPlatform(ordinals);
  if (!platform.isOk()) {
    g.skip = platform.status().toString();
    return g;
  }
  g.platform = std::move(platform).value();
  // Fail well before ctest's timeout if a member never publishes.
  setenv("JFT_COLLECTIVE_TIMEOUT_S", "60", /*overwrite=*/0);
  return g;
}

// A device buffer freed with the test.
struct Buffer {
  Device* device = nullptr;
  uint64_t address = 0, bytes = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (address != 0) device->deallocate(address, bytes);
  }
};

Status upload(Buffer& buffer, Device& device, const std::vector<float>& values) {
  buffer.device = &device;
  buffer.bytes = values.size() * sizeof(float);
  JFT_ASSIGN_OR_RETURN(buffer.address, device.allocate(buffer.bytes));
  JFT_ASSIGN_OR_RETURN(EventPtr copied, device.copyToDevice(buffer.address, values.data(),
                                                            buffer.bytes, true));
  return copied->await();
}

StatusOr<std::vector<float>> download(Device& device, uint64_t address, size_t count) {
  std::vector<float> values(count);
  JFT_ASSIGN_OR_RETURN(EventPtr copied,
                       device.copyToHost(values.data(), address, count * sizeof(float)));
  JFT_RETURN_IF_ERROR(copied->await());
  return values;
}

// 100 r + i + 1 (exact in f32, distinct across ranks).
std::vector<float> inputOf(int rank, int64_t count) {
  std::vector<float> x(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    x[static_cast<size_t>(i)] = static_cast<float>(100 * rank + i + 1);
  return x;
}

CollectiveDesc desc(CollectiveKind kind, int64_t ranks, int64_t count) {
  CollectiveDesc d;
  d.kind = kind;
  d.type = CollectiveType::kF32;
  d.reduction = CollectiveReduction::kSum;
  d.ranks = ranks;
  d.count = count;
  return d;
}

// Runs `d` on `device` as rank `rank` of `clique` through its runner: the
// input uploaded, the output starting at -7 (no collective here makes it),
// returned once the device has finished.
StatusOr<std::vector<float>> runOn(Device& device, const CollectiveDesc& d,
                                   const std::vector<int64_t>& clique, int64_t rank,
                                   const std::vector<float>& input) {
  JFT_ASSIGN_OR_RETURN(CollectiveRunner * runner, device.collectiveRunner());
  Buffer in, out;
  JFT_RETURN_IF_ERROR(upload(in, device, input));
  const size_t outputCount = static_cast<size_t>(collectiveOutputCount(d));
  JFT_RETURN_IF_ERROR(upload(out, device, std::vector<float>(outputCount, -7.0f)));
  JFT_RETURN_IF_ERROR(runner->run(d, clique, rank, in.address, out.address));
  return download(device, out.address, outputCount);
}

// --- one device ------------------------------------------------------------------

TEST(NcclCliqueOneDevice, AllReduceAndAllGatherOfAGroupOfOneReturnTheInput) {
  Gpus g = openGpus(1);
  if (g.platform == nullptr) GTEST_SKIP() << g.skip;
  Device& device = g.platform->device(0);
  const std::vector<int64_t> clique = {0};
  const std::vector<float> input = inputOf(0, 37);
  for (CollectiveKind kind : {CollectiveKind::kAllReduce, CollectiveKind::kAllGather}) {
    // Twice: the second run finds the communicator the first one made.
    for (int run = 0; run < 2; ++run) {
      StatusOr<std::vector<float>> out =
          runOn(device, desc(kind, 1, 37), clique, 0, input);
      ASSERT_TRUE(out.isOk()) << out.status().toString();
      EXPECT_EQ(*out, input) << collectiveKindName(kind) << " run " << run;
    }
  }
}

// StableHLO: a process no pair targets outputs zeros; the runner zeroes it
// with the device's fill on the device's stream.
TEST(NcclCliqueOneDevice, APermuteNobodySendsToOutputsZeros) {
  Gpus g = openGpus(1);
  if (g.platform == nullptr) GTEST_SKIP() << g.skip;
  StatusOr<std::vector<float>> out =
      runOn(g.platform->device(0), desc(CollectiveKind::kCollectivePermute, 1, 9), {0}, 0,
            inputOf(0, 9));
  ASSERT_TRUE(out.isOk()) << out.status().toString();
  EXPECT_EQ(*out, std::vector<float>(9, 0.0f));
}

// The whole path of one participant: Executable resolves the thunk's groups
// for (replica 0, partition 0) of a one-device layout and runs it through
// the device's runner; replica_id writes 0 as a little-endian u32.
TEST(NcclCliqueOneDevice, AProgramWithACollectiveRunsThroughItsParticipant) {
  Gpus g = openGpus(1);
  if (g.platform == nullptr) GTEST_SKIP() << g.skip;
  Device& device = g.platform->device(0);
  using K = BufferSlot::Kind;
  Program p;
  p.name = "psum";
  p.slots = {BufferSlot{K::kParameter, 64, 0}, BufferSlot{K::kOutput, 64, 0},
             BufferSlot{K::kOutput, 4, 1}};
  p.thunks.push_back(
      CollectiveThunk{desc(CollectiveKind::kAllReduce, 1, 16), CollectiveGroups{}, 0, 1});
  p.thunks.push_back(ParticipantIdThunk{false, 2});
  p.parameter_bytes = {64};
  p.output_slots = {1, 2};
  StatusOr<std::unique_ptr<Executable>> executable = Executable::load(device, p);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  StatusOr<CollectiveRunner*> runner = device.collectiveRunner();
  ASSERT_TRUE(runner.isOk()) << runner.status().toString();
  ParticipantLayout layout{1, 1, {0}};
  ParticipantContext participant{&layout, 0, 0, *runner};
  Buffer x;
  const std::vector<float> input = inputOf(0, 16);
  ASSERT_TRUE(upload(x, device, input).isOk());
  ExecuteArgument argument{x.address, 64, false};
  StatusOr<ExecuteResult> result = (*executable)->execute({&argument, 1}, &participant);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_TRUE(result->done->await().isOk());
  StatusOr<std::vector<float>> sum = download(device, result->outputs[0].address, 16);
  ASSERT_TRUE(sum.isOk()) << sum.status().toString();
  EXPECT_EQ(*sum, input);
  uint8_t id[4] = {0xee, 0xee, 0xee, 0xee};
  StatusOr<EventPtr> copied = device.copyToHost(id, result->outputs[1].address, 4);
  ASSERT_TRUE(copied.isOk() && (*copied)->await().isOk());
  EXPECT_EQ(std::vector<uint8_t>(id, id + 4), std::vector<uint8_t>(4, 0));
  for (const ExecuteOutput& output : result->outputs)
    device.deallocate(output.address, output.bytes);
}

// --- two devices -----------------------------------------------------------------

// Records the keys that pass, as the PJRT layer's exchange would carry them.
class RecordingExchange final : public CliqueIdExchange {
 public:
  Status publish(const std::string& key, const std::string& value) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      published_.push_back(key);
    }
    return table_.publish(key, value);
  }
  StatusOr<std::string> wait(const std::string& key,
                             std::chrono::milliseconds timeout) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      waited_.push_back(key);
    }
    return table_.wait(key, timeout);
  }
  std::vector<std::string> published() {
    std::lock_guard<std::mutex> lock(mutex_);
    return published_;
  }
  std::vector<std::string> waited() {
    std::lock_guard<std::mutex> lock(mutex_);
    return waited_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> published_, waited_;
  InProcessCliqueIds table_;
};

// Each rank on its own thread, as one thread per device drives them.
std::vector<StatusOr<std::vector<float>>> runOnTwo(
    Platform& platform, const CollectiveDesc& d, const std::vector<float> (&inputs)[2]) {
  const std::vector<int64_t> clique = {0, 1};
  std::vector<StatusOr<std::vector<float>>> outs(2, internalError("not run"));
  std::thread second(
      [&] { outs[1] = runOn(platform.device(1), d, clique, 1, inputs[1]); });
  outs[0] = runOn(platform.device(0), d, clique, 0, inputs[0]);
  second.join();
  return outs;
}

class NcclCliqueTwoDevices : public ::testing::Test {
 protected:
  void SetUp() override {
    gpus_ = openGpus(2);
    if (gpus_.platform == nullptr) GTEST_SKIP() << gpus_.skip;
    exchange_ = std::make_shared<RecordingExchange>();
    gpus_.platform->setCliqueIdExchange(exchange_);
  }
  // Both ranks' outputs against StableHLO's, worked here.
  void expectOutputs(const CollectiveDesc& d, const std::vector<float> (&want)[2]) {
    const std::vector<float> inputs[2] = {inputOf(0, d.count), inputOf(1, d.count)};
    std::vector<StatusOr<std::vector<float>>> outs = runOnTwo(*gpus_.platform, d, inputs);
    for (int r = 0; r < 2; ++r) {
      ASSERT_TRUE(outs[r].isOk()) << "rank " << r << ": " << outs[r].status().toString();
      EXPECT_EQ(*outs[r], want[r]) << collectiveText(d) << " on rank " << r;
    }
  }

  Gpus gpus_;
  std::shared_ptr<RecordingExchange> exchange_;
};

TEST_F(NcclCliqueTwoDevices, AllReduceSumsBothRanks) {
  const CollectiveDesc d = desc(CollectiveKind::kAllReduce, 2, 6);
  // (i + 1) + (100 + i + 1) = 102 + 2i.
  std::vector<float> sum;
  for (int i = 0; i < 6; ++i) sum.push_back(static_cast<float>(102 + 2 * i));
  expectOutputs(d, {sum, sum});
  // Rank 0 made the id and published it under the clique's key; rank 1 waited.
  EXPECT_EQ(exchange_->published(), std::vector<std::string>{"jft/nccl_clique_id/0,1"});
  EXPECT_EQ(exchange_->waited(), std::vector<std::string>{"jft/nccl_clique_id/0,1"});
  // Once made, the communicators serve the next collective without the exchange.
  expectOutputs(d, {sum, sum});
  EXPECT_EQ(exchange_->published().size(), 1u);
}

TEST_F(NcclCliqueTwoDevices, AllGatherConcatenatesInRankOrder) {
  std::vector<float> both = inputOf(0, 5);
  const std::vector<float> second = inputOf(1, 5);
  both.insert(both.end(), second.begin(), second.end());
  expectOutputs(desc(CollectiveKind::kAllGather, 2, 5), {both, both});
}

TEST_F(NcclCliqueTwoDevices, CollectivePermuteMovesEachSourceToItsTarget) {
  CollectiveDesc swap = desc(CollectiveKind::kCollectivePermute, 2, 7);
  swap.pairs = {{0, 1}, {1, 0}};
  expectOutputs(swap, {inputOf(1, 7), inputOf(0, 7)});
  // Rank 0 is no pair's target: zeros.
  CollectiveDesc one = swap;
  one.pairs = {{0, 1}};
  expectOutputs(one, {std::vector<float>(7, 0.0f), inputOf(0, 7)});
}

}  // namespace
}  // namespace jft::runtime
