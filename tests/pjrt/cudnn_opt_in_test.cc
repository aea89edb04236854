// Which compiles get the convolution library (pjrt/device_conv_library.h):
// cuDNN by default, JFT_CUDNN=0 keeps it away.
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

TEST(CudnnOptIn, EveryRouteAsksForItByDefault) {
  CudnnSetting unset(nullptr);
  for (ConvRoute route :
       {ConvRoute::kAuto, ConvRoute::kLibrary, ConvRoute::kTtir, ConvRoute::kCudnn})
    EXPECT_TRUE(cudnnWanted(route));
}

TEST(CudnnOptIn, OneStillLetsEveryRouteUseIt) {
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
