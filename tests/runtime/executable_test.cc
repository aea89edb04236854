// Executable over the recording device: data flows through launches, copies
// and constants; parameters are packed as each image says; outputs, aliasing
// and errors behave as the PJRT layer relies on.
#include "runtime/executable.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "recording_device.h"
#include "test_programs.h"
#include "vector_fixture.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;
using Op = RecordedOp::Kind;
using P = KernelImage::Param;

class ExecutableTest : public VectorDeviceTest {};

TEST_F(ExecutableTest, RunsLaunchesCopiesAndConstants) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(1.0f);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_EQ(result->outputs.size(), 2u);
  ASSERT_TRUE(result->done->isReady());
  EXPECT_TRUE(result->done->status().isOk());
  for (int i = 0; i < kElements; ++i) {
    float c = 100.0f * (i + 1), xi = 1.0f + static_cast<float>(i);
    EXPECT_EQ(floats(result->outputs[0].address)[i], xi + 2 * c) << i;
    EXPECT_EQ(floats(result->outputs[1].address)[i], xi + c) << i;
    EXPECT_EQ(floats(x)[i], xi) << "an undonated input is never written";
  }
  for (const auto& output : result->outputs) {
    EXPECT_EQ(output.bytes, kVectorBytes);
    EXPECT_EQ(output.taken_from, -1);
    EXPECT_NE(output.address, x);
  }
  EXPECT_EQ(executable->outputCount(), 2u);
  EXPECT_EQ(executable->outputBytes(1), kVectorBytes);
  release(*result);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, OneEventPerExecutionAfterTheThunksInOrder) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  device_.clearOps();
  uint64_t x = input(0);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  std::vector<Op> kinds;
  for (const auto& op : device_.ops()) kinds.push_back(op.kind);
  EXPECT_EQ(kinds, (std::vector<Op>{Op::kLaunch, Op::kLaunch, Op::kCopy, Op::kEvent}));
  release(*result);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, KernelsLoadAndConstantsUploadOnceAtLoad) {
  Program program = vectorProgram();
  program.kernels.push_back(kernelImage("spare", {}));
  auto executable = load(std::move(program));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(device_.opsOfKind(Op::kLoad).size(), 2u);
  EXPECT_EQ(device_.opsOfKind(Op::kUpload).size(), 1u);
  EXPECT_EQ(executable->constantBytes(), kVectorBytes);
  uint64_t x = input(0);
  ExecuteArgument argument{x, kVectorBytes, false};
  for (int run = 0; run < 3; ++run) {
    auto result = executable->execute({&argument, 1});
    ASSERT_TRUE(result.isOk());
    release(*result);
  }
  EXPECT_EQ(device_.opsOfKind(Op::kLoad).size(), 2u);
  EXPECT_EQ(device_.opsOfKind(Op::kUpload).size(), 1u);
  EXPECT_EQ(device_.opsOfKind(Op::kLaunch).size(), 6u);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, DestructionUnloadsKernelsAndFreesItsMemory) {
  size_t before = device_.liveAllocations();
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(device_.loadedKernels(), 1u);
  EXPECT_EQ(device_.liveAllocations(), before + 2);  // arena and constants
  executable.reset();
  EXPECT_EQ(device_.loadedKernels(), 0u);
  EXPECT_EQ(device_.liveAllocations(), before);
  EXPECT_EQ(device_.memoryStats().bytes_in_use, 0);
  EXPECT_EQ(device_.badFrees(), 0);
}

// Triton appends scratch pointers: each gets the arena's scratch region sized
// per CTA times the grid, at the image's alignment, or null for size 0.
TEST_F(ExecutableTest, PacksBuffersAndScratchInImageOrder) {
  Program program;
  program.name = "scratch";
  KernelImage image = kernelImage(
      "k", {P::kBuffer, P::kGlobalScratch, P::kBuffer, P::kProfileScratch, P::kBuffer});
  image.global_scratch_size = 100;
  image.global_scratch_align = 1024;
  program.kernels.push_back(image);
  program.slots = {slot(K::kParameter, 8, 0), slot(K::kTemp, 300, -1, 0),
                   slot(K::kOutput, 8, 0)};
  program.temp_bytes = 300;
  program.parameter_bytes = {8};
  program.output_slots = {2};
  program.thunks.push_back(LaunchThunk{0, {2, 3, 1}, {0, 1, 2}});
  auto executable = load(program);
  ASSERT_NE(executable, nullptr);
  uint64_t x = *device_.allocate(8);
  ExecuteArgument argument{x, 8, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  auto launches = device_.opsOfKind(Op::kLaunch);
  ASSERT_EQ(launches.size(), 1u);
  const auto& params = launches[0].params;
  ASSERT_EQ(params.size(), 5u);
  EXPECT_EQ(params[0], x);
  uint64_t temp = params[2];
  EXPECT_EQ(temp % 256, 0u);
  uint64_t scratch = params[1];
  EXPECT_EQ(scratch % 1024, 0u);
  EXPECT_GE(scratch, temp + 300) << "scratch must not overlap the temps";
  EXPECT_EQ(params[3], 0u) << "profile scratch of size 0 is null";
  EXPECT_EQ(params[4], result->outputs[0].address);
  // 6 CTAs of 100 bytes fit inside the arena allocation.
  EXPECT_GE(executable->arenaBytes(), (scratch - temp) + 600);
  EXPECT_EQ(launches[0].dims.grid, (std::array<uint32_t, 3>{2, 3, 1}));
  release(*result);
  device_.deallocate(x, 8);
}

TEST_F(ExecutableTest, ProfileScratchFollowsGlobalScratch) {
  Program program;
  program.name = "profile";
  KernelImage image = kernelImage("k", {P::kGlobalScratch, P::kProfileScratch});
  image.global_scratch_size = 64;
  image.profile_scratch_size = 32;
  image.profile_scratch_align = 512;
  program.kernels.push_back(image);
  program.thunks.push_back(LaunchThunk{0, {4, 1, 1}, {}});
  auto executable = load(program);
  ASSERT_NE(executable, nullptr);
  ASSERT_TRUE(executable->execute({}).isOk());
  auto params = device_.opsOfKind(Op::kLaunch).at(0).params;
  EXPECT_NE(params[0], 0u);
  EXPECT_EQ(params[1] % 512, 0u);
  EXPECT_GE(params[1], params[0] + 4 * 64);
}

TEST_F(ExecutableTest, ParameterAddressesChangePerExecution) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t a = input(0), b = input(50);
  for (uint64_t x : {a, b, a}) {
    device_.clearOps();
    ExecuteArgument argument{x, kVectorBytes, false};
    auto result = executable->execute({&argument, 1});
    ASSERT_TRUE(result.isOk());
    auto launches = device_.opsOfKind(Op::kLaunch);
    EXPECT_EQ(launches.at(0).params[0], x);
    EXPECT_EQ(launches.at(1).params[2], result->outputs[0].address);
    EXPECT_EQ(floats(result->outputs[1].address)[0], floats(x)[0] + 100.0f);
    release(*result);
  }
  device_.deallocate(a, kVectorBytes);
  device_.deallocate(b, kVectorBytes);
}

TEST_F(ExecutableTest, BlockIsWarpsTimesDeviceWarpSize) {
  RecordingDevice wide(uint64_t{1} << 20, 64);
  Program program;
  program.name = "block";
  KernelImage image = kernelImage("k", {});
  image.num_warps = 8;
  image.shared_mem = 100 * 1024;
  program.kernels.push_back(image);
  program.thunks.push_back(LaunchThunk{0, {7, 1, 1}, {}});
  auto executable = Executable::load(wide, program);
  ASSERT_TRUE(executable.isOk());
  ASSERT_TRUE((*executable)->execute({}).isOk());
  auto launch = wide.opsOfKind(Op::kLaunch).at(0);
  EXPECT_EQ(launch.dims.block_threads, 512u);
  EXPECT_EQ(launch.dims.shared_mem, 100u * 1024);
}

TEST_F(ExecutableTest, LaunchWithAnEmptyGridIsSkipped) {
  Program program = vectorProgram();
  std::get<LaunchThunk>(program.thunks[0]).grid = {4, 0, 1};
  program.thunks.push_back(MemsetThunk{2, 0, 0});  // empty memset: skipped too
  auto executable = load(program);
  ASSERT_NE(executable, nullptr);
  device_.clearOps();
  uint64_t x = input(0);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  auto launches = device_.opsOfKind(Op::kLaunch);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_NE(launches[0].params[0], x) << "the surviving launch is the second";
  EXPECT_TRUE(device_.opsOfKind(Op::kFill).empty());
  release(*result);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, MemsetFillsTheSlot) {
  Program program = vectorProgram();
  // Zero out0 after the kernel wrote it, then write 0x3F into its first 8 bytes.
  program.thunks.push_back(MemsetThunk{3, 0, kVectorBytes});
  program.thunks.push_back(MemsetThunk{3, 0x3F, 8});
  auto executable = load(program);
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(0);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  auto* bytes = reinterpret_cast<const uint8_t*>(result->outputs[0].address);
  for (uint64_t i = 0; i < kVectorBytes; ++i) EXPECT_EQ(bytes[i], i < 8 ? 0x3F : 0) << i;
  release(*result);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, DonatedParameterBecomesItsAliasedOutput) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(2.0f);
  int64_t inUse = device_.memoryStats().bytes_in_use;
  device_.clearOps();
  ExecuteArgument argument{x, kVectorBytes, true};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  EXPECT_EQ(result->outputs[1].address, x);
  EXPECT_EQ(result->outputs[1].taken_from, 0);
  EXPECT_EQ(result->outputs[0].taken_from, -1);
  EXPECT_EQ(device_.memoryStats().bytes_in_use,
            inUse + static_cast<int64_t>(kVectorBytes))
      << "only the unaliased output is allocated";
  EXPECT_EQ(floats(x)[3], 5.0f + 400.0f) << "x now holds out1 = x + c";
  device_.deallocate(result->outputs[0].address, kVectorBytes);
  device_.deallocate(x, kVectorBytes);
}

// A copy from a donated parameter into the output that took it over is a no-op.
TEST_F(ExecutableTest, CopyOntoItselfIsSkipped) {
  Program program;
  program.name = "identity";
  program.slots = {slot(K::kParameter, 32, 0), slot(K::kOutput, 32, 0)};
  program.thunks.push_back(CopyThunk{0, 1, 32});
  program.parameter_bytes = {32};
  program.output_slots = {1};
  program.output_aliases = {0};
  auto executable = load(program);
  ASSERT_NE(executable, nullptr);
  uint64_t x = *device_.allocate(32);
  for (bool donated : {true, false}) {
    device_.clearOps();
    ExecuteArgument argument{x, 32, donated};
    auto result = executable->execute({&argument, 1});
    ASSERT_TRUE(result.isOk());
    auto copies = device_.opsOfKind(Op::kCopy);
    if (donated) {
      EXPECT_TRUE(copies.empty());
      EXPECT_EQ(result->outputs[0].address, x);
    } else {
      ASSERT_EQ(copies.size(), 1u);
      EXPECT_EQ(copies[0].src, x);
      EXPECT_EQ(copies[0].dst, result->outputs[0].address);
      EXPECT_EQ(copies[0].bytes, 32u);
      release(*result);
    }
  }
  device_.deallocate(x, 32);
}

TEST_F(ExecutableTest, ArgumentsAreCheckedBeforeAnythingIsQueued) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  device_.clearOps();
  uint64_t x = input(0);
  auto none = executable->execute({});
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("takes 1 arguments, got 0"), std::string::npos);
  ExecuteArgument shortArg{x, kVectorBytes - 4, false};
  auto wrongSize = executable->execute({&shortArg, 1});
  EXPECT_EQ(wrongSize.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(
      wrongSize.status().message().find("argument 0 of program 'vector' has 60 bytes, "
                                        "expected 64"),
      std::string::npos)
      << wrongSize.status().message();
  ExecuteArgument nullArg{0, kVectorBytes, false};
  EXPECT_EQ(executable->execute({&nullArg, 1}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(device_.ops().empty());
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, FailedLaunchNamesTheKernelAndFreesTheOutputs) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(0);
  size_t live = device_.liveAllocations();
  device_.failLaunchOf("add");
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
  const std::string& message = result.status().message();
  EXPECT_NE(message.find("kernel 'add'"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA_ERROR_INVALID_VALUE"), std::string::npos) << message;
  EXPECT_NE(message.find("program 'vector', thunk 0"), std::string::npos) << message;
  EXPECT_EQ(device_.liveAllocations(), live);
  EXPECT_TRUE(device_.opsOfKind(Op::kEvent).empty());
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, FailedLaunchKeepsADonatedBufferWithTheCaller) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(0);
  device_.failLaunchOf("add");
  ExecuteArgument argument{x, kVectorBytes, true};
  ASSERT_FALSE(executable->execute({&argument, 1}).isOk());
  device_.deallocate(x, kVectorBytes);  // still ours: freeing it is not a double free
  EXPECT_EQ(device_.badFrees(), 0);
}

TEST_F(ExecutableTest, OutputOutOfMemoryIsResourceExhausted) {
  RecordingDevice small(kVectorBytes * 3 + 512);  // arena, constants, x; no outputs
  auto executable = Executable::load(small, vectorProgram());
  ASSERT_TRUE(executable.isOk());
  uint64_t x = *small.allocate(kVectorBytes);
  size_t live = small.liveAllocations();
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*executable)->execute({&argument, 1});
  EXPECT_EQ(result.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(result.status().message().find("output"), std::string::npos);
  EXPECT_EQ(small.liveAllocations(), live)
      << "outputs allocated before the failure are freed";
  small.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, LoadFailureReleasesWhatWasAcquired) {
  Program program = vectorProgram();
  program.kernels.push_back(kernelImage("broken", {}));
  device_.failLoadOf("broken");
  auto executable = Executable::load(device_, program);
  ASSERT_FALSE(executable.isOk());
  EXPECT_NE(executable.status().message().find("kernel 1 ('broken')"), std::string::npos);
  EXPECT_EQ(device_.loadedKernels(), 0u);
  EXPECT_EQ(device_.liveAllocations(), 0u);
  RecordingDevice tiny(100);
  EXPECT_EQ(Executable::load(tiny, vectorProgram()).status().code(),
            StatusCode::kResourceExhausted);
}

TEST_F(ExecutableTest, InvalidProgramIsRejectedAtLoad) {
  Program program = vectorProgram();
  std::get<LaunchThunk>(program.thunks[0]).buffers.push_back(0);
  auto executable = Executable::load(device_, program);
  EXPECT_EQ(executable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(device_.ops().empty());
}

TEST_F(ExecutableTest, ScratchBeyond64BitsIsInvalid) {
  Program program;
  program.name = "huge";
  KernelImage image = kernelImage("k", {P::kGlobalScratch});
  image.global_scratch_size = uint64_t{1} << 40;
  program.kernels.push_back(image);
  program.thunks.push_back(LaunchThunk{0, {1u << 31, 1u << 16, 1}, {}});
  EXPECT_EQ(Executable::load(device_, program).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(ExecutableTest, ExecuteReturnsBeforeTheDeviceFinishes) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  uint64_t x = input(0);
  device_.holdEvents(true);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = executable->execute({&argument, 1});
  ASSERT_TRUE(result.isOk());
  EXPECT_FALSE(result->done->isReady());
  device_.completeHeldEvents();
  EXPECT_TRUE(result->done->isReady());
  release(*result);
  device_.deallocate(x, kVectorBytes);
}

TEST_F(ExecutableTest, ConcurrentExecutionsEachSeeTheirOwnArguments) {
  auto executable = load(vectorProgram());
  ASSERT_NE(executable, nullptr);
  constexpr int kThreads = 8, kRuns = 40;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      uint64_t x = input(static_cast<float>(1000 * t));
      for (int run = 0; run < kRuns; ++run) {
        ExecuteArgument argument{x, kVectorBytes, false};
        auto result = executable->execute({&argument, 1});
        if (!result.isOk()) {
          ++failed;
          continue;
        }
        for (int i = 0; i < kElements; ++i) {
          float expected = 1000.0f * t + i + 200.0f * (i + 1);
          if (floats(result->outputs[0].address)[i] != expected) ++wrong;
        }
        release(*result);
      }
      device_.deallocate(x, kVectorBytes);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(device_.opsOfKind(Op::kEvent).size(), size_t{kThreads * kRuns});
  EXPECT_EQ(device_.badFrees(), 0);
}

}  // namespace
}  // namespace jft::runtime::testing
