// Which compiles get the convolution library (pjrt/device_conv_library.h):
// cuDNN is opt-in until its route has run on a device.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pjrt/device_conv_library.h"

namespace jft::pjrt {
namespace {

using fusion::ConvRoute;

class CudnnSetting {
 public:
  explicit CudnnSetting(const char* value) {
    if (value == nullptr)
      ::unsetenv("JFT_CUDNN");
    else
      ::setenv("JFT_CUDNN", value, 1);
  }
  ~CudnnSetting() { ::unsetenv("JFT_CUDNN"); }
};

TEST(CudnnOptIn, OnlyTheCudnnRouteAsksForItByDefault) {
  CudnnSetting unset(nullptr);
  EXPECT_TRUE(cudnnWanted(ConvRoute::kCudnn));
  for (ConvRoute route : {ConvRoute::kAuto, ConvRoute::kLibrary, ConvRoute::kTtir})
    EXPECT_FALSE(cudnnWanted(route));
}

TEST(CudnnOptIn, OneLetsEveryRouteUseIt) {
  CudnnSetting on("1");
  for (ConvRoute route :
       {ConvRoute::kAuto, ConvRoute::kLibrary, ConvRoute::kTtir, ConvRoute::kCudnn})
    EXPECT_TRUE(cudnnWanted(route));
}

TEST(CudnnOptIn, ZeroKeepsItAwayEvenFromTheCudnnRoute) {
  CudnnSetting off("0");
  for (ConvRoute route :
       {ConvRoute::kAuto, ConvRoute::kLibrary, ConvRoute::kTtir, ConvRoute::kCudnn})
    EXPECT_FALSE(cudnnWanted(route));
}

}  // namespace
}  // namespace jft::pjrt
