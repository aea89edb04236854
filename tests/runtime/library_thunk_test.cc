// LibraryThunk: load-time slot checks and execution in thunk order on the
// slots' addresses, with a host stand-in for the library whose effect the
// test computes by hand.
#include <gtest/gtest.h>

#include "recording_device.h"
#include "runtime/executable.h"
#include "runtime/program_check.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;
using Op = RecordedOp::Kind;

// A complex-to-real FFT whose buffers fit the vectors: 8 complex64 in (64
// bytes), 14 floats out, and a workspace of the input's 64 bytes.
FftDesc reverseStandIn() {
  FftDesc fft;
  fft.kind = FftKind::kIrfft;
  fft.lengths = {14};
  return fft;
}

// slots: 0 x (parameter), 1 t (temp), 2 out (output), 3 workspace (temp).
// thunks: t = library(x) with a workspace; out = add(t, x).
Program libraryProgram() {
  Program p;
  p.name = "library";
  p.kernels.push_back(addKernel());
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.slots.push_back(slot(K::kTemp, 64, -1, 256));
  p.thunks.push_back(LibraryThunk{reverseStandIn(), {0, 1, 3}});
  p.thunks.push_back(LaunchThunk{0, {1, 1, 1}, {1, 0, 2}});
  p.temp_bytes = 512;
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {2};
  p.output_aliases = {-1};
  return p;
}

TEST(LibraryThunkCheck, EveryBufferNamesASlot) {
  EXPECT_TRUE(checkProgram(libraryProgram(), 32).isOk());
  Program broken = libraryProgram();
  std::get<LibraryThunk>(broken.thunks[0]).buffers[1] = 9;
  Status status = checkProgram(broken, 32);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("irfft [14] batch 1 f32 buffer slot 9 of 4"),
            std::string::npos)
      << status.message();
}

TEST(LibraryThunkExecution, RunsInOrderOnTheSlotsAddresses) {
  RecordingDevice device;
  device.setKernelBody("add", [](const std::vector<uint64_t>& p, const LaunchDims&) {
    for (int i = 0; i < kElements; ++i)
      floats(p[2])[i] = floats(p[0])[i] + floats(p[1])[i];
  });
  // The stand-in reverses its input into its output.
  device.setLibraryBody(fftText(reverseStandIn()), [](const std::vector<uint64_t>& b) {
    for (int i = 0; i < kElements; ++i) floats(b[1])[i] = floats(b[0])[kElements - 1 - i];
    return Status::ok();
  });
  auto loaded = Executable::load(device, libraryProgram());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  uint64_t x = *device.allocate(kVectorBytes);
  for (int i = 0; i < kElements; ++i) floats(x)[i] = static_cast<float>(i);
  device.clearOps();
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*loaded)->execute({&argument, 1});
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_TRUE(result->done->await().isOk());

  auto calls = device.opsOfKind(Op::kLibrary);
  ASSERT_EQ(calls.size(), 1u);
  ASSERT_EQ(calls[0].params.size(), 3u);
  EXPECT_EQ(calls[0].params[0], x);
  EXPECT_NE(calls[0].params[2], 0u);  // the workspace has an address
  const uint64_t out = result->outputs[0].address;
  for (int i = 0; i < kElements; ++i)
    EXPECT_EQ(floats(out)[i], static_cast<float>(kElements - 1 - i + i)) << i;
  device.deallocate(out, kVectorBytes);
  device.deallocate(x, kVectorBytes);
}

TEST(LibraryThunkExecution, AFailureNamesTheThunk) {
  RecordingDevice device;
  device.setKernelBody("add", [](const std::vector<uint64_t>&, const LaunchDims&) {});
  device.setLibraryBody(fftText(reverseStandIn()), [](const std::vector<uint64_t>&) {
    return internalError("cufftExecC2C failed");
  });
  auto loaded = Executable::load(device, libraryProgram());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  uint64_t x = *device.allocate(kVectorBytes);
  const size_t live = device.liveAllocations();
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*loaded)->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_NE(result.status().message().find("program 'library', thunk 0"),
            std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("cufftExecC2C"), std::string::npos);
  EXPECT_EQ(device.liveAllocations(), live);
  device.deallocate(x, kVectorBytes);
}

}  // namespace
}  // namespace jft::runtime::testing
