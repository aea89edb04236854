// The native route end to end on a GPU: programs compiled under
// XLA_MODE=native, their CUDA C built by the device's NVRTC through PJRT's
// DeviceNativeCompiler, loaded by runtime::Executable and run against host
// results. No TTIR is compiled (no worker starts). Skips, saying why,
// without a GPU or libnvrtc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <filesystem>
#include <random>

#include "compiler/compiler.h"
#include "ir/parser.h"
#include "kernel_compiler/kernel_compiler.h"
#include "pjrt/device_native_compiler.h"
#include "runtime/executable.h"
#include "runtime/gpu/cuda_platform.h"
#include "runtime/gpu/nvrtc.h"

namespace jft::compiler {
namespace {

namespace fs = std::filesystem;

// Sines of a 4x300 matrix and the sums of their squares over each row.
constexpr const char* kSineRows = R"(
func.func @main(%x: tensor<4x300xf32>) -> (tensor<4x300xf32>, tensor<4xf32>) {
  %s = stablehlo.sine %x : tensor<4x300xf32>
  %q = stablehlo.multiply %s, %s : tensor<4x300xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce %q, %z {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<f32>, %o: tensor<f32>):
    %a = stablehlo.add %p, %o : tensor<f32>
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4x300xf32>, tensor<f32>) -> tensor<4xf32>
  return %s, %r : tensor<4x300xf32>, tensor<4xf32>
})";

// Row sums of one complex matrix and row products of another, in one reduce
// (the reduce TTIR refuses).
constexpr const char* kComplexPairSum = R"(
func.func @main(%x: tensor<2x3xcomplex<f32>>, %y: tensor<2x3xcomplex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) {
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %one = stablehlo.constant dense<(1.0, 0.0)> : tensor<complex<f32>>
  %s, %t = stablehlo.reduce %x, %y, %z, %one {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<complex<f32>>, %q: tensor<complex<f32>>, %r: tensor<complex<f32>>, %u: tensor<complex<f32>>):
    %a = stablehlo.add %p, %r : tensor<complex<f32>>
    %b = stablehlo.multiply %q, %u : tensor<complex<f32>>
    stablehlo.return %a, %b : tensor<complex<f32>>, tensor<complex<f32>>
  }) : (tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<complex<f32>>, tensor<complex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>)
  return %s, %t : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
})";

class NativeRouteGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    auto platform = runtime::gpu::openCudaPlatform({});
    if (!platform.isOk())
      GTEST_SKIP() << "no usable GPU: " << platform.status().toString();
    if (auto nvrtc = runtime::gpu::Nvrtc::load(); !nvrtc.isOk())
      GTEST_SKIP() << "no libnvrtc: " << nvrtc.status().toString();
    platform_ = std::move(platform).value();
    device_ = &platform_->device(0);
    native_ = std::make_unique<pjrt::DeviceNativeCompiler>(*device_);
    dir_ = fs::temp_directory_path() / ("jft_native_gpu_" + std::to_string(::getpid()));
    kernel_compiler::KernelCompilerOptions options;
    options.cache_dir = (dir_ / "cache").string();
    options.pool.command.argv = {"false"};  // never started: no TTIR kernels
    auto made = kernel_compiler::KernelCompiler::create(std::move(options));
    ASSERT_TRUE(made.isOk()) << made.status().toString();
    kernels_ = std::move(made).value();
  }
  void TearDown() override {
    kernels_.reset();
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  StatusOr<Executable> compileText(const std::string& text) {
    StatusOr<ir::Module> module = ir::parseModule(text);
    if (!module.isOk()) return module.status();
    module->name = "jit_native_gpu";
    Options options;
    options.mode = Mode::kNative;
    const runtime::DeviceInfo& info = device_->info();
    options.target.arch = std::to_string(info.compute_major * 10 + info.compute_minor);
    options.target.warp_size = info.warp_size;
    options.native_compiler = native_.get();
    return compileModule(std::move(module).value(), options, kernels_.get());
  }

  uint64_t upload(const void* data, uint64_t bytes) {
    uint64_t address = *device_->allocate(bytes);
    EXPECT_TRUE(
        device_->copyToDevice(address, data, bytes, true).value()->await().isOk());
    return address;
  }

  template <typename T>
  std::vector<T> download(uint64_t address, size_t count) {
    std::vector<T> out(count);
    auto copied = device_->copyToHost(out.data(), address, count * sizeof(T));
    EXPECT_TRUE(copied.isOk() && (*copied)->await().isOk());
    return out;
  }

  // Runs `executable` on `inputs` (host bytes); the outputs' addresses.
  std::vector<runtime::ExecuteOutput> run(const Executable& executable,
                                          const std::vector<std::string>& inputs) {
    auto loaded = runtime::Executable::load(*device_, executable.program);
    EXPECT_TRUE(loaded.isOk()) << loaded.status().toString();
    if (!loaded.isOk()) return {};
    std::vector<runtime::ExecuteArgument> arguments;
    for (const std::string& bytes : inputs)
      arguments.push_back({upload(bytes.data(), bytes.size()), bytes.size(), false});
    auto result = (*loaded)->execute(arguments);
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    if (!result.isOk()) return {};
    EXPECT_TRUE(result->done->await().isOk()) << result->done->status().toString();
    for (const runtime::ExecuteArgument& a : arguments)
      device_->deallocate(a.address, a.bytes);
    loaded_.push_back(std::move(loaded).value());
    return result->outputs;
  }

  template <typename T>
  static std::string bytesOf(const std::vector<T>& values) {
    return std::string(reinterpret_cast<const char*>(values.data()),
                       values.size() * sizeof(T));
  }

  std::unique_ptr<runtime::Platform> platform_;
  runtime::Device* device_ = nullptr;
  std::unique_ptr<pjrt::DeviceNativeCompiler> native_;
  fs::path dir_;
  std::unique_ptr<kernel_compiler::KernelCompiler> kernels_;
  std::vector<std::unique_ptr<runtime::Executable>> loaded_;
};

TEST_F(NativeRouteGpu, SineAndRowSumsMatchTheHost) {
  StatusOr<Executable> built = compileText(kSineRows);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  for (const RouteEntry& e : built->report.entries) EXPECT_NE(e.route, "ttir") << e.name;
  ASSERT_FALSE(built->program.kernels.empty());
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-4, 4);
  std::vector<float> x(4 * 300);
  for (float& v : x) v = u(rng);
  std::vector<runtime::ExecuteOutput> out = run(*built, {bytesOf(x)});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<float> s = download<float>(out[0].address, x.size());
  const std::vector<float> r = download<float>(out[1].address, 4);
  for (size_t i = 0; i < x.size(); ++i)
    ASSERT_NEAR(s[i], std::sin(static_cast<double>(x[i])), 2e-6) << i;
  for (size_t row = 0; row < 4; ++row) {
    double want = 0;
    for (size_t k = 0; k < 300; ++k)
      want += std::pow(std::sin(double{x[row * 300 + k]}), 2);
    EXPECT_NEAR(r[row], want, 1e-4 * want) << row;
  }
  for (const runtime::ExecuteOutput& o : out) device_->deallocate(o.address, o.bytes);
}

TEST_F(NativeRouteGpu, ComplexPairSumMatchesTheHost) {
  StatusOr<Executable> built = compileText(kComplexPairSum);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  using C = std::complex<float>;
  const std::vector<C> x{{1, 1}, {2, -1}, {3, 5}, {-1, 0}, {0, -2}, {4, 4}};
  const std::vector<C> y{{1, 1}, {0, 1}, {2, 0}, {1, -1}, {0.5f, 0}, {1, 2}};
  std::vector<runtime::ExecuteOutput> out = run(*built, {bytesOf(x), bytesOf(y)});
  ASSERT_EQ(out.size(), 2u);
  const std::vector<C> sums = download<C>(out[0].address, 2);
  const std::vector<C> products = download<C>(out[1].address, 2);
  EXPECT_EQ(sums, (std::vector<C>{{6, 5}, {3, 2}}));
  // (1+i) i 2 and (1-i) 0.5 (1+2i), exact in f32 in any order.
  EXPECT_EQ(products, (std::vector<C>{{-2, 2}, {1.5f, 0.5f}}));
  for (const runtime::ExecuteOutput& o : out) device_->deallocate(o.address, o.bytes);
}

TEST_F(NativeRouteGpu, CubinsComeFromTheCacheTheSecondTime) {
  StatusOr<Executable> first = compileText(kSineRows);
  ASSERT_TRUE(first.isOk()) << first.status().toString();
  StatusOr<Executable> second = compileText(kSineRows);
  ASSERT_TRUE(second.isOk()) << second.status().toString();
  for (const RouteEntry& e : second->report.entries) {
    if (e.route == "native") {
      EXPECT_TRUE(e.cache_hit) << e.name;
    }
  }
  EXPECT_EQ(first->program.kernels.size(), second->program.kernels.size());
}

}  // namespace
}  // namespace jft::compiler
