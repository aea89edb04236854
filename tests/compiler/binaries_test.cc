// compile() with a kernel compiler: the fake worker (tests/kernel_compiler) answers
// with the TTIR's pointer parameters plus Triton's two scratch pointers, so
// the Program's kernel images, launches and cache facts can be checked
// without triton.
#include <gtest/gtest.h>

#ifdef JFT_FAKE_WORKER

#include <filesystem>

#include "compiler/compiler.h"
#include "compiler/program_checks.h"
#include "compiler/zoo_fixture.h"
#include "kernel_compiler/fake_compiler_fixture.h"
#include "kernel_compiler/kernel_compiler.h"
#include "runtime/program_check.h"

namespace jft::compiler {
namespace {

using Param = runtime::KernelImage::Param;

using Binaries =
    kernel_compiler::testing::FakeCompilerFixture<::testing::TestWithParam<std::string>>;

TEST_P(Binaries, KernelImagesCarryTheWorkersParameterList) {
  std::string bytes = testing::zooArtifact(GetParam());
  Options options;
  StatusOr<Executable> offline = compile(bytes, options, nullptr);
  ASSERT_TRUE(offline.isOk()) << offline.status().toString();
  StatusOr<Executable> built = compile(bytes, options, compiler_.get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const runtime::Program& p = built->program;

  size_t ttir = 0;
  for (const RouteEntry& e : built->report.entries) {
    if (e.route != "ttir") continue;
    ++ttir;
    EXPECT_TRUE(e.compiled);
    EXPECT_FALSE(e.cache_hit) << e.name;
  }
  ASSERT_EQ(p.kernels.size(), ttir);
  testing::expectConsistentProgram(p, true);
  // The runtime's own load-time validation accepts it.
  Status loadable = runtime::checkProgram(p, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();
  for (const runtime::Thunk& t : p.thunks) {
    const auto* launch = std::get_if<runtime::LaunchThunk>(&t);
    if (launch == nullptr) continue;
    const runtime::KernelImage& k = p.kernels[static_cast<size_t>(launch->kernel)];
    std::vector<Param> expected(launch->buffers.size(), Param::kBuffer);
    expected.push_back(Param::kGlobalScratch);
    expected.push_back(Param::kProfileScratch);
    EXPECT_EQ(k.params, expected) << k.name;
    EXPECT_EQ(k.binary.rfind("FAKE pid=", 0), 0u);
  }
  // The same thunks and buffers as offline; only the binaries are new.
  EXPECT_EQ(p.thunks.size(), offline->program.thunks.size());
  EXPECT_EQ(p.temp_bytes, offline->program.temp_bytes);
  // Who compiled the kernels is part of the fingerprint.
  EXPECT_NE(built->fingerprint, offline->fingerprint);

  StatusOr<Executable> again = compile(bytes, options, compiler_.get());
  ASSERT_TRUE(again.isOk()) << again.status().toString();
  for (const RouteEntry& e : again->report.entries)
    if (e.route == "ttir") {
      EXPECT_TRUE(e.cache_hit) << e.name;
    }
  EXPECT_EQ(again->fingerprint, built->fingerprint);
}

INSTANTIATE_TEST_SUITE_P(Zoo, Binaries,
                         ::testing::Values("smoke", "softmax", "layernorm",
                                           "mixed_dtypes"));

}  // namespace
}  // namespace jft::compiler

#endif  // JFT_FAKE_WORKER
