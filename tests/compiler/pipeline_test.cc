// compile() on the zoo: unsupported programs fail with one listing, the rest
// reach TTIR (and, with the fake worker, a complete Program).
#include "passes/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "compiler/compiler.h"
#include "compiler/program_checks.h"
#include "compiler/zoo_fixture.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"

namespace jft::compiler {
namespace {

using testing::expectConsistentProgram;
using testing::npyShapes;
using testing::zooArtifact;

// The plan compile() sees, recomputed here through the public stages.
fusion::Plan planOf(const std::string& bytes, ir::Module& module) {
  module = std::move(frontend::importStableHlo(
                         reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()))
               .value();
  EXPECT_TRUE(passes::runPasses(module).isOk());
  return fusion::planFusions(module, *module.entry());
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

class UnsupportedZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(UnsupportedZoo, EveryUnsupportedOpListedOnceWithItsLine) {
  std::string bytes = zooArtifact(GetParam());
  ASSERT_FALSE(bytes.empty());
  ir::Module module;
  fusion::Plan plan = planOf(bytes, module);
  std::set<size_t> unsupported;
  for (const auto& u : plan.unsupported) unsupported.insert(u.op);
  ASSERT_FALSE(unsupported.empty()) << "the planner now supports all of " << GetParam();

  for (Mode mode :
       {Mode::kBackUnsupported, Mode::kFlOnly, Mode::kBackFail, Mode::kNative}) {
    Options options;
    options.mode = mode;
    StatusOr<Executable> result = compile(bytes, options, nullptr);
    ASSERT_FALSE(result.isOk()) << modeName(mode);
    const Status& s = result.status();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.toString();
    std::istringstream lines(s.message());
    std::string head, line;
    std::getline(lines, head);
    EXPECT_NE(head.find(module.name), std::string::npos) << head;
    EXPECT_NE(head.find(modeName(mode)), std::string::npos) << head;
    if (mode != Mode::kFlOnly) {
      EXPECT_NE(head.find("does not exist yet"), std::string::npos) << head;
    }
    size_t listed = 0;
    std::regex listing(R"(^  stablehlo\.\w+ \(.* at \S.*: .+$)");
    while (std::getline(lines, line)) {
      ++listed;
      EXPECT_TRUE(std::regex_match(line, listing)) << line;
    }
    // Where the module knows the user's file and line for an op, so does the
    // listing (an op whose location is only a name has none to show).
    for (size_t op : unsupported) {
      std::optional<ir::FileLocation> frame =
          module.locations.userFrame(module.entry()->body.ops[op].loc);
      if (!frame) continue;
      std::string where = frame->file + ":" + std::to_string(frame->line) + ":";
      EXPECT_NE(s.message().find(" at " + where), std::string::npos) << where << " in\n"
                                                                     << s.message();
    }
    if (mode != Mode::kNative) {
      EXPECT_EQ(listed, unsupported.size()) << s.message();
    } else {
      EXPECT_GE(listed, unsupported.size()) << s.message();
    }
    // Each op kind the planner rejected is named as often as it was rejected.
    std::map<std::string, size_t> kinds;
    for (size_t op : unsupported)
      ++kinds["stablehlo." +
              std::string(ir::opKindName(module.entry()->body.ops[op].kind)) + " ("];
    if (mode == Mode::kNative) continue;
    for (const auto& [kind, n] : kinds)
      EXPECT_EQ(occurrences(s.message(), kind), n) << kind;
  }
}

// fft's fft has no library call yet (conv2d's convolution and sort_topk's
// sorts compile now).
INSTANTIATE_TEST_SUITE_P(Zoo, UnsupportedZoo, ::testing::Values("fft"));

TEST(UnsupportedZoo, FftNamesItsFftAndItsConsumer) {
  // Independent of the planner: the library route has no FFT call yet, and
  // the TTIR route no emitter for `real`. The fft's location is only its
  // function's name; `real` has its source line.
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result = compile(zooArtifact("fft"), options, nullptr);
  ASSERT_FALSE(result.isOk());
  const std::string& m = result.status().message();
  for (
      const char* pattern :
      {R"(\n  stablehlo\.fft \(tensor<4x256xf32>\) -> tensor<4x129xcomplex<f32>> at \S+: )",
       R"(\n  stablehlo\.real \(tensor<[^)]*\) -> tensor<4x129xf32> at zoo\.py:\d+:\d+: )"}) {
    std::regex op(pattern);
    EXPECT_EQ(std::distance(std::sregex_iterator(m.begin(), m.end(), op),
                            std::sregex_iterator()),
              1)
        << pattern << " in\n"
        << m;
  }
}

class TtirZoo : public ::testing::TestWithParam<std::string> {};

TEST_P(TtirZoo, ReachesTtirWithBuffersSizedLikeTheFixtureArrays) {
  std::string bytes = zooArtifact(GetParam());
  Stages stages;
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result = compile(bytes, options, nullptr, &stages);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  const Executable& e = *result;

  size_t ttir_groups = 0;
  for (const RouteEntry& entry : e.report.entries) ttir_groups += entry.route == "ttir";
  EXPECT_GT(ttir_groups, 0u);
  ASSERT_EQ(stages.ttir.size(), ttir_groups);
  ASSERT_EQ(stages.kernel_names.size(), ttir_groups);
  for (size_t i = 0; i < stages.ttir.size(); ++i)
    EXPECT_NE(stages.ttir[i].find("tt.func public @" + stages.kernel_names[i]),
              std::string::npos)
        << stages.ttir[i];
  EXPECT_FALSE(stages.ir_after_passes.empty());
  EXPECT_FALSE(stages.plan.empty());

  // Buffers against the shapes of the .npy files JAX wrote for this program.
  auto bytesOf = [](const std::vector<int64_t>& shape, ir::ElementType element) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n * ir::storageBytes(element);
  };
  std::vector<std::vector<int64_t>> inputs = npyShapes(GetParam(), "in");
  std::vector<std::vector<int64_t>> outputs = npyShapes(GetParam(), "out");
  ASSERT_EQ(e.parameter_types.size(), inputs.size());
  ASSERT_EQ(e.program.parameter_bytes.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    EXPECT_EQ(e.parameter_types[i].dims, inputs[i]) << "input " << i;
    EXPECT_EQ(static_cast<int64_t>(e.program.parameter_bytes[i]),
              bytesOf(inputs[i], e.parameter_types[i].element))
        << "input " << i;
  }
  ASSERT_EQ(e.output_types.size(), outputs.size());
  ASSERT_EQ(e.program.output_slots.size(), outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    EXPECT_EQ(e.output_types[i].dims, outputs[i]) << "output " << i;
    EXPECT_EQ(static_cast<int64_t>(
                  e.program.slots[static_cast<size_t>(e.program.output_slots[i])].bytes),
              bytesOf(outputs[i], e.output_types[i].element))
        << "output " << i;
  }

  size_t launches = 0;
  for (const runtime::Thunk& t : e.program.thunks)
    launches += std::holds_alternative<runtime::LaunchThunk>(t);
  EXPECT_EQ(launches, ttir_groups);
  EXPECT_TRUE(e.program.kernels.empty());  // no binaries without a kernel compiler
  expectConsistentProgram(e.program, false);
  EXPECT_EQ(e.fingerprint.size(), 64u);
  EXPECT_EQ(e.name, e.program.name);
}

INSTANTIATE_TEST_SUITE_P(Zoo, TtirZoo,
                         ::testing::Values("smoke", "softmax", "layernorm", "shapes",
                                           "mixed_dtypes", "random_normal", "mlp",
                                           "attention", "transformer_block",
                                           "mlp_train_step", "transformer_train_step",
                                           "argmax_cumsum", "gather_scatter",
                                           "sort_topk"));

TEST(Pipeline, FingerprintFollowsTheInputAndTheOptionsThatMatter) {
  std::string smoke = zooArtifact("smoke");
  Options base;
  auto fp = [&](const std::string& bytes, const Options& o) {
    StatusOr<Executable> e = compile(bytes, o, nullptr);
    return e.isOk() ? e->fingerprint : e.status().toString();
  };
  std::string reference = fp(smoke, base);
  EXPECT_EQ(fp(smoke, base), reference);
  Options logged = base;
  logged.log = true;
  EXPECT_EQ(fp(smoke, logged), reference);
  Options strict = base;
  strict.mode = Mode::kFlOnly;
  EXPECT_NE(fp(smoke, strict), reference);
  Options tuned = base;
  tuned.autotune_level = 2;
  EXPECT_NE(fp(smoke, tuned), reference);
  Options other_arch = base;
  other_arch.target.arch = "80";
  EXPECT_NE(fp(smoke, other_arch), reference);
  EXPECT_NE(fp(zooArtifact("softmax"), base), reference);
}

TEST(Pipeline, BadInputIsAnErrorNeverACrash) {
  Options options;
  EXPECT_FALSE(compile("", options, nullptr).isOk());
  EXPECT_FALSE(compile("not bytecode at all", options, nullptr).isOk());
  std::string smoke = zooArtifact("smoke");
  for (size_t cut : {size_t{4}, smoke.size() / 3, smoke.size() / 2, smoke.size() - 1})
    EXPECT_FALSE(compile(smoke.substr(0, cut), options, nullptr).isOk()) << cut;
}

TEST(Pipeline, NativeModeHasNoRouteYet) {
  Options options;
  options.mode = Mode::kNative;
  StatusOr<Executable> result = compile(zooArtifact("smoke"), options, nullptr);
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(result.status().message().find("stablehlo.tanh"), std::string::npos)
      << result.status().message();
}

TEST(Pipeline, LogPrintsOneLinePerKernelAndTheSummary) {
  Options options;
  options.log = true;
  std::ostringstream captured;
  std::streambuf* saved = std::cerr.rdbuf(captured.rdbuf());
  StatusOr<Executable> result = compile(zooArtifact("softmax"), options, nullptr);
  std::cerr.rdbuf(saved);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  std::string log = captured.str();
  for (const RouteEntry& entry : result->report.entries) {
    if (entry.route != "ttir") continue;
    EXPECT_NE(log.find("jax-flagtree: " + entry.name + " ttir/" + entry.family + " "),
              std::string::npos)
        << log;
  }
  EXPECT_NE(log.find("jit_softmax: " + std::to_string(result->report.entries.size()) +
                     " kernel"),
            std::string::npos)
      << log;
}

TEST(Pipeline, DumpWritesEveryStageIntoOneFolder) {
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("jft_compiler_dump_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  Options options;
  options.dump_dir = dir.string();
  Stages stages;
  std::string bytes = zooArtifact("layernorm");
  StatusOr<Executable> result = compile(bytes, options, nullptr, &stages);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(dir)) folders.push_back(entry.path());
  ASSERT_EQ(folders.size(), 1u);
  fs::path folder = folders[0];
  EXPECT_EQ(folder.filename().string().rfind("jit_layernorm_", 0), 0u) << folder;
  EXPECT_EQ(testing::readBytes(folder / "input.mlirbc"), bytes);
  EXPECT_EQ(testing::readBytes(folder / "ir_after_passes.txt"), stages.ir_after_passes);
  EXPECT_EQ(testing::readBytes(folder / "plan.txt"), stages.plan);
  EXPECT_EQ(testing::readBytes(folder / "route_report.txt"), result->report.text());
  EXPECT_TRUE(fs::exists(folder / "passes.txt"));
  EXPECT_TRUE(fs::exists(folder / "ir_imported.txt"));
  for (size_t i = 0; i < stages.ttir.size(); ++i)
    EXPECT_EQ(testing::readBytes(folder / (stages.kernel_names[i] + ".ttir")),
              stages.ttir[i]);
  // A failing program still leaves its input behind.
  ASSERT_FALSE(compile(zooArtifact("fft"), options, nullptr).isOk());
  bool fft_input = false;
  for (const auto& entry : fs::directory_iterator(dir))
    fft_input =
        fft_input || (entry.path().filename().string().rfind("jit_fft_", 0) == 0 &&
                      fs::exists(entry.path() / "input.mlirbc"));
  EXPECT_TRUE(fft_input);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace jft::compiler
