// The device assignment encoding against bytes derived by hand from the
// protobuf wire format (tag = field << 3 | wire type; varints; packed int64).
#include "pjrt/executable.h"

#include <gtest/gtest.h>

#include "pjrt/entry_points.h"
#include "pjrt/error.h"

namespace jft::pjrt {
namespace {

TEST(DeviceAssignment, OneReplicaTwoPartitions) {
  auto bytes = serializeDeviceAssignment(1, 2, {0, 1});
  ASSERT_TRUE(bytes.isOk());
  const std::string expected("\x08\x01\x10\x02\x1a\x03\x0a\x01\x00\x1a\x03\x0a\x01\x01",
                             14);
  EXPECT_EQ(*bytes, expected);
}

TEST(DeviceAssignment, TwoReplicasOnePartitionWithLargeId) {
  // Device 300 is the varint ac 02.
  auto bytes = serializeDeviceAssignment(2, 1, {5, 300});
  ASSERT_TRUE(bytes.isOk());
  const std::string expected("\x08\x02\x10\x01\x1a\x05\x0a\x03\x05\xac\x02", 11);
  EXPECT_EQ(*bytes, expected);
}

TEST(DeviceAssignment, MismatchedCountIsInvalidArgument) {
  EXPECT_EQ(serializeDeviceAssignment(2, 2, {0, 1, 2}).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(DeviceAssignment, EntryPointHandsOutOwnedBytes) {
  PJRT_LoadedExecutable executable;
  executable.num_partitions = 2;
  executable.device_ids = {0, 1};
  PJRT_LoadedExecutable_GetDeviceAssignment_Args args{};
  args.struct_size = sizeof(args);
  args.executable = &executable;
  ASSERT_EQ(loadedExecutableGetDeviceAssignment(&args), nullptr);
  EXPECT_EQ(args.serialized_bytes_size, 14u);
  ASSERT_NE(args.serialized_device_assignment_deleter, nullptr);
  args.serialized_device_assignment_deleter(args.serialized_device_assignment);
  args.executable = nullptr;
  PJRT_Error* error = loadedExecutableGetDeviceAssignment(&args);
  EXPECT_EQ(toStatus(error).code(), StatusCode::kInvalidArgument);
  PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
  errorDestroy(&destroy);
}

}  // namespace
}  // namespace jft::pjrt
