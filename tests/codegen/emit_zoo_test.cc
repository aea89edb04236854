// Every TTIR group the planner makes of the zoo programs, through emitKernel:
// the programs the loop and reduction families must cover emit every kernel,
// and every kernel emitted anywhere passes the syntax checker.
//
// With JFT_TTIR_DUMP_DIR set, each kernel is also written there as
// <program>__<kernel>.ttir, for compiling them with real Triton on a GPU
// machine (tests/codegen/compile_ttir.py).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "codegen/ttir/capability.h"
#include "codegen/ttir/kernel.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "passes/pipeline.h"
#include "ttir_syntax.h"

namespace jft::codegen::ttir::testing {
namespace {

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

ir::Module load(const std::string& name) {
  std::ifstream in(fixtureDir() + "/" + name + "/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << name;
  StatusOr<ir::Module> imported = frontend::importStableHlo(bytes.data(), bytes.size());
  EXPECT_TRUE(imported.isOk()) << imported.status().toString();
  if (!imported.isOk()) return {};
  ir::Module m = std::move(imported).value();
  StatusOr<passes::PipelineReport> report = passes::runPasses(m);
  EXPECT_TRUE(report.isOk()) << report.status().toString();
  return m;
}

struct Emitted {
  int kernels = 0;
  std::vector<std::string> failures;  // "fusion_name: status"
};

Emitted emitProgram(const std::string& program) {
  Emitted out;
  ir::Module m = load(program);
  const ir::Function* main = m.entry();
  if (!main) {
    ADD_FAILURE() << program << ": no entry";
    return out;
  }
  const fusion::Plan plan =
      fusion::planFusions(m, *main, ::jft::codegen::ttir::withTtir());
  const char* dump = std::getenv("JFT_TTIR_DUMP_DIR");
  for (const fusion::Fusion& f : plan.fusions) {
    if (f.route != fusion::Route::kTtir) continue;
    StatusOr<std::vector<TtirKernel>> made = emitKernels(m, *main, f);
    if (!made.isOk()) {
      out.failures.push_back(f.name + ": " + made.status().toString());
      continue;
    }
    for (const TtirKernel& k : *made) {
      ++out.kernels;
      const Status syntax = checkTtirSyntax(k.ttir);
      EXPECT_TRUE(syntax.isOk())
          << program << "/" << f.name << ": " << syntax.toString() << "\n"
          << k.ttir;
      EXPECT_GT(k.grid[0], 0u) << f.name;
      EXPECT_EQ(k.inputs, f.inputs);
      EXPECT_EQ(k.outputs, f.outputs);
      if (dump && *dump) {
        std::filesystem::create_directories(dump);
        std::ofstream(std::string(dump) + "/" + program + "__" + k.name + ".ttir")
            << k.ttir;
      }
    }
  }
  return out;
}

class ZooCovered : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooCovered, EveryTtirGroupEmits) {
  const Emitted e = emitProgram(GetParam());
  EXPECT_GT(e.kernels, 0);
  for (const std::string& failure : e.failures) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooCovered,
                         ::testing::Values("smoke", "mixed_dtypes", "shapes",
                                           "random_normal", "softmax", "layernorm", "mlp",
                                           "gather_scatter", "sort_topk"));

// The rest of the zoo: whatever emits must be well-formed; what does not
// must say UNIMPLEMENTED (never another error).
TEST(Zoo, EveryProgramEmitsWellFormedKernelsOrSaysUnimplemented) {
  for (const auto& entry : std::filesystem::directory_iterator(fixtureDir())) {
    if (!std::filesystem::exists(entry.path() / "program.mlirbc")) continue;
    const std::string name = entry.path().filename().string();
    const Emitted e = emitProgram(name);
    for (const std::string& failure : e.failures)
      EXPECT_NE(failure.find("UNIMPLEMENTED"), std::string::npos)
          << name << ": " << failure;
    std::printf("%-24s %d kernels, %zu unimplemented\n", name.c_str(), e.kernels,
                e.failures.size());
    for (const std::string& failure : e.failures)
      std::printf("    %s\n", failure.c_str());
  }
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
