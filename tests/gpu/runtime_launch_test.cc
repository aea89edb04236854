// runtime::Executable on a real GPU through CudaPlatform/CudaDevice: hand-written
// PTX kernels (cuModuleLoadData JIT-compiles PTX text) stand in for Triton
// cubins. Skips, saying why, where there is no driver or GPU.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/executable.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cuda_platform.h"

namespace jft::runtime {
namespace {

constexpr int kN = 1000;  // elements; baked into the PTX below
constexpr uint64_t kBytes = kN * sizeof(float);
constexpr uint32_t kBigShared = 100 * 1024;  // above the 48 KiB default limit

// out[i] = a[i] + b[i] for i < 1000, with Triton's two trailing scratch
// pointers. A grid of 8 blocks of 128 threads covers the vector.
const char* kAddPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 out,
                     .param .u64 gscratch, .param .u64 pscratch)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  setp.ge.s32 %p1, %r4, 1000;
  @%p1 bra DONE;
  mul.wide.s32 %rd4, %r4, 4;
  cvta.to.global.u64 %rd5, %rd1;
  cvta.to.global.u64 %rd6, %rd2;
  cvta.to.global.u64 %rd7, %rd3;
  add.s64 %rd8, %rd5, %rd4;
  add.s64 %rd9, %rd6, %rd4;
  add.s64 %rd10, %rd7, %rd4;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
)";

// Thread t of a block stores t at the far end of 100 KiB of dynamic shared
// memory, then reads back its mirror: out[t] = ntid - 1 - t. Fails to launch
// unless the kernel opted in to more than 48 KiB.
const char* kSharedPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.extern .shared .align 16 .b8 smem[];
.visible .entry mirror(.param .u64 out)
{
  .reg .b32 %r<10>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, smem;
  add.s32 %r3, %r3, 102400;
  add.s32 %r4, %r1, 1;
  shl.b32 %r4, %r4, 2;
  sub.s32 %r5, %r3, %r4;
  st.shared.u32 [%r5], %r1;
  bar.sync 0;
  sub.s32 %r6, %r2, %r1;
  shl.b32 %r6, %r6, 2;
  sub.s32 %r7, %r3, %r6;
  ld.shared.u32 %r8, [%r7];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r8;
  ret;
}
)";

// Each block writes its index into its slice of global scratch (256 bytes per
// CTA) and copies it back out: out[block] = block proves the slices exist.
const char* kScratchPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry scratch(.param .u64 out, .param .u64 gscratch, .param .u64 pscratch)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [gscratch];
  mov.u32 %r1, %ctaid.x;
  cvta.to.global.u64 %rd3, %rd2;
  mul.wide.u32 %rd4, %r1, 256;
  add.s64 %rd5, %rd3, %rd4;
  st.volatile.global.u32 [%rd5], %r1;
  ld.volatile.global.u32 %r2, [%rd5];
  cvta.to.global.u64 %rd6, %rd1;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd7, %rd6, %rd4;
  st.global.u32 [%rd7], %r2;
  ret;
}
)";

using K = BufferSlot::Kind;
using P = KernelImage::Param;

KernelImage image(const char* ptx, const char* name, std::vector<P> params, int warps) {
  KernelImage k;
  k.binary = ptx;
  k.name = name;
  k.params = std::move(params);
  k.num_warps = warps;
  return k;
}

BufferSlot slot(K kind, uint64_t bytes, int index = -1, uint64_t offset = 0) {
  BufferSlot s;
  s.kind = kind;
  s.bytes = bytes;
  s.index = index;
  s.offset = offset;
  return s;
}

std::vector<float> iota(float start) {
  std::vector<float> v(kN);
  for (int i = 0; i < kN; ++i) v[i] = start + static_cast<float>(i);
  return v;
}

class RuntimeLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto platform = gpu::openCudaPlatform({});
    if (!platform.isOk())
      GTEST_SKIP() << "no usable GPU: " << platform.status().toString();
    platform_ = std::move(platform).value();
    device_ = &platform_->device(0);
  }

  uint64_t upload(const std::vector<float>& values) {
    uint64_t address = *device_->allocate(values.size() * sizeof(float));
    EXPECT_TRUE(device_->copyToDevice(address, values.data(), values.size() * 4, true)
                    .value()
                    ->await()
                    .isOk());
    return address;
  }
  template <typename T>
  std::vector<T> download(uint64_t address, size_t count) {
    std::vector<T> out(count);
    auto copied = device_->copyToHost(out.data(), address, count * sizeof(T));
    EXPECT_TRUE(copied.isOk() && (*copied)->await().isOk());
    return out;
  }

  // out0 = x + 2c, out1 = x + c (out1 may take over x):
  //   t = vadd(x, c); u = copy(t); skipped launch; out0 = vadd(u, c); out1 = copy(t)
  static Program vectorProgram() {
    Program p;
    p.name = "gpu_vector";
    p.kernels.push_back(image(
        kAddPtx, "vadd",
        {P::kBuffer, P::kBuffer, P::kBuffer, P::kGlobalScratch, P::kProfileScratch}, 4));
    p.slots.push_back(slot(K::kParameter, kBytes, 0));
    BufferSlot constant = slot(K::kConstant, kBytes);
    std::vector<float> c(kN);
    for (int i = 0; i < kN; ++i) c[i] = 0.5f * static_cast<float>(i);
    constant.data.assign(reinterpret_cast<const char*>(c.data()), kBytes);
    p.slots.push_back(constant);
    p.slots.push_back(slot(K::kTemp, kBytes, -1, 0));
    p.slots.push_back(slot(K::kTemp, kBytes, -1, 4096));
    p.slots.push_back(slot(K::kOutput, kBytes, 0));
    p.slots.push_back(slot(K::kOutput, kBytes, 1));
    p.thunks.push_back(LaunchThunk{0, {8, 1, 1}, {0, 1, 2}});
    p.thunks.push_back(CopyThunk{2, 3, kBytes});
    p.thunks.push_back(LaunchThunk{0, {0, 1, 1}, {4, 4, 4}});  // empty grid: skipped
    p.thunks.push_back(LaunchThunk{0, {8, 1, 1}, {3, 1, 4}});
    p.thunks.push_back(CopyThunk{2, 5, kBytes});
    p.temp_bytes = 8192;
    p.parameter_bytes = {kBytes};
    p.output_slots = {4, 5};
    p.output_aliases = {-1, 0};
    return p;
  }

  void expectVector(uint64_t address, float start, float cScale) {
    auto values = download<float>(address, kN);
    int wrong = 0;
    for (int i = 0; i < kN; ++i) {
      float expected =
          start + static_cast<float>(i) + cScale * 0.5f * static_cast<float>(i);
      if (values[i] != expected && wrong++ < 5)
        ADD_FAILURE() << "element " << i << ": " << values[i] << " != " << expected;
    }
  }

  std::unique_ptr<Platform> platform_;
  Device* device_ = nullptr;
};

TEST_F(RuntimeLaunchTest, VectorProgramWithTempConstantCopiesAndOutputs) {
  auto loaded = Executable::load(*device_, vectorProgram());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  auto& executable = *loaded;
  for (float start : {1.0f, -300.0f}) {
    uint64_t x = upload(iota(start));
    ExecuteArgument argument{x, kBytes, false};
    auto result = executable->execute({&argument, 1});
    ASSERT_TRUE(result.isOk()) << result.status().toString();
    ASSERT_TRUE(result->done->await().isOk()) << result->done->status().toString();
    expectVector(result->outputs[0].address, start, 2.0f);
    expectVector(result->outputs[1].address, start, 1.0f);
    expectVector(x, start, 0.0f);
    for (auto& output : result->outputs)
      device_->deallocate(output.address, output.bytes);
    device_->deallocate(x, kBytes);
  }
}

// readToHost: the synchronous read a while loop makes for its predicate every
// iteration (small reads land in the device's pinned readback buffer) and a
// larger one, each after the queued work that wrote the memory.
TEST_F(RuntimeLaunchTest, ReadToHostSeesQueuedWritesSmallAndLarge) {
  uint64_t address = upload(iota(1.0f));
  uint8_t predicate = 0;
  ASSERT_TRUE(device_->readToHost(&predicate, address + 3, 1).isOk());
  EXPECT_EQ(predicate, 0x3F);  // the high byte of 1.0f
  float first[4] = {};
  ASSERT_TRUE(device_->readToHost(first, address, sizeof(first)).isOk());
  EXPECT_EQ(first[3], 4.0f);
  std::vector<float> all(kN);
  ASSERT_TRUE(device_->readToHost(all.data(), address, kBytes).isOk());
  EXPECT_EQ(all, iota(1.0f));
  device_->deallocate(address, kBytes);
}

TEST_F(RuntimeLaunchTest, DonatedParameterIsWrittenInPlace) {
  auto executable = Executable::load(*device_, vectorProgram());
  ASSERT_TRUE(executable.isOk());
  uint64_t x = upload(iota(7.0f));
  ExecuteArgument argument{x, kBytes, true};
  auto result = (*executable)->execute({&argument, 1});
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_EQ(result->outputs[1].address, x);
  ASSERT_TRUE(result->done->await().isOk());
  expectVector(x, 7.0f, 1.0f);
  expectVector(result->outputs[0].address, 7.0f, 2.0f);
  device_->deallocate(result->outputs[0].address, kBytes);
  device_->deallocate(x, kBytes);
}

TEST_F(RuntimeLaunchTest, LargeDynamicSharedMemory) {
  Program p;
  p.name = "shared";
  KernelImage k = image(kSharedPtx, "mirror", {P::kBuffer}, 8);
  k.shared_mem = kBigShared;
  p.kernels.push_back(k);
  p.slots.push_back(slot(K::kOutput, 256 * 4, 0));
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {0}});
  p.output_slots = {0};
  auto executable = Executable::load(*device_, p);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  auto result = (*executable)->execute({});
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_TRUE(result->done->await().isOk()) << result->done->status().toString();
  auto values = download<uint32_t>(result->outputs[0].address, 256);
  for (uint32_t t = 0; t < 256; ++t) EXPECT_EQ(values[t], 255 - t) << t;
  device_->deallocate(result->outputs[0].address, 256 * 4);
}

TEST_F(RuntimeLaunchTest, GlobalScratchIsSizedPerBlock) {
  Program p;
  p.name = "scratch";
  KernelImage k = image(kScratchPtx, "scratch",
                        {P::kBuffer, P::kGlobalScratch, P::kProfileScratch}, 1);
  k.global_scratch_size = 256;
  k.global_scratch_align = 128;
  p.kernels.push_back(k);
  constexpr uint32_t kBlocks = 4096;
  p.slots.push_back(slot(K::kOutput, kBlocks * 4, 0));
  p.thunks.push_back(LaunchThunk{0, {kBlocks, 1, 1}, {0}});
  p.output_slots = {0};
  auto executable = Executable::load(*device_, p);
  ASSERT_TRUE(executable.isOk()) << executable.status().toString();
  EXPECT_GE((*executable)->arenaBytes(), uint64_t{kBlocks} * 256);
  auto result = (*executable)->execute({});
  ASSERT_TRUE(result.isOk());
  ASSERT_TRUE(result->done->await().isOk()) << result->done->status().toString();
  auto values = download<uint32_t>(result->outputs[0].address, kBlocks);
  for (uint32_t b = 0; b < kBlocks; ++b) ASSERT_EQ(values[b], b);
  device_->deallocate(result->outputs[0].address, kBlocks * 4);
}

TEST_F(RuntimeLaunchTest, BadKernelsAreErrorsNotCrashes) {
  Program p;
  p.name = "bad";
  p.kernels.push_back(image("this is not PTX", "nothing", {}, 1));
  auto garbage = Executable::load(*device_, p);
  EXPECT_FALSE(garbage.isOk());
  EXPECT_NE(garbage.status().message().find("cuModuleLoadData"), std::string::npos)
      << garbage.status().message();
  p.kernels[0] = image(kAddPtx, "no_such_entry", {}, 1);
  auto missing = Executable::load(*device_, p);
  EXPECT_NE(missing.status().message().find("no_such_entry"), std::string::npos);
  p.kernels[0] = image(kSharedPtx, "mirror", {P::kBuffer}, 1);
  p.kernels[0].shared_mem = 4u << 20;  // more than any GPU has
  EXPECT_EQ(Executable::load(*device_, p).status().code(), StatusCode::kInvalidArgument);
}

// Executions from several threads share the arena; queue order keeps each
// one's temps intact until its kernels are done with them.
TEST_F(RuntimeLaunchTest, ConcurrentExecutionsFromThreads) {
  auto executable = Executable::load(*device_, vectorProgram());
  ASSERT_TRUE(executable.isOk());
  constexpr int kThreads = 4, kRuns = 50;
  std::vector<std::thread> threads;
  std::vector<std::vector<ExecuteResult>> results(kThreads);
  std::vector<uint64_t> inputs;
  for (int t = 0; t < kThreads; ++t) inputs.push_back(upload(iota(10000.0f * t)));
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ExecuteArgument argument{inputs[t], kBytes, false};
      for (int run = 0; run < kRuns; ++run) {
        auto result = (*executable)->execute({&argument, 1});
        if (result.isOk()) results[t].push_back(std::move(result).value());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(results[t].size(), size_t{kRuns});
    for (auto& result : results[t]) {
      ASSERT_TRUE(result.done->await().isOk());
      expectVector(result.outputs[0].address, 10000.0f * t, 2.0f);
      for (auto& output : result.outputs)
        device_->deallocate(output.address, output.bytes);
    }
    device_->deallocate(inputs[t], kBytes);
  }
}

// Pool memory on one GPU read by a copy queued on another.
TEST_F(RuntimeLaunchTest, CopyBetweenDevices) {
  if (platform_->deviceCount() < 2) GTEST_SKIP() << "needs two GPUs";
  Device& other = platform_->device(1);
  uint64_t x = upload(iota(3.0f));
  uint64_t y = *other.allocate(kBytes);
  auto copied = other.copyFromDevice(y, *device_, x, kBytes);
  ASSERT_TRUE(copied.isOk()) << copied.status().toString();
  ASSERT_TRUE((*copied)->await().isOk()) << (*copied)->status().toString();
  std::vector<float> back(kN);
  ASSERT_TRUE(other.copyToHost(back.data(), y, kBytes).value()->await().isOk());
  EXPECT_EQ(back, iota(3.0f));
  other.deallocate(y, kBytes);
  device_->deallocate(x, kBytes);
}

// The pool keeps freed memory cached; a larger request that only fits once
// the cache is returned must still succeed, and an impossible one is
// RESOURCE_EXHAUSTED.
TEST_F(RuntimeLaunchTest, PoolCacheNeverCausesOutOfMemory) {
  uint64_t total = device_->info().total_memory;
  uint64_t first = total / 10 * 6, second = total / 10 * 7;
  auto a = device_->allocate(first);
  ASSERT_TRUE(a.isOk()) << a.status().toString();
  device_->deallocate(*a, first);
  auto b = device_->allocate(second);
  ASSERT_TRUE(b.isOk()) << b.status().toString();
  device_->deallocate(*b, second);
  auto impossible = device_->allocate(total * 4);
  EXPECT_EQ(impossible.status().code(), StatusCode::kResourceExhausted);
  auto small = device_->allocate(1 << 20);
  ASSERT_TRUE(small.isOk());
  device_->deallocate(*small, 1 << 20);
  EXPECT_EQ(device_->memoryStats().bytes_in_use, 0);
}

double microsSince(std::chrono::steady_clock::time_point start, int count) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() -
                                                   start)
             .count() /
         count;
}

// Not a pass/fail bound beyond sanity: prints the per-execution host cost
// beside the cost of the bare launches it makes, and the allocator's cost.
// Runs stay below the driver's launch queue depth so the GPU never throttles
// the host.
TEST_F(RuntimeLaunchTest, HostCostOfExecuteAndAllocate) {
  auto executable = Executable::load(*device_, vectorProgram());
  ASSERT_TRUE(executable.isOk());
  uint64_t x = upload(iota(0));
  ExecuteArgument argument{x, kBytes, false};
  constexpr int kRuns = 100;
  auto runBatch = [&] {
    EventPtr last;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kRuns; ++i) {
      auto result = (*executable)->execute({&argument, 1});
      EXPECT_TRUE(result.isOk());
      if (!result.isOk()) break;
      for (auto& output : result->outputs)
        device_->deallocate(output.address, output.bytes);
      last = result->done;
    }
    double micros = microsSince(start, kRuns);
    if (last) {
      EXPECT_TRUE(last->await().isOk());
    }
    return micros;
  };
  runBatch();  // warm-up
  double perExecute = runBatch();

  KernelImage add = vectorProgram().kernels[0];
  auto kernel = device_->loadKernel(add);
  ASSERT_TRUE(kernel.isOk());
  uint64_t values[5] = {x, x, x, 0, 0};
  void* params[5] = {&values[0], &values[1], &values[2], &values[3], &values[4]};
  LaunchDims dims{{8, 1, 1}, 128, 0};
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 * kRuns; ++i)
    ASSERT_TRUE(device_->launchKernel(*kernel, dims, params).isOk());
  double perLaunch = microsSince(start, 3 * kRuns);
  ASSERT_TRUE(device_->recordEvent().value()->await().isOk());
  device_->unloadKernel(*kernel);
  uint64_t y = *device_->allocate(kBytes);
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(device_->copyOnDevice(y, x, kBytes).isOk());
  double perCopy = microsSince(start, kRuns);
  std::vector<EventPtr> events;
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) events.push_back(device_->recordEvent().value());
  double perEvent = microsSince(start, kRuns);
  ASSERT_TRUE(whenAll(events)->await().isOk());
  device_->deallocate(y, kBytes);
  std::printf("PERF bare copy: %.2f us; completion event: %.2f us\n", perCopy, perEvent);

  start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) {
    uint64_t a = *device_->allocate(1 << 20);
    device_->deallocate(a, 1 << 20);
  }
  double perAllocate = microsSince(start, 1000);
  auto* cuda = dynamic_cast<gpu::CudaDevice*>(device_);
  std::printf(
      "PERF execute (3 launches, 2 copies, 2 outputs): %.2f us host; bare launch: %.2f "
      "us; "
      "allocate+free 1 MiB: %.2f us (%s)\n",
      perExecute, perLaunch, perAllocate,
      cuda != nullptr && cuda->usesMemoryPool() ? "pool" : "cuMemAlloc");
  EXPECT_LT(perExecute, 1000.0);
  // Pool frees are accounted at once (stream order protects the memory).
  if (cuda != nullptr && cuda->usesMemoryPool()) {
    int64_t held = static_cast<int64_t>(kBytes + (*executable)->arenaBytes() +
                                        (*executable)->constantBytes());
    EXPECT_EQ(device_->memoryStats().bytes_in_use, held);
  }
  device_->deallocate(x, kBytes);
}

}  // namespace
}  // namespace jft::runtime
