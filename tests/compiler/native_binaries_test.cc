// The native route's binaries: each native kernel becomes a KernelImage
// built by the NativeCompiler (a fake one here, no NVRTC) and cached by
// content; without a native compiler the compile fails naming the kernel;
// XLA_MODE=back_fail moves a TTIR kernel that fails (fault injection:
// Options::fail_kernels, XLA_FLAGTREE_FAIL_KERNELS) to the native route. The
// TTIR side is the fake compile worker of tests/kernel_compiler.
#include <gtest/gtest.h>

#ifdef JFT_FAKE_WORKER

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "compiler/native_compiler.h"
#include "compiler/native_route_programs.h"
#include "compiler/program_checks.h"
#include "compiler/zoo_fixture.h"
#include "kernel_compiler/fake_worker_command.h"
#include "kernel_compiler/kernel_compiler.h"
#include "runtime/program_check.h"

namespace jft::compiler {
namespace {

namespace fs = std::filesystem;
using runtime::KernelImage;
using testing::compileText;
using testing::entryOf;

// Answers like NVRTC would, counting compiles; `identity_error` stands for a
// libnvrtc that cannot be loaded.
class FakeNativeCompiler final : public NativeCompiler {
 public:
  StatusOr<std::string> identity() override {
    if (!identity_error.isOk()) return identity_error;
    return std::string("fake-nvrtc 1.0 sm_90");
  }
  StatusOr<std::string> compile(const std::string& source,
                                const std::string& name) override {
    ++compiles;
    if (source.find(name) == std::string::npos)
      return internalError("the source does not define " + name);
    return "FAKE-CUBIN " + name;
  }

  std::atomic<int> compiles{0};
  Status identity_error;
};

class NativeBinaries : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("jft_native_binaries_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    compiler_ = makeKernelCompiler();
  }
  void TearDown() override {
    compiler_.reset();
    fs::remove_all(dir_);
  }

  // A fresh kernel compiler over the same cache; the fake worker logs each
  // kernel it compiles to worker.log.
  std::unique_ptr<kernel_compiler::KernelCompiler> makeKernelCompiler() {
    kernel_compiler::KernelCompilerOptions options;
    options.pool = kernel_compiler::testing::fakePoolOptions(
        1, (dir_ / "failures").string(), "", (dir_ / "worker.log").string());
    options.cache_dir = (dir_ / "cache").string();
    auto made = kernel_compiler::KernelCompiler::create(std::move(options));
    EXPECT_TRUE(made.isOk()) << made.status().toString();
    return made.isOk() ? std::move(made).value() : nullptr;
  }

  std::string workerLog() const {
    std::ifstream in(dir_ / "worker.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
  std::unique_ptr<kernel_compiler::KernelCompiler> compiler_;
  FakeNativeCompiler native_;
};

// The launch of kernel `name` in the top-level thunks, or null.
const runtime::LaunchThunk* launchOf(const runtime::Program& p, const std::string& name) {
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* launch = std::get_if<runtime::LaunchThunk>(&t))
      if (p.kernels.at(static_cast<size_t>(launch->kernel)).name == name) return launch;
  return nullptr;
}

TEST_F(NativeBinaries, EachNativeKernelIsAKernelImageOfTheNativeContract) {
  ASSERT_NE(compiler_, nullptr);
  Options options;  // back_unsupported
  options.native_compiler = &native_;
  StatusOr<Executable> built =
      compileText(testing::kComplexPairSum, options, compiler_.get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const runtime::Program& p = built->program;
  const RouteEntry* reduce = entryOf(*built, "reduce");
  ASSERT_NE(reduce, nullptr);
  ASSERT_EQ(reduce->route, "native");
  EXPECT_TRUE(reduce->compiled);
  EXPECT_FALSE(reduce->cache_hit);

  const runtime::LaunchThunk* launch = launchOf(p, reduce->name);
  ASSERT_NE(launch, nullptr) << reduce->name;
  const KernelImage& image = p.kernels.at(static_cast<size_t>(launch->kernel));
  EXPECT_EQ(image.binary, "FAKE-CUBIN " + reduce->name);
  // x, y and the zero (inputs), then both sums (outputs): buffers only.
  EXPECT_EQ(image.params,
            std::vector<KernelImage::Param>(5, KernelImage::Param::kBuffer));
  EXPECT_EQ(launch->buffers.size(), 5u);
  EXPECT_EQ(image.shared_mem, 0u);
  EXPECT_EQ(image.global_scratch_size, 0u);
  EXPECT_GE(image.num_warps, 1);
  // One block per kept row (two rows).
  EXPECT_EQ(launch->grid, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(native_.compiles.load(), 1);

  // The sine is still a TTIR kernel from the worker.
  const RouteEntry* sine = entryOf(*built, "sine");
  ASSERT_NE(sine, nullptr);
  const runtime::LaunchThunk* sine_launch = launchOf(p, sine->name);
  ASSERT_NE(sine_launch, nullptr);
  EXPECT_EQ(
      p.kernels.at(static_cast<size_t>(sine_launch->kernel)).binary.rfind("FAKE pid=", 0),
      0u);
  testing::expectConsistentProgram(p, true);
  Status loadable = runtime::checkProgram(p, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();
}

TEST_F(NativeBinaries, CubinsAreCachedByContent) {
  ASSERT_NE(compiler_, nullptr);
  Options options;
  options.native_compiler = &native_;
  ASSERT_TRUE(compileText(testing::kComplexPairSum, options, compiler_.get()).isOk());
  ASSERT_EQ(native_.compiles.load(), 1);
  compiler_ = makeKernelCompiler();
  StatusOr<Executable> again =
      compileText(testing::kComplexPairSum, options, compiler_.get());
  ASSERT_TRUE(again.isOk()) << again.status().toString();
  EXPECT_EQ(native_.compiles.load(), 1);  // served from the cache
  const RouteEntry* reduce = entryOf(*again, "reduce");
  ASSERT_NE(reduce, nullptr);
  EXPECT_TRUE(reduce->cache_hit);
  const runtime::LaunchThunk* launch = launchOf(again->program, reduce->name);
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(again->program.kernels.at(static_cast<size_t>(launch->kernel)).binary,
            "FAKE-CUBIN " + reduce->name);
}

TEST_F(NativeBinaries, NativeModeBuildsEveryKernelNatively) {
  ASSERT_NE(compiler_, nullptr);
  Options options;
  options.mode = Mode::kNative;
  options.native_compiler = &native_;
  StatusOr<Executable> built =
      compileText(testing::kSineAndExp, options, compiler_.get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  ASSERT_EQ(built->program.kernels.size(), 2u);
  for (const KernelImage& image : built->program.kernels) {
    EXPECT_EQ(image.binary, "FAKE-CUBIN " + image.name);
    EXPECT_EQ(image.params.size(), 2u) << image.name;  // one input, one output
  }
  EXPECT_EQ(workerLog(), "");  // nothing was sent to the TTIR compiler
}

TEST_F(NativeBinaries, WithoutANativeCompilerTheErrorNamesTheKernelAndNvrtc) {
  ASSERT_NE(compiler_, nullptr);
  Options options;  // no native compiler
  StatusOr<Executable> built =
      compileText(testing::kComplexPairSum, options, compiler_.get());
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kUnavailable);
  const std::string& m = built.status().message();
  EXPECT_NE(m.find("fusion_"), std::string::npos) << m;
  EXPECT_NE(m.find("_reduction_reduce"), std::string::npos) << m;
  EXPECT_NE(m.find("libnvrtc"), std::string::npos) << m;
  // Offline (no kernel compiler) nothing is built: the program is planned.
  EXPECT_TRUE(compileText(testing::kComplexPairSum, options).isOk());
}

TEST_F(NativeBinaries, AnNvrtcThatCannotBeLoadedIsUnavailable) {
  ASSERT_NE(compiler_, nullptr);
  native_.identity_error = unavailable("cannot load NVRTC (tried libnvrtc.so.13)");
  Options options;
  options.native_compiler = &native_;
  StatusOr<Executable> built =
      compileText(testing::kComplexPairSum, options, compiler_.get());
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kUnavailable);
  const std::string& m = built.status().message();
  EXPECT_NE(m.find("NVRTC, which could not be loaded"), std::string::npos) << m;
  EXPECT_NE(m.find("libnvrtc.so.13"), std::string::npos) << m;
  EXPECT_EQ(native_.compiles.load(), 0);
}

TEST_F(NativeBinaries, BackFailMovesOnlyTheKernelThatFailed) {
  ASSERT_NE(compiler_, nullptr);
  Options options;
  options.mode = Mode::kBackFail;
  options.native_compiler = &native_;
  options.fail_kernels = {"sine"};
  options.log = true;
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  StatusOr<Executable> built =
      compileText(testing::kSineAndExp, options, compiler_.get());
  std::cerr.rdbuf(saved);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* sine = entryOf(*built, "sine");
  const RouteEntry* exp = entryOf(*built, "exponential");
  ASSERT_NE(sine, nullptr);
  ASSERT_NE(exp, nullptr);
  EXPECT_EQ(sine->route, "native");
  EXPECT_EQ(exp->route, "ttir");
  EXPECT_NE(sine->native_reason.find("the TTIR kernel failed to compile"),
            std::string::npos)
      << sine->native_reason;
  EXPECT_NE(captured.str().find("XLA_FLAGTREE_FAIL_KERNELS"), std::string::npos)
      << captured.str();

  const runtime::Program& p = built->program;
  ASSERT_EQ(p.kernels.size(), 2u);
  const runtime::LaunchThunk* sine_launch = launchOf(p, sine->name);
  const runtime::LaunchThunk* exp_launch = launchOf(p, exp->name);
  ASSERT_NE(sine_launch, nullptr);
  ASSERT_NE(exp_launch, nullptr);
  EXPECT_EQ(p.kernels.at(static_cast<size_t>(sine_launch->kernel)).binary,
            "FAKE-CUBIN " + sine->name);
  EXPECT_EQ(
      p.kernels.at(static_cast<size_t>(exp_launch->kernel)).binary.rfind("FAKE pid=", 0),
      0u);
  // The failure was injected: the worker never saw the sine's kernel.
  const std::string log = workerLog();
  EXPECT_EQ(log.find(sine->name), std::string::npos) << log;
  EXPECT_NE(log.find(exp->name), std::string::npos) << log;
  testing::expectConsistentProgram(p, true);
  Status loadable = runtime::checkProgram(p, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();
}

TEST_F(NativeBinaries, OtherModesFailTheCompileOnAKernelThatFailed) {
  ASSERT_NE(compiler_, nullptr);
  Options options;  // back_unsupported
  options.native_compiler = &native_;
  options.fail_kernels = {"sine"};
  StatusOr<Executable> built =
      compileText(testing::kSineAndExp, options, compiler_.get());
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kInternal);
  const std::string& m = built.status().message();
  EXPECT_EQ(m.rfind("kernel compilation failed:", 0), 0u) << m;
  EXPECT_NE(m.find("_loop_sine: INTERNAL: compile failure injected"), std::string::npos)
      << m;
  EXPECT_EQ(m.find("_exponential"), std::string::npos) << m;
}

TEST_F(NativeBinaries, BackFailKeepsTheFailureOfAGroupTheEmitterRefuses) {
  ASSERT_NE(compiler_, nullptr);
  Options options;
  options.mode = Mode::kBackFail;
  options.native_compiler = &native_;
  options.fail_kernels = {"sort"};
  StatusOr<Executable> built =
      compileText(testing::kLongSortRows, options, compiler_.get());
  ASSERT_FALSE(built.isOk());
  const std::string& m = built.status().message();
  EXPECT_NE(m.find("compile failure injected"), std::string::npos) << m;
  EXPECT_NE(m.find("the native route cannot run it either"), std::string::npos) << m;
  EXPECT_NE(m.find("stablehlo.sort: rows of 20000 elements"), std::string::npos) << m;
}

// A small bf16 product with a bias: the cost model puts it on the TTIR matmul
// family, whose kernels the native emitter does not take.
constexpr const char* kSmallProductWithBias = R"(
func.func @main(%x: tensor<32x64xbf16>, %w: tensor<64x16xbf16>, %b: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %d = stablehlo.dot_general %x, %w {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<32x64xbf16>, tensor<64x16xbf16>) -> tensor<32x16xf32>
  %s = stablehlo.add %d, %b : tensor<32x16xf32>
  return %s : tensor<32x16xf32>
})";

TEST_F(NativeBinaries, BackFailPlansAFailedProductOnTheLibrary) {
  ASSERT_NE(compiler_, nullptr);
  Options options;
  options.native_compiler = &native_;
  StatusOr<Executable> planned =
      compileText(kSmallProductWithBias, options, compiler_.get());
  ASSERT_TRUE(planned.isOk()) << planned.status().toString();
  const RouteEntry* fused = entryOf(*planned, "dot_general");
  ASSERT_NE(fused, nullptr);
  ASSERT_EQ(fused->route, "ttir") << planned->report.text();

  options.mode = Mode::kBackFail;
  options.fail_kernels = {"matmul"};
  StatusOr<Executable> built =
      compileText(kSmallProductWithBias, options, compiler_.get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* product = entryOf(*built, "dot_general");
  const RouteEntry* add = entryOf(*built, "add");
  ASSERT_NE(product, nullptr) << built->report.text();
  ASSERT_NE(add, nullptr) << built->report.text();
  EXPECT_EQ(product->route, "library") << built->report.text();
  EXPECT_NE(add->route, "library") << built->report.text();
  testing::expectConsistentProgram(built->program, true);
  Status loadable = runtime::checkProgram(built->program, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();

  // Other modes keep the failure.
  options.mode = Mode::kBackUnsupported;
  StatusOr<Executable> refused =
      compileText(kSmallProductWithBias, options, compiler_.get());
  ASSERT_FALSE(refused.isOk());
  EXPECT_NE(refused.status().message().find("compile failure injected"),
            std::string::npos)
      << refused.status().message();
}

// The zoo's linalg program: cuSOLVER and cuBLAS calls on column-major copies,
// made and read back by the library's operand kernels (transposes, on the
// TTIR route).
std::string linalgArtifact() {
  return testing::zooArtifact("linalg");
}

TEST_F(NativeBinaries, BackFailMovesFailedLibraryOperandKernelsToNative) {
  ASSERT_NE(compiler_, nullptr);
  Options options;
  options.native_compiler = &native_;
  StatusOr<Executable> planned = compile(linalgArtifact(), options, compiler_.get());
  ASSERT_TRUE(planned.isOk()) << planned.status().toString();
  ASSERT_FALSE(planned->program.kernels.empty()) << planned->report.text();

  options.mode = Mode::kBackFail;
  options.fail_kernels = {"fusion_"};  // every TTIR kernel fails
  StatusOr<Executable> built = compile(linalgArtifact(), options, compiler_.get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  ASSERT_FALSE(built->program.kernels.empty());
  for (const runtime::KernelImage& k : built->program.kernels)
    EXPECT_EQ(k.binary.rfind("FAKE-CUBIN ", 0), 0u) << k.name << ": " << k.binary;
  testing::expectConsistentProgram(built->program, true);
  Status loadable = runtime::checkProgram(built->program, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();
}

}  // namespace
}  // namespace jft::compiler

#endif  // JFT_FAKE_WORKER
