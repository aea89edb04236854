// The NVRTC binding (runtime/gpu/nvrtc.h) on the native emitter's kernels.
// Compiles need libnvrtc (the CUDA toolkit or the nvidia-cuda-nvrtc wheel);
// without it those tests skip, saying so, and the loader's error is checked.
#include <gtest/gtest.h>

#include <cstdlib>

#include "native_test_util.h"
#include "runtime/gpu/nvrtc.h"

namespace jft::codegen::native::testing {
namespace {

using runtime::gpu::Nvrtc;

#define JFT_REQUIRE_NVRTC()                                               \
  do {                                                                    \
    StatusOr<const Nvrtc*> nvrtc = Nvrtc::load();                         \
    if (!nvrtc.isOk())                                                    \
      GTEST_SKIP() << "libnvrtc is absent: " << nvrtc.status().message(); \
  } while (false)

TEST(NativeNvrtc, LoadsOrSaysWhereItLooked) {
  StatusOr<const Nvrtc*> nvrtc = Nvrtc::load();
  if (nvrtc.isOk()) {
    StatusOr<runtime::gpu::NvrtcVersion> version = runtime::gpu::nvrtcVersion();
    ASSERT_TRUE(version.isOk()) << version.status().toString();
    EXPECT_GE(version->major, 11);
    return;
  }
  EXPECT_EQ(nvrtc.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(nvrtc.status().message().find("JFT_NVRTC_LIBRARY"), std::string::npos);
  EXPECT_NE(nvrtc.status().message().find("libnvrtc.so.13"), std::string::npos);
  EXPECT_NE(nvrtc.status().message().find("libnvrtc.so.12"), std::string::npos);
}

TEST(NativeNvrtc, ADirectoryFromTheEnvironmentComesFirst) {
  setenv("JFT_NVRTC_DIR", "/opt/wheel/nvidia/cuda_nvrtc/lib", 1);
  const std::vector<std::string> names = Nvrtc::candidates();
  unsetenv("JFT_NVRTC_DIR");
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(names[0], "/opt/wheel/nvidia/cuda_nvrtc/lib/libnvrtc.so.13");
  EXPECT_EQ(names[1], "/opt/wheel/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
  EXPECT_EQ(Nvrtc::candidates().front(), "libnvrtc.so.13");
}

TEST(NativeNvrtc, EmittedKernelsCompileToCubins) {
  JFT_REQUIRE_NVRTC();
  const std::vector<std::pair<std::string, fusion::Family>> cases{
      {R"(
func.func @main(%a: tensor<4x8xbf16>, %b: tensor<8xbf16>) -> tensor<8x4xbf16> {
  %t = stablehlo.transpose %a {permutation = array<i64: 1, 0>} : (tensor<4x8xbf16>) -> tensor<8x4xbf16>
  %bb = stablehlo.broadcast_in_dim %b {broadcast_dimensions = array<i64: 0>} : (tensor<8xbf16>) -> tensor<8x4xbf16>
  %e = stablehlo.exponential %t : tensor<8x4xbf16>
  %r = stablehlo.maximum %e, %bb : tensor<8x4xbf16>
  return %r : tensor<8x4xbf16>
})",
       fusion::Family::kLoop},
      {R"(
func.func @main(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi1>) {
  %d = stablehlo.divide %a, %b : tensor<4xi64>
  %s = stablehlo.shift_right_arithmetic %d, %b : tensor<4xi64>
  %p = stablehlo.popcnt %s : tensor<4xi64>
  %c = stablehlo.compare %p, %a {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi1>
  return %p, %c : tensor<4xi64>, tensor<4xi1>
})",
       fusion::Family::kLoop},
      {R"(
func.func @main(%x: tensor<16x1000xf32>) -> tensor<16xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce %x, %z {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %t = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<16x1000xf32>, tensor<f32>) -> tensor<16xf32>
  return %s : tensor<16xf32>
})",
       fusion::Family::kReduction},
      {R"(
func.func @main(%a: tensor<4xcomplex<f64>>, %h: tensor<4xf16>, %u: tensor<4xui16>) -> (tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>, tensor<4xi1>) {
  %m = stablehlo.multiply %a, %a : tensor<4xcomplex<f64>>
  %r = stablehlo.abs %m : (tensor<4xcomplex<f64>>) -> tensor<4xf64>
  %c = stablehlo.convert %r : (tensor<4xf64>) -> tensor<4xbf16>
  %t = stablehlo.tanh %h : tensor<4xf16>
  %p = stablehlo.power %t, %h : tensor<4xf16>
  %v = stablehlo.convert %u : (tensor<4xui16>) -> tensor<4xf16>
  %s = stablehlo.add %p, %v : tensor<4xf16>
  %f = stablehlo.is_finite %s : (tensor<4xf16>) -> tensor<4xi1>
  return %r, %c, %s, %f : tensor<4xf64>, tensor<4xbf16>, tensor<4xf16>, tensor<4xi1>
})",
       fusion::Family::kLoop}};
  for (const auto& [text, family] : cases) {
    const NativeKernel kernel = emitWhole(parseIr(text), family);
    ASSERT_FALSE(kernel.source.empty());
    StatusOr<std::string> cubin =
        runtime::gpu::compileToCubin(kernel.source, kernel.name, 90);
    ASSERT_TRUE(cubin.isOk()) << cubin.status().toString();
    ASSERT_GE(cubin->size(), 4u);
    EXPECT_EQ(cubin->substr(0, 4), std::string("\x7f"
                                               "ELF"));
  }
}

TEST(NativeNvrtc, ACompileErrorCarriesTheLog) {
  JFT_REQUIRE_NVRTC();
  StatusOr<std::string> cubin = runtime::gpu::compileToCubin(
      "extern \"C\" __global__ void broken(float* x) { x[0] = undeclared; }", "broken",
      90);
  ASSERT_FALSE(cubin.isOk());
  EXPECT_EQ(cubin.status().code(), StatusCode::kInternal);
  EXPECT_NE(cubin.status().message().find("undeclared"), std::string::npos)
      << cubin.status().message();
}

}  // namespace
}  // namespace jft::codegen::native::testing

#undef JFT_REQUIRE_NVRTC
