// The client's platform version as JAX reads it: JAX's GPU tests take its last
// word as the CUDA version number (`int(version.split()[-1]) >= 12000`), as
// upstream's "cuda 12080" allows; ours also says which client it is.
#include <gtest/gtest.h>

#include <string>

#include "runtime/gpu/cuda_platform.h"

namespace jft::runtime::gpu {
namespace {

std::string lastWord(const std::string& text) {
  return text.substr(text.rfind(' ') + 1);
}

TEST(CudaPlatformVersion, EndsInTheIntegerVersionJaxParses) {
  const std::string version = cudaPlatformVersion(13000);
  EXPECT_EQ(lastWord(version), "13000");
  EXPECT_EQ(std::stoi(lastWord(version)), 13000);
  EXPECT_EQ(version.rfind("cuda ", 0), 0u) << version;  // JAX tests `"cuda" in version`
  EXPECT_NE(version.find("driver API"), std::string::npos) << version;
}

TEST(CudaPlatformVersion, NamesMajorAndMinor) {
  EXPECT_EQ(cudaPlatformVersion(12080).rfind("cuda 12.8 ", 0), 0u);
  EXPECT_EQ(lastWord(cudaPlatformVersion(12080)), "12080");
}

}  // namespace
}  // namespace jft::runtime::gpu
