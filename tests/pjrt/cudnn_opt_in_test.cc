// Which compiles get the convolution library (pjrt/device_conv_library.h):
// cuDNN by default, JFT_CUDNN=0 keeps it away.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pjrt/device_conv_library.h"

namespace jft::pjrt {
namespace {

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

TEST(CudnnOptIn, AskedForByDefault) {
  CudnnSetting unset(nullptr);
  EXPECT_TRUE(cudnnWanted());
}

TEST(CudnnOptIn, OneAsksForIt) {
  CudnnSetting on("1");
  EXPECT_TRUE(cudnnWanted());
}

TEST(CudnnOptIn, ZeroKeepsItAway) {
  CudnnSetting off("0");
  EXPECT_FALSE(cudnnWanted());
}

}  // namespace
}  // namespace jft::pjrt
