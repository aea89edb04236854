// argmax_cumsum as the compiler would see it with the chlo.scan composite
// kept whole (passes::InlineOptions::keep_composite = fusion::
// ttirKeepsComposite): every group is TTIR, the cumsum is one scan kernel
// over [8, 100] reading the program's argument, and every kernel is
// well-formed. Dumped under JFT_TTIR_DUMP_DIR as argmax_cumsum__<kernel>.ttir.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "codegen/ttir/capability.h"
#include "emit_test_util.h"
#include "frontend/vhlo/import.h"
#include "fusion/ttir_support.h"
#include "passes/pipeline.h"

namespace jft::codegen::ttir::testing {
namespace {

TEST(EmitScanZoo, ArgmaxCumsumWithTheScanKept) {
  const char* env = std::getenv("JFT_FIXTURE_DIR");
  const std::string dir = env && *env ? env : JFT_FIXTURE_DIR;
  std::ifstream in(dir + "/argmax_cumsum/program.mlirbc", std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  StatusOr<ir::Module> imported = frontend::importStableHlo(bytes.data(), bytes.size());
  ASSERT_TRUE(imported.isOk()) << imported.status().toString();
  ir::Module m = std::move(imported).value();
  passes::PipelineOptions options;
  options.inlining.keep_composite = [&m](const ir::Op& op) {
    return ::jft::codegen::ttir::ttirKeepsComposite(m, op);
  };
  ASSERT_TRUE(passes::runPasses(m, options).isOk());
  const fusion::Plan plan =
      fusion::planFusions(m, *m.entry(), ::jft::codegen::ttir::withTtir());
  ASSERT_TRUE(plan.unsupported.empty()) << plan.unsupported[0].reason;
  int scans = 0;
  for (const fusion::Fusion& f : plan.fusions) {
    if (f.route != fusion::Route::kTtir) continue;
    StatusOr<TtirKernel> k = emitKernel(m, *m.entry(), f);
    ASSERT_TRUE(k.isOk()) << f.name << ": " << k.status().toString();
    const Status syntax = checkTtirSyntax(k->ttir);
    EXPECT_TRUE(syntax.isOk()) << syntax.toString() << "\n" << k->ttir;
    if (f.family == fusion::Family::kScan) {
      ++scans;
      EXPECT_EQ(k->tile, "8x128");
      EXPECT_EQ(count(k->ttir, "\"tt.scan\""), 1);
      EXPECT_EQ(f.inputs, std::vector<ir::ValueId>{m.entry()->body.args[0]});
    }
    if (const char* dump = std::getenv("JFT_TTIR_DUMP_DIR"); dump && *dump) {
      std::filesystem::create_directories(dump);
      std::ofstream(std::string(dump) + "/argmax_cumsum__" + k->name + ".ttir")
          << k->ttir;
    }
  }
  EXPECT_EQ(scans, 1);
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
