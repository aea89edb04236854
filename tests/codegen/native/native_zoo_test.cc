// Every loop, reduction, scan, scatter and sort group the planner makes of
// the zoo programs, through the native emitter: every kernel is emitted
// (none is refused today; a refusal would be UNIMPLEMENTED naming the op,
// never a crash), the cumulative sum, scatter and sorts among them; every
// kernel emitted compiles with NVRTC for sm_90 where libnvrtc is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include "codegen/native/native_kernel.h"
#include "codegen/ttir/capability.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "passes/pipeline.h"
#include "runtime/gpu/nvrtc.h"

namespace jft::codegen::native::testing {
namespace {

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

struct Emitted {
  int kernels = 0;
  std::map<fusion::Family, int> families;  // kernels emitted per family
  std::vector<std::string> refusals;
};

bool emittedNatively(fusion::Family family) {
  switch (family) {
    case fusion::Family::kLoop:
    case fusion::Family::kReduction:
    case fusion::Family::kScan:
    case fusion::Family::kScatter:
    case fusion::Family::kSort:
      return true;
    default:
      return false;
  }
}

Emitted emitProgram(const std::string& program, bool compile) {
  Emitted out;
  std::ifstream in(fixtureDir() + "/" + program + "/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  StatusOr<ir::Module> imported = frontend::importStableHlo(bytes.data(), bytes.size());
  EXPECT_TRUE(imported.isOk()) << program << ": " << imported.status().toString();
  if (!imported.isOk()) return out;
  ir::Module m = std::move(imported).value();
  // As the compiler runs them: a scan composite TTIR takes stays whole.
  passes::PipelineOptions options;
  options.inlining.keep_composite = [&m](const ir::Op& composite) {
    return codegen::ttir::ttirKeepsComposite(m, composite);
  };
  StatusOr<passes::PipelineReport> report = passes::runPasses(m, options);
  EXPECT_TRUE(report.isOk()) << report.status().toString();
  const ir::Function* main = m.entry();
  if (main == nullptr) return out;
  const fusion::Plan plan = fusion::planFusions(m, *main, codegen::ttir::withTtir());
  for (const fusion::Fusion& f : plan.fusions) {
    if (f.route != fusion::Route::kTtir || !emittedNatively(f.family)) continue;
    StatusOr<NativeKernel> kernel = emitNativeKernel(m, *main, f);
    if (!kernel.isOk()) {
      EXPECT_EQ(kernel.status().code(), StatusCode::kUnimplemented)
          << kernel.status().toString();
      out.refusals.push_back(kernel.status().toString());
      continue;
    }
    ++out.kernels;
    ++out.families[f.family];
    EXPECT_EQ(kernel->inputs, f.inputs);
    EXPECT_EQ(kernel->outputs, f.outputs);
    EXPECT_EQ(kernel->params.size(), f.inputs.size() + f.outputs.size());
    if (!compile) continue;
    StatusOr<std::string> cubin =
        runtime::gpu::compileToCubin(kernel->source, kernel->name, 90);
    EXPECT_TRUE(cubin.isOk()) << program << "/" << f.name << ": "
                              << cubin.status().toString();
  }
  return out;
}

TEST(NativeZoo, ScanScatterAndSortGroupsEmit) {
  const bool compile = runtime::gpu::Nvrtc::load().isOk();
  const Emitted cumsum = emitProgram("argmax_cumsum", compile);
  const Emitted scatter = emitProgram("gather_scatter", compile);
  const Emitted sorts = emitProgram("sort_topk", compile);
  EXPECT_EQ(cumsum.families.count(fusion::Family::kScan), 1u);
  EXPECT_EQ(scatter.families.count(fusion::Family::kScatter), 1u);
  // jnp.sort and top_k's sort.
  ASSERT_EQ(sorts.families.count(fusion::Family::kSort), 1u);
  EXPECT_EQ(sorts.families.at(fusion::Family::kSort), 2);
  for (const Emitted* e : {&cumsum, &scatter, &sorts}) EXPECT_TRUE(e->refusals.empty());
}

TEST(NativeZoo, KernelGroupsEmit) {
  const bool compile = runtime::gpu::Nvrtc::load().isOk();
  if (!compile) std::cout << "libnvrtc is absent: kernels are emitted but not compiled\n";
  int total = 0;
  for (const std::string program : {"smoke",
                                    "softmax",
                                    "layernorm",
                                    "mlp",
                                    "mlp_train_step",
                                    "attention",
                                    "conv2d",
                                    "fori",
                                    "while_dyn",
                                    "cond",
                                    "random_normal",
                                    "argmax_cumsum",
                                    "sort_topk",
                                    "gather_scatter",
                                    "shapes",
                                    "mixed_dtypes",
                                    "fft",
                                    "linalg",
                                    "transformer_block",
                                    "transformer_train_step"}) {
    const Emitted e = emitProgram(program, compile);
    total += e.kernels;
    std::cout << program << ": " << e.kernels << " native kernels, " << e.refusals.size()
              << " refused\n";
    for (const std::string& r : e.refusals) std::cout << "  " << r << "\n";
    EXPECT_TRUE(e.refusals.empty()) << program;
  }
  EXPECT_GT(total, 0);
}

}  // namespace
}  // namespace jft::codegen::native::testing
