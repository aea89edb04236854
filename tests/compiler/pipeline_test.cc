// compile() on the zoo: every program reaches TTIR (and, with the fake worker,
// a complete Program); a program with ops no route runs fails with one listing.
#include "passes/pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "codegen/ttir/capability.h"
#include "compiler/compiler.h"
#include "compiler/program_checks.h"
#include "compiler/zoo_fixture.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using testing::expectConsistentProgram;
using testing::npyShapes;
using testing::zooArtifact;

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Every zoo program compiles now, so the listing is checked on a program
// built here from ops no route runs yet: the sparse QR solve's cuSOLVER call (line 7)
// and an rng_bit_generator (line 9) of "model.py", both of whose results are returned,
// and an exp (line 8) that compiles.
ir::Module unsupportedProgram() {
  using ir::ElementType;
  using ir::Type;
  ir::Module m;
  m.name = "jit_unsupported";
  ir::Builder b(m);
  const Type matrix = Type::tensor(ElementType::F32, {4, 4});
  const Type state = Type::tensor(ElementType::U64, {2});
  // Float random bits: JAX never asks for them and nothing expands them.
  const Type bits = Type::tensor(ElementType::F32, {8});
  auto args = b.beginFunction("main", {matrix, state}, {matrix, matrix, state, bits});
  b.setLoc(b.fileLoc("model.py", 7, 3));
  std::vector<ir::ValueId> product =
      b.op(ir::OpKind::CustomCall, {args[0]},
           {matrix, Type::tensor(ElementType::F32, {4}), Type::scalar(ElementType::I32)},
           {{"call_target_name", std::string("cusolver_csrlsvqr_ffi")}});
  b.setLoc(b.fileLoc("model.py", 8, 3));
  ir::ValueId e = b.op1(ir::OpKind::Exponential, {args[0]}, matrix);
  b.setLoc(b.fileLoc("model.py", 9, 3));
  std::vector<ir::ValueId> rng =
      b.op(ir::OpKind::RngBitGenerator, {args[1]}, {state, bits},
           {{"rng_algorithm", ir::RngAlgorithm::THREE_FRY}});
  b.ret({product[0], e, rng[0], rng[1]});
  b.endFunction();
  return m;
}

TEST(UnsupportedOps, EveryUnsupportedOpListedOnceWithItsLineInEveryMode) {
  ir::Module planned = unsupportedProgram();
  ASSERT_TRUE(passes::runPasses(planned).isOk());
  fusion::Plan plan =
      fusion::planFusions(planned, *planned.entry(), ::jft::codegen::ttir::withTtir());
  std::set<size_t> unsupported;
  for (const auto& u : plan.unsupported) unsupported.insert(u.op);
  ASSERT_EQ(unsupported.size(), 2u);

  for (Mode mode :
       {Mode::kBackUnsupported, Mode::kFlOnly, Mode::kBackFail, Mode::kNative}) {
    Options options;
    options.mode = mode;
    StatusOr<Executable> result = compileModule(unsupportedProgram(), options, nullptr);
    ASSERT_FALSE(result.isOk()) << modeName(mode);
    const Status& s = result.status();
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented) << s.toString();
    std::istringstream lines(s.message());
    std::string head, line;
    std::getline(lines, head);
    EXPECT_NE(head.find("jit_unsupported"), std::string::npos) << head;
    EXPECT_NE(head.find(modeName(mode)), std::string::npos) << head;
    EXPECT_EQ(head.find("does not exist yet"), std::string::npos) << head;
    if (mode == Mode::kBackUnsupported || mode == Mode::kBackFail) {
      EXPECT_NE(head.find("neither the TTIR route nor the native route"),
                std::string::npos)
          << head;
      // The rng's TTIR refusal, then the native emitter's.
      EXPECT_NE(s.message().find("the native route cannot run it either"),
                std::string::npos)
          << s.message();
    }
    size_t listed = 0;
    std::regex listing(R"(^  stablehlo\.\w+ \(.* at \S.*: .+$)");
    while (std::getline(lines, line)) {
      ++listed;
      EXPECT_TRUE(std::regex_match(line, listing)) << line;
    }
    EXPECT_NE(s.message().find(" at model.py:7:"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(" at model.py:9:"), std::string::npos) << s.message();
    EXPECT_EQ(occurrences(s.message(), "stablehlo.custom_call ("), 1u) << s.message();
    EXPECT_EQ(occurrences(s.message(), "stablehlo.rng_bit_generator ("), 1u)
        << s.message();
    // Only the two without a route: the exp compiles (on the native route in
    // native mode).
    EXPECT_EQ(listed, 2u) << s.message();
  }
}

TEST(UnsupportedOps, TheReasonNamesTheLibraryCallThatIsMissing) {
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result = compileModule(unsupportedProgram(), options, nullptr);
  ASSERT_FALSE(result.isOk());
  const std::string& m = result.status().message();
  EXPECT_NE(m.find("cusolver_csrlsvqr_ffi"), std::string::npos) << m;
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

  // A group of several kernels (a scatter's copy and updates) reports their
  // tiles joined by " + "; a group whose kernel joined a later group's
  // combined launch (horizontal fusion) reports "in <that kernel>".
  size_t ttir_groups = 0, ttir_kernels = 0;
  for (const RouteEntry& entry : e.report.entries) {
    if (entry.route != "ttir") continue;
    ++ttir_groups;
    if (entry.tile.starts_with("in hfusion_")) continue;
    ++ttir_kernels;
    for (size_t at = entry.tile.find(" + "); at != std::string::npos;
         at = entry.tile.find(" + ", at + 1))
      ++ttir_kernels;
  }
  EXPECT_GT(ttir_groups, 0u);
  ASSERT_EQ(stages.ttir.size(), ttir_kernels);
  ASSERT_EQ(stages.kernel_names.size(), ttir_kernels);
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
  EXPECT_EQ(launches, ttir_kernels);
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

TEST(Pipeline, NativeModeRunsTheSmokeProgramWithoutTtir) {
  Options options;
  options.mode = Mode::kNative;
  Stages stages;
  StatusOr<Executable> result = compile(zooArtifact("smoke"), options, nullptr, &stages);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  EXPECT_TRUE(stages.ttir.empty());
  EXPECT_FALSE(stages.cuda.empty());
  size_t native = 0;
  for (const RouteEntry& entry : result->report.entries) {
    EXPECT_NE(entry.route, "ttir") << entry.name;
    if (entry.route == "native") ++native;
  }
  EXPECT_EQ(native, stages.cuda.size());
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
  // A failing program still leaves what was imported behind.
  ASSERT_FALSE(compileModule(unsupportedProgram(), options, nullptr).isOk());
  bool failed_input = false;
  for (const auto& entry : fs::directory_iterator(dir))
    failed_input = failed_input ||
                   (entry.path().filename().string().rfind("jit_unsupported_", 0) == 0 &&
                    fs::exists(entry.path() / "ir_imported.txt"));
  EXPECT_TRUE(failed_input);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace jft::compiler
