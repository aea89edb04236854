// `jft compile`, run as a user would run it: exit status, stdout, stderr.
// With --binaries it drives the fake compile worker of tests/kernels through
// a stand-in jax_flagtree.worker module, the way the real one is started.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string out, err;
};

std::string fixture(const std::string& name) {
  const char* env = std::getenv("JFT_FIXTURE_DIR");
  fs::path dir = env && *env ? env : JFT_FIXTURE_DIR;
  return (dir / name / "program.mlirbc").string();
}

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

fs::path scratch(const std::string& what) {
  return fs::temp_directory_path() /
         ("jft_compile_cli_" + std::to_string(::getpid()) + "_" + what);
}

RunResult runJft(const std::string& args) {
  fs::path err_file = scratch("stderr");
  std::string command =
      quoted(JFT_TOOL_PATH) + " compile " + args + " 2>" + quoted(err_file.string());
  RunResult result;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return result;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    result.out.append(buffer, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.err = slurp(err_file);
  fs::remove(err_file);
  return result;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(JftCompile, UsageErrorsExitTwo) {
  EXPECT_EQ(runJft("").exit_code, 2);
  EXPECT_EQ(runJft("--emit bogus " + quoted(fixture("smoke"))).exit_code, 2);
  RunResult mode = runJft("--mode fast " + quoted(fixture("smoke")));
  EXPECT_EQ(mode.exit_code, 2);
  EXPECT_NE(mode.err.find("fl_only"), std::string::npos) << mode.err;
  RunResult matmul = runJft("--matmul cublas " + quoted(fixture("smoke")));
  EXPECT_EQ(matmul.exit_code, 2);
  EXPECT_NE(matmul.err.find("auto, library, ttir"), std::string::npos) << matmul.err;
  RunResult conv = runJft("--conv miopen " + quoted(fixture("smoke")));
  EXPECT_EQ(conv.exit_code, 2);
  EXPECT_NE(conv.err.find("XLA_FLAGTREE_CONV='miopen'"), std::string::npos) << conv.err;
  EXPECT_EQ(runJft("--emit").exit_code, 2);
  EXPECT_EQ(runJft("--frobnicate x.mlirbc").exit_code, 2);
  EXPECT_EQ(runJft("a.mlirbc b.mlirbc").exit_code, 2);
  RunResult replicas = runJft("--replicas 0 " + quoted(fixture("smoke")));
  EXPECT_EQ(replicas.exit_code, 2);
  EXPECT_NE(replicas.err.find("--replicas takes a number"), std::string::npos)
      << replicas.err;
  EXPECT_EQ(runJft("--partitions two " + quoted(fixture("smoke"))).exit_code, 2);
  RunResult help = runJft("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage: jft compile"), std::string::npos);
}

TEST(JftCompile, UnreadableOrBrokenInputExitsOne) {
  RunResult missing = runJft(quoted(scratch("does_not_exist.mlirbc").string()));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no such file"), std::string::npos) << missing.err;
  fs::path junk = scratch("junk.mlirbc");
  std::ofstream(junk) << "MLIR? no.";
  RunResult broken = runJft(quoted(junk.string()));
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_FALSE(broken.err.empty());
  EXPECT_TRUE(broken.out.empty());
  fs::remove(junk);
}

TEST(JftCompile, DefaultPrintsTheRouteReport) {
  RunResult r = runJft(quoted(fixture("softmax")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("kernel", 0), 0u) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n\d+ kernels?: ttir \d+)")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\nfingerprint: [0-9a-f]{64}\n)")))
      << r.out;
}

TEST(JftCompile, CompilesForSeveralParticipants) {
  // A program without collectives compiles for 2 x 2 participants as for one;
  // the fingerprint tells the two apart.
  RunResult one = runJft(quoted(fixture("softmax")));
  RunResult four = runJft("--replicas 2 --partitions 2 " + quoted(fixture("softmax")));
  ASSERT_EQ(four.exit_code, 0) << four.err;
  std::smatch a, b;
  const std::regex fingerprint(R"(fingerprint: ([0-9a-f]{64}))");
  ASSERT_TRUE(std::regex_search(one.out, a, fingerprint)) << one.out;
  ASSERT_TRUE(std::regex_search(four.out, b, fingerprint)) << four.out;
  EXPECT_NE(a[1].str(), b[1].str());
}

TEST(JftCompile, EmitTtirPrintsOneModulePerKernelOfTheReport) {
  RunResult report = runJft("--emit report " + quoted(fixture("layernorm")));
  RunResult ttir = runJft("--emit ttir " + quoted(fixture("layernorm")));
  ASSERT_EQ(ttir.exit_code, 0) << ttir.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(report.out, m, std::regex(R"(ttir (\d+))")))
      << report.out;
  size_t kernels = std::stoul(m[1]);
  EXPECT_EQ(count(ttir.out, "// kernel "), kernels) << ttir.out;
  EXPECT_EQ(count(ttir.out, "tt.func public @"), kernels) << ttir.out;
}

TEST(JftCompile, NativeModeEmitsCudaForEveryNativeKernelOfTheReport) {
  RunResult report = runJft("--mode native " + quoted(fixture("layernorm")));
  RunResult cuda = runJft("--mode native --emit cuda " + quoted(fixture("layernorm")));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  ASSERT_EQ(cuda.exit_code, 0) << cuda.err;
  EXPECT_EQ(report.out.find("ttir "), std::string::npos) << report.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(report.out, m, std::regex(R"(native (\d+))")))
      << report.out;
  size_t kernels = std::stoul(m[1]);
  EXPECT_EQ(count(cuda.out, "// kernel "), kernels) << cuda.out;
  EXPECT_EQ(count(cuda.out, "extern \"C\" __global__"), kernels) << cuda.out;
  // The default mode has no native kernel for it.
  RunResult ttir = runJft("--emit cuda " + quoted(fixture("layernorm")));
  ASSERT_EQ(ttir.exit_code, 0) << ttir.err;
  EXPECT_EQ(ttir.out, "");
}

TEST(JftCompile, EmitIrAndPlan) {
  RunResult ir = runJft("--emit ir " + quoted(fixture("smoke")));
  ASSERT_EQ(ir.exit_code, 0) << ir.err;
  EXPECT_NE(ir.out.find("stablehlo.tanh"), std::string::npos) << ir.out;
  RunResult plan = runJft("--emit plan " + quoted(fixture("smoke")));
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("ttir/"), std::string::npos) << plan.out;
}

// mlp's two products: cuBLASLt under --matmul library, TTIR matmul kernels
// (the second with its bias add) under --matmul ttir.
TEST(JftCompile, MatmulSettingPicksTheRoute) {
  RunResult library = runJft("--matmul library " + quoted(fixture("mlp")));
  ASSERT_EQ(library.exit_code, 0) << library.err;
  EXPECT_EQ(count(library.out, "  library  "), 2u) << library.out;
  EXPECT_EQ(count(library.out, "  matmul  "), 0u) << library.out;
  RunResult ttir = runJft("--matmul ttir " + quoted(fixture("mlp")));
  ASSERT_EQ(ttir.exit_code, 0) << ttir.err;
  EXPECT_EQ(count(ttir.out, "  library  "), 0u) << ttir.out;
  EXPECT_EQ(count(ttir.out, "  matmul  "), 2u) << ttir.out;
}

// conv2d (f32 NHWC x HWIO, SAME): the patches kernel and cuBLASLt under
// --conv library (and auto: f32), one TTIR conv kernel under --conv ttir.
TEST(JftCompile, ConvSettingPicksTheRoute) {
  for (const char* setting : {"--conv library ", "--conv auto ", ""}) {
    RunResult library = runJft(setting + quoted(fixture("conv2d")));
    ASSERT_EQ(library.exit_code, 0) << library.err;
    EXPECT_EQ(count(library.out, "  library  "), 1u) << setting << library.out;
    EXPECT_EQ(count(library.out, "  conv  "), 0u) << setting << library.out;
  }
  RunResult ttir = runJft("--conv ttir " + quoted(fixture("conv2d")));
  ASSERT_EQ(ttir.exit_code, 0) << ttir.err;
  EXPECT_EQ(count(ttir.out, "  library  "), 0u) << ttir.out;
  EXPECT_EQ(count(ttir.out, "  conv  "), 1u) << ttir.out;
}

// Every zoo program compiles in fl_only; native mode, whose route does not
// exist yet, rejects every op of one.
// Native mode has no matmul kernels: with dots sent to TTIR's matmul family
// they are listed; sort_topk, whose sorts are native kernels, compiles.
TEST(JftCompile, UnsupportedOpsExitOneListingThem) {
  RunResult r = runJft("--mode native --matmul ttir " + quoted(fixture("mlp")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_GE(count(r.err, "stablehlo.dot_general ("), 1u) << r.err;
  EXPECT_NE(r.err.find("no native emitter for kernel family matmul"), std::string::npos)
      << r.err;
  RunResult sorts = runJft("--mode native " + quoted(fixture("sort_topk")));
  EXPECT_EQ(sorts.exit_code, 0) << sorts.err;
}

#ifdef JFT_FAKE_WORKER
// A jax_flagtree package whose worker module runs the fake worker, so that
// --python/--worker-path are exercised exactly as with the real one.
fs::path fakeWorkerPackage() {
  fs::path root = scratch("worker_path");
  fs::create_directories(root / "jax_flagtree");
  std::ofstream(root / "jax_flagtree" / "__init__.py") << "";
  std::ofstream(root / "jax_flagtree" / "worker.py")
      << "import runpy, sys\n"
      << "sys.path.insert(0, " << quoted(JFT_PYTHON_DIR "/jax_flagtree") << ")\n"
      << "runpy.run_path(" << quoted(JFT_FAKE_WORKER) << ", run_name='__main__')\n";
  return root;
}

TEST(JftCompile, BinariesThroughTheWorker) {
  fs::path package = fakeWorkerPackage();
  fs::path cache = scratch("cache");
  std::string args = "--binaries --python " + quoted(JFT_PYTHON3) + " --worker-path " +
                     quoted(package.string()) + " --cache-dir " + quoted(cache.string()) +
                     " --log " + quoted(fixture("softmax"));
  RunResult first = runJft(args);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(first.out, m, std::regex(R"(ttir (\d+))"))) << first.out;
  size_t kernels = std::stoul(m[1]);
  EXPECT_NE(first.out.find(", " + std::to_string(kernels) + " kernel binaries"),
            std::string::npos)
      << first.out;
  EXPECT_EQ(count(first.err, "(cache miss)"), kernels) << first.err;
  RunResult second = runJft(args);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(count(second.err, "(cache hit)"), kernels) << second.err;
  fs::remove_all(package);
  fs::remove_all(cache);
}

TEST(JftCompile, BinariesWithoutAWorkerExitOne) {
  fs::path empty = scratch("no_worker");
  fs::create_directories(empty);
  RunResult r =
      runJft("--binaries --python " + quoted(JFT_PYTHON3) + " --worker-path " +
             quoted(empty.string()) + " --cache-dir " +
             quoted((empty / "cache").string()) + " " + quoted(fixture("smoke")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_FALSE(r.err.empty());
  fs::remove_all(empty);
}
#endif

}  // namespace
