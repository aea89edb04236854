// DeviceMeasurer (pjrt/device_measurer.h) over a host stand-in device: how
// many executions it runs (warm-up, estimate, batched samples), that inputs
// are zeros of the parameters' sizes, that everything it allocates is freed,
// and that a candidate that cannot run is an error rather than a time.
#include "pjrt/device_measurer.h"

#include <gtest/gtest.h>

#include "runtime/recording_device.h"

namespace jft::pjrt {
namespace {

using runtime::BufferSlot;
using runtime::testing::RecordedOp;
using runtime::testing::RecordingDevice;

BufferSlot slot(BufferSlot::Kind kind, uint64_t bytes, int index) {
  BufferSlot s;
  s.kind = kind;
  s.bytes = bytes;
  s.index = index;
  return s;
}

// output = parameter, 64 bytes.
runtime::Program copyProgram() {
  runtime::Program p;
  p.name = "copy";
  p.slots = {slot(BufferSlot::Kind::kParameter, 64, 0),
             slot(BufferSlot::Kind::kOutput, 64, 0)};
  p.thunks.push_back(runtime::CopyThunk{0, 1, 64});
  p.parameter_bytes = {64};
  p.output_slots = {1};
  p.output_aliases = {-1};
  return p;
}

TEST(DeviceMeasurer, WarmsUpThenTimesBatchedSamples) {
  RecordingDevice device;
  // A huge sample time: the batch is the cap, 4.
  DeviceMeasurer measurer(device, {/*warmup=*/2, /*samples=*/3, /*sample_us=*/1e9,
                                   /*max_batch=*/4});
  StatusOr<double> micros = measurer.time(copyProgram(), "copy");
  ASSERT_TRUE(micros.isOk()) << micros.status().toString();
  EXPECT_GE(*micros, 0.0);
  // 2 warm-up runs, 1 estimate, 3 samples of 4.
  EXPECT_EQ(device.opsOfKind(RecordedOp::Kind::kCopy).size(), 2u + 1u + 3u * 4u);
  std::vector<RecordedOp> fills = device.opsOfKind(RecordedOp::Kind::kFill);
  ASSERT_EQ(fills.size(), 1u);
  EXPECT_EQ(fills[0].value, 0);
  EXPECT_EQ(fills[0].bytes, 64u);
  EXPECT_EQ(device.liveAllocations(), 0u);
  EXPECT_EQ(device.badFrees(), 0);
}

TEST(DeviceMeasurer, KeyNamesDeviceAndComputeCapability) {
  RecordingDevice device;
  EXPECT_EQ(DeviceMeasurer(device).deviceKey(), "Recording GPU cc 0.0");
}

TEST(DeviceMeasurer, CandidateThatCannotRunIsAnError) {
  RecordingDevice device(/*limit=*/32);  // the 64-byte buffers do not fit
  StatusOr<double> micros = DeviceMeasurer(device).time(copyProgram(), "copy");
  EXPECT_FALSE(micros.isOk());
  EXPECT_EQ(device.liveAllocations(), 0u);
}

}  // namespace
}  // namespace jft::pjrt
