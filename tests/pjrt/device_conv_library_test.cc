// The compiler's convolution library over the devices a program runs on
// (pjrt/device_conv_library.h): each device keeps its own plan, so every one
// must take the convolution, and the first refusal is the answer.
#include "pjrt/device_conv_library.h"

#include <gtest/gtest.h>

#include "executable_fakes.h"

namespace jft::pjrt {
namespace {

using testing::HostDevice;

TEST(DeviceConvLibrary, EveryParticipantDeviceMustTakeTheConvolution) {
  HostDevice first(0), second(1);
  first.libraryAnswer = Status::ok();
  second.libraryAnswer = unimplemented("no engine for this convolution");
  DeviceConvLibrary library({&first, &second});
  const runtime::ConvDesc desc;

  Status refused = library.check(desc);
  EXPECT_EQ(refused.code(), StatusCode::kUnimplemented);
  EXPECT_NE(refused.message().find("no engine"), std::string::npos) << refused.message();
  EXPECT_EQ(first.libraryChecks, 1);
  EXPECT_EQ(second.libraryChecks, 1);

  second.libraryAnswer = Status::ok();
  EXPECT_TRUE(library.check(desc).isOk());
  EXPECT_EQ(first.libraryChecks, 2);
  EXPECT_EQ(second.libraryChecks, 2);

  first.libraryAnswer = unavailable("cuDNN cannot be loaded");
  EXPECT_EQ(library.check(desc).code(), StatusCode::kUnavailable);
  EXPECT_EQ(second.libraryChecks, 2);  // the first refusal is the answer
}

}  // namespace
}  // namespace jft::pjrt
