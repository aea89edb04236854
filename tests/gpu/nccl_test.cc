// Collectives through NCCL on real GPUs, against StableHLO's definitions
// worked on the host (runtime/collective.h; the op's dimension outermost).
//
// One GPU: a communicator of one rank (ncclCommInitAll over device 0, and
// ncclCommInitRank with a fresh unique id) runs every kind over several
// element types; with one rank each result is its input, except a permute
// without pairs, whose output is zeros. Two or more GPUs: a two-device
// communicator driven by this one thread (NcclRunner::runGroup) runs
// all_reduce, all_gather, reduce_scatter, all_to_all, collective_permute and
// collective_broadcast on small integer-valued data (exact in f32), compared
// element by element with references computed here. Skips, saying why, where
// there is no GPU, no CUDA driver or no NCCL (JFT_NCCL_LIBRARY names the
// wheel's libnccl.so.2).
#include "runtime/gpu/nccl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "runtime/collective.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

struct Gpu {
  const Driver* driver = nullptr;
  const Nccl* nccl = nullptr;
  int ncclVersion = 0;
  std::vector<std::unique_ptr<CudaDevice>> devices;  // up to two
  std::string skip;
};

// Set up once and kept for the process (like the library it holds).
Gpu& gpu() {
  static Gpu* g = [] {
    auto* g = new Gpu();
    StatusOr<const Driver*> driver = Driver::load();
    if (!driver.isOk()) {
      g->skip = driver.status().toString();
      return g;
    }
    g->driver = *driver;
    StatusOr<const Nccl*> nccl = Nccl::load();
    if (!nccl.isOk()) {
      g->skip = nccl.status().toString();
      return g;
    }
    g->nccl = *nccl;
    g->nccl->getVersion(&g->ncclVersion);
    int count = 0;
    if (Status s =
            g->driver->check(g->driver->deviceGetCount(&count), "cuDeviceGetCount");
        !s.isOk()) {
      g->skip = s.toString();
      return g;
    }
    for (int ordinal = 0; ordinal < std::min(count, 2); ++ordinal) {
      StatusOr<std::unique_ptr<CudaDevice>> device =
          CudaDevice::open(*g->driver, ordinal);
      if (!device.isOk()) {
        g->skip = device.status().toString();
        g->devices.clear();
        return g;
      }
      g->devices.push_back(std::move(device).value());
    }
    if (g->devices.empty()) g->skip = "no CUDA device";
    return g;
  }();
  return *g;
}

#define SKIP_WITHOUT_GPU() \
  if (gpu().devices.empty()) GTEST_SKIP() << gpu().skip

// Zeroes on the device whose stream it is (CudaDevice::fill is ordered there).
NcclRunner makeRunner() {
  return NcclRunner(*gpu().nccl, [](uint64_t address, uint64_t bytes, CUstream stream) {
    for (const auto& device : gpu().devices)
      if (device->stream() == stream) return device->fill(address, 0, bytes);
    return internalError("no device owns the stream");
  });
}

// --- device buffers --------------------------------------------------------------

struct Buffer {
  CudaDevice* device = nullptr;
  uint64_t address = 0, bytes = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (address != 0) device->deallocate(address, bytes);
  }
};

// A buffer on `device` holding `bytes` (at least one byte is allocated).
void upload(Buffer& buffer, CudaDevice& device, const std::vector<uint8_t>& bytes) {
  buffer.device = &device;
  buffer.bytes = std::max<uint64_t>(bytes.size(), 1);
  StatusOr<uint64_t> address = device.allocate(buffer.bytes);
  ASSERT_TRUE(address.isOk()) << address.status().toString();
  buffer.address = *address;
  if (bytes.empty()) return;
  StatusOr<EventPtr> copied =
      device.copyToDevice(buffer.address, bytes.data(), bytes.size(), true);
  ASSERT_TRUE(copied.isOk()) << copied.status().toString();
  ASSERT_TRUE((*copied)->await().isOk());
}

std::vector<uint8_t> download(const Buffer& buffer, uint64_t bytes) {
  std::vector<uint8_t> out(bytes);
  if (bytes == 0) return out;
  StatusOr<EventPtr> copied =
      buffer.device->copyToHost(out.data(), buffer.address, bytes);
  EXPECT_TRUE(copied.isOk()) << copied.status().toString();
  if (!copied.isOk()) return {};
  Status done = (*copied)->await();
  EXPECT_TRUE(done.isOk()) << done.toString();
  return out;
}

// A drawn byte pattern that is a valid, finite value in every type: bytes in
// [1, 0x3f] make positive normal floats of every width (no NaN or inf bit
// patterns) and small positive integers.
std::vector<uint8_t> pattern(uint64_t bytes, uint8_t seed) {
  std::vector<uint8_t> out(bytes);
  for (uint64_t i = 0; i < bytes; ++i)
    out[i] = static_cast<uint8_t>(1 + (seed + 7 * i) % 0x3f);
  return out;
}

CollectiveDesc desc(CollectiveKind kind, CollectiveType type, int64_t ranks,
                    int64_t count) {
  CollectiveDesc d;
  d.kind = kind;
  d.type = type;
  d.ranks = ranks;
  d.count = count;
  return d;
}

// --- one rank --------------------------------------------------------------------

struct OneRank {
  std::vector<std::unique_ptr<NcclCommunicator>> comms;
  std::string skip;
};

OneRank& oneRank() {
  static OneRank* one = [] {
    auto* one = new OneRank();
    auto comms = NcclCommunicator::createAll(*gpu().nccl, {0});
    if (!comms.isOk())
      one->skip = comms.status().toString();
    else
      one->comms = std::move(comms).value();
    return one;
  }();
  return *one;
}

// Runs `d` on rank 0 of `comm` and returns its output; the input is a
// pattern, and the output starts as 0xee bytes so a missing write shows.
std::vector<uint8_t> runOneRank(const CollectiveDesc& d, const NcclCommunicator& comm,
                                const std::vector<uint8_t>& input) {
  CudaDevice& device = *gpu().devices[0];
  Buffer in, out;
  upload(in, device, input);
  upload(out, device, std::vector<uint8_t>(collectiveOutputBytes(d), 0xee));
  Status s = makeRunner().run(d, {&comm, device.stream(), in.address, out.address});
  EXPECT_TRUE(s.isOk()) << s.toString();
  return download(out, collectiveOutputBytes(d));
}

std::vector<CollectiveType> typesToTry() {
  std::vector<CollectiveType> types = {CollectiveType::kS8,  CollectiveType::kU8,
                                       CollectiveType::kS32, CollectiveType::kU32,
                                       CollectiveType::kS64, CollectiveType::kU64,
                                       CollectiveType::kF16, CollectiveType::kBF16,
                                       CollectiveType::kF32, CollectiveType::kF64};
  // NCCL's f8 types came with 2.24 and run on sm_90 and newer.
  if (gpu().ncclVersion >= 22400 && gpu().devices[0]->info().compute_major >= 9) {
    types.push_back(CollectiveType::kF8E4M3FN);
    types.push_back(CollectiveType::kF8E5M2);
  }
  return types;
}

// With one rank every kind's result is its input: the reduction over one
// rank, the gather of one block, its only chunk, its own value.
TEST(NcclOneRank, EveryKindAndTypeReturnsItsInput) {
  SKIP_WITHOUT_GPU();
  if (oneRank().comms.empty()) GTEST_SKIP() << oneRank().skip;
  const NcclCommunicator& comm = *oneRank().comms[0];
  uint8_t seed = 0;
  for (CollectiveType type : typesToTry()) {
    for (CollectiveKind kind :
         {CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
          CollectiveKind::kReduceScatter, CollectiveKind::kAllToAll,
          CollectiveKind::kCollectivePermute, CollectiveKind::kCollectiveBroadcast}) {
      CollectiveDesc d = desc(kind, type, 1, 37);
      if (kind == CollectiveKind::kCollectivePermute) d.pairs = {{0, 0}};
      const std::vector<uint8_t> input = pattern(collectiveInputBytes(d), ++seed);
      EXPECT_EQ(runOneRank(d, comm, input), input) << collectiveText(d);
    }
  }
}

TEST(NcclOneRank, EveryReductionOfOneRankIsItsInput) {
  SKIP_WITHOUT_GPU();
  if (oneRank().comms.empty()) GTEST_SKIP() << oneRank().skip;
  for (CollectiveReduction reduction :
       {CollectiveReduction::kSum, CollectiveReduction::kProd, CollectiveReduction::kMin,
        CollectiveReduction::kMax}) {
    for (CollectiveKind kind :
         {CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter}) {
      CollectiveDesc d = desc(kind, CollectiveType::kF32, 1, 1000);
      d.reduction = reduction;
      const std::vector<uint8_t> input = pattern(collectiveInputBytes(d), 3);
      EXPECT_EQ(runOneRank(d, *oneRank().comms[0], input), input) << collectiveText(d);
    }
  }
}

// A rank that is nobody's target outputs zeros (StableHLO collective_permute).
TEST(NcclOneRank, PermuteWithoutPairsWritesZeros) {
  SKIP_WITHOUT_GPU();
  if (oneRank().comms.empty()) GTEST_SKIP() << oneRank().skip;
  CollectiveDesc d =
      desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 1, 33);
  EXPECT_EQ(runOneRank(d, *oneRank().comms[0], pattern(collectiveInputBytes(d), 5)),
            std::vector<uint8_t>(collectiveOutputBytes(d), 0));
}

TEST(NcclOneRank, EmptyCollectivesLeaveTheOutputAlone) {
  SKIP_WITHOUT_GPU();
  if (oneRank().comms.empty()) GTEST_SKIP() << oneRank().skip;
  CudaDevice& device = *gpu().devices[0];
  Buffer out;
  upload(out, device, {0xee});
  CollectiveDesc d = desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 1, 0);
  Status s =
      makeRunner().run(d, {oneRank().comms[0].get(), device.stream(), 0, out.address});
  EXPECT_TRUE(s.isOk()) << s.toString();
  EXPECT_EQ(download(out, 1), std::vector<uint8_t>({0xee}));
}

// The multi-process path with one process: a fresh unique id and
// ncclCommInitRank on the current device.
TEST(NcclOneRank, InitRankCommunicatorRunsAllReduce) {
  SKIP_WITHOUT_GPU();
  CudaDevice& device = *gpu().devices[0];
  ASSERT_TRUE(
      gpu()
          .driver->check(gpu().driver->ctxSetCurrent(device.context()), "cuCtxSetCurrent")
          .isOk());
  StatusOr<ncclUniqueId> id = newNcclUniqueId(*gpu().nccl);
  ASSERT_TRUE(id.isOk()) << id.status().toString();
  auto comm = NcclCommunicator::create(*gpu().nccl, *id, 0, 1);
  ASSERT_TRUE(comm.isOk()) << comm.status().toString();
  EXPECT_TRUE((*comm)->asyncError().isOk());
  CollectiveDesc d = desc(CollectiveKind::kAllReduce, CollectiveType::kF64, 1, 17);
  const std::vector<uint8_t> input = pattern(collectiveInputBytes(d), 9);
  EXPECT_EQ(runOneRank(d, **comm, input), input);
}

TEST(NcclOneRank, MismatchedDescriptionIsRefused) {
  SKIP_WITHOUT_GPU();
  if (oneRank().comms.empty()) GTEST_SKIP() << oneRank().skip;
  CudaDevice& device = *gpu().devices[0];
  Buffer in, out;
  upload(in, device, pattern(16, 1));
  upload(out, device, pattern(16, 2));
  Status s = makeRunner().run(
      desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 4),
      {oneRank().comms[0].get(), device.stream(), in.address, out.address});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.toString();
}

// --- two devices -----------------------------------------------------------------

struct TwoRanks {
  std::vector<std::unique_ptr<NcclCommunicator>> comms;
  std::string skip;
};

TwoRanks& twoRanks() {
  static TwoRanks* two = [] {
    auto* two = new TwoRanks();
    if (gpu().devices.size() < 2) {
      two->skip = "needs two GPUs";
      return two;
    }
    auto comms = NcclCommunicator::createAll(*gpu().nccl, {0, 1});
    if (!comms.isOk())
      two->skip = comms.status().toString();
    else
      two->comms = std::move(comms).value();
    return two;
  }();
  return *two;
}

#define SKIP_WITHOUT_TWO_GPUS()                                  \
  SKIP_WITHOUT_GPU();                                            \
  if (twoRanks().comms.empty()) GTEST_SKIP() << twoRanks().skip; \
  static_assert(true)

std::vector<uint8_t> encodeF32(const std::vector<double>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    std::memcpy(bytes.data() + 4 * i, &f, 4);
  }
  return bytes;
}

std::vector<double> decodeF32(const std::vector<uint8_t>& bytes) {
  std::vector<double> values(bytes.size() / 4);
  for (size_t i = 0; i < values.size(); ++i) {
    float f;
    std::memcpy(&f, bytes.data() + 4 * i, 4);
    values[i] = f;
  }
  return values;
}

// Rank r's input: 100 r + i + 1, exact in f32 and distinct across ranks.
std::vector<double> inputOf(int rank, int64_t count) {
  std::vector<double> x(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) x[i] = 100.0 * rank + static_cast<double>(i) + 1;
  return x;
}

// StableHLO's result on each rank, on the host (f32 kinds; see collective.h).
std::vector<std::vector<double>> reference(const CollectiveDesc& d,
                                           const std::vector<std::vector<double>>& x) {
  const int n = static_cast<int>(d.ranks);
  const size_t count = static_cast<size_t>(d.count);
  std::vector<std::vector<double>> out(n);
  auto reduce = [&](size_t i) {
    double acc = x[0][i];
    for (int r = 1; r < n; ++r) {
      switch (d.reduction) {
        case CollectiveReduction::kSum:
          acc += x[r][i];
          break;
        case CollectiveReduction::kProd:
          acc *= x[r][i];
          break;
        case CollectiveReduction::kMin:
          acc = std::min(acc, x[r][i]);
          break;
        case CollectiveReduction::kMax:
          acc = std::max(acc, x[r][i]);
          break;
      }
    }
    return acc;
  };
  const size_t chunk = count / static_cast<size_t>(n);
  for (int r = 0; r < n; ++r) {
    switch (d.kind) {
      case CollectiveKind::kAllReduce:
        for (size_t i = 0; i < count; ++i) out[r].push_back(reduce(i));
        break;
      case CollectiveKind::kAllGather:
        for (int s = 0; s < n; ++s) out[r].insert(out[r].end(), x[s].begin(), x[s].end());
        break;
      case CollectiveKind::kReduceScatter:
        for (size_t i = 0; i < chunk; ++i) out[r].push_back(reduce(r * chunk + i));
        break;
      case CollectiveKind::kAllToAll:
        // Chunk r of every sender, in sender order.
        for (int s = 0; s < n; ++s)
          out[r].insert(out[r].end(), x[s].begin() + r * chunk,
                        x[s].begin() + (r + 1) * chunk);
        break;
      case CollectiveKind::kCollectivePermute: {
        const int64_t source = permuteSourceOf(d, r);
        out[r] = source >= 0 ? x[source] : std::vector<double>(count, 0.0);
        break;
      }
      case CollectiveKind::kCollectiveBroadcast:
        out[r] = x[0];
        break;
    }
  }
  return out;
}

// Runs `d` on both devices in one group and compares every rank's output.
void runTwoRanks(const CollectiveDesc& d) {
  std::vector<std::vector<double>> inputs;
  Buffer in[2], out[2];
  std::vector<NcclRunner::Participant> parts;
  for (int r = 0; r < 2; ++r) {
    CudaDevice& device = *gpu().devices[r];
    inputs.push_back(inputOf(r, d.count));
    upload(in[r], device, encodeF32(inputs[r]));
    // Start from values no collective produces, so a missing write shows.
    upload(out[r], device,
           encodeF32(
               std::vector<double>(static_cast<size_t>(collectiveOutputCount(d)), -7)));
    parts.push_back(
        {twoRanks().comms[r].get(), device.stream(), in[r].address, out[r].address});
  }
  Status s = makeRunner().runGroup(d, parts);
  ASSERT_TRUE(s.isOk()) << s.toString();
  const std::vector<std::vector<double>> want = reference(d, inputs);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(decodeF32(download(out[r], collectiveOutputBytes(d))), want[r])
        << collectiveText(d) << " on rank " << r;
    EXPECT_TRUE(twoRanks().comms[r]->asyncError().isOk());
  }
}

TEST(NcclTwoDevices, AllReduce) {
  SKIP_WITHOUT_TWO_GPUS();
  for (CollectiveReduction reduction :
       {CollectiveReduction::kSum, CollectiveReduction::kProd, CollectiveReduction::kMin,
        CollectiveReduction::kMax}) {
    CollectiveDesc d = desc(CollectiveKind::kAllReduce, CollectiveType::kF32, 2, 6);
    d.reduction = reduction;
    runTwoRanks(d);
  }
}

TEST(NcclTwoDevices, AllGather) {
  SKIP_WITHOUT_TWO_GPUS();
  runTwoRanks(desc(CollectiveKind::kAllGather, CollectiveType::kF32, 2, 5));
}

TEST(NcclTwoDevices, ReduceScatter) {
  SKIP_WITHOUT_TWO_GPUS();
  runTwoRanks(desc(CollectiveKind::kReduceScatter, CollectiveType::kF32, 2, 8));
}

TEST(NcclTwoDevices, AllToAll) {
  SKIP_WITHOUT_TWO_GPUS();
  runTwoRanks(desc(CollectiveKind::kAllToAll, CollectiveType::kF32, 2, 8));
}

TEST(NcclTwoDevices, CollectivePermute) {
  SKIP_WITHOUT_TWO_GPUS();
  CollectiveDesc swap =
      desc(CollectiveKind::kCollectivePermute, CollectiveType::kF32, 2, 7);
  swap.pairs = {{0, 1}, {1, 0}};
  runTwoRanks(swap);
  // Rank 0 receives nothing: zeros.
  CollectiveDesc one = swap;
  one.pairs = {{0, 1}};
  runTwoRanks(one);
  // Each keeps its own.
  CollectiveDesc self = swap;
  self.pairs = {{0, 0}, {1, 1}};
  runTwoRanks(self);
}

TEST(NcclTwoDevices, CollectiveBroadcast) {
  SKIP_WITHOUT_TWO_GPUS();
  runTwoRanks(desc(CollectiveKind::kCollectiveBroadcast, CollectiveType::kF32, 2, 9));
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef SKIP_WITHOUT_GPU
#undef SKIP_WITHOUT_TWO_GPUS
