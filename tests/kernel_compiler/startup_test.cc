// Start-up costs of the kernel compiler, against fake_worker.py: the identity
// remembered per compiler build (no worker for a process of cache hits), one
// hello awaited by all, start-ups abandoned by an owner going away, and the
// slow-compile progress line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "fake_worker_command.h"
#include "kernel_compiler/compile_progress.h"
#include "kernel_compiler/kernel_compiler.h"
#include "kernel_compiler/remembered_identity.h"
#include "support/atomic_file.h"
#include "temp_dir.h"

namespace jft::kernel_compiler {
namespace {

using testing::fakePoolOptions;
using testing::fakeTtir;
using testing::TempDir;

constexpr const char* kFingerprint = "0123456789abcdef0123456789abcdef";

CompileRequest requestForStartup(const std::string& name,
                                 const std::string& directives = "") {
  CompileRequest request;
  request.ttir = fakeTtir(name, directives);
  request.target = {"cuda", "90", 32};
  return request;
}

int lineCount(const std::string& path) {
  auto text = readWholeFile(path);
  if (!text.isOk()) return 0;
  return static_cast<int>(std::count(text->begin(), text->end(), '\n'));
}

// The fake identity a worker reports (fake_worker.py's IDENTITY).
CompilerIdentity fakeIdentity(const std::string& name = "fake") {
  return {name, "1.0", "0.0", "fake_worker.py", "fakebuild"};
}

struct Scenario {
  std::string cache_dir;
  std::string starts;  // one line per worker started
  std::string compiles;
  std::string caller_fingerprint = kFingerprint;  // what the plugin computed
  std::string worker_fingerprint = kFingerprint;  // what the worker reports
  std::string hello_delay;
};

std::unique_ptr<KernelCompiler> makeCompiler(const Scenario& setup) {
  KernelCompilerOptions options;
  options.pool = fakePoolOptions(2, "", "", setup.compiles);
  options.pool.command.extra_env.push_back("FAKE_WORKER_STARTS=" + setup.starts);
  options.pool.command.extra_env.push_back("FAKE_WORKER_FINGERPRINT=" +
                                           setup.worker_fingerprint);
  options.pool.command.extra_env.push_back("FAKE_WORKER_HELLO_DELAY=" +
                                           setup.hello_delay);
  options.cache_dir = setup.cache_dir;
  options.compiler_fingerprint = setup.caller_fingerprint;
  auto compiler = KernelCompiler::create(options);
  EXPECT_TRUE(compiler.isOk()) << compiler.status().toString();
  return compiler.isOk() ? std::move(compiler).value() : nullptr;
}

Scenario scenarioIn(const TempDir& dir) {
  return {dir.path() + "/cache", dir.path() + "/starts.log",
          dir.path() + "/compiles.log"};
}

TEST(RememberedIdentities, RoundTripsUnderAValidFingerprintOnly) {
  TempDir dir;
  RememberedIdentities remembered(dir.path());
  EXPECT_FALSE(remembered.load(kFingerprint));
  ASSERT_TRUE(remembered.store(kFingerprint, fakeIdentity()).isOk());
  EXPECT_EQ(remembered.load(kFingerprint), fakeIdentity());
  EXPECT_TRUE(
      std::filesystem::exists(dir.path() + "/compilers/" + kFingerprint + ".json"));
  EXPECT_FALSE(isCompilerFingerprint("../../etc/passwd"));
  EXPECT_FALSE(isCompilerFingerprint("0123456789ABCDEF"));  // upper case
  EXPECT_FALSE(isCompilerFingerprint("0123456789abcde"));   // 15 digits
  EXPECT_TRUE(isCompilerFingerprint("0123456789abcdef"));
  EXPECT_FALSE(remembered.store("../x", fakeIdentity()).isOk());
}

TEST(RememberedIdentities, ACorruptOrMovedRecordIsNotBelieved) {
  TempDir dir;
  RememberedIdentities remembered(dir.path());
  ASSERT_TRUE(remembered.store(kFingerprint, fakeIdentity()).isOk());
  std::string other = "fedcba9876543210fedcba9876543210";
  std::filesystem::copy_file(remembered.path(kFingerprint), remembered.path(other));
  EXPECT_FALSE(remembered.load(other)) << "a record names the build it was written for";
  ASSERT_TRUE(
      writeFileAtomically(remembered.path(kFingerprint), "{\"fingerprint\": ").isOk());
  EXPECT_FALSE(remembered.load(kFingerprint));
}

TEST(KernelCompilerStartup,
     AProcessOfCacheHitsStartsNoWorkerOnceTheIdentityIsRemembered) {
  TempDir dir;
  Scenario setup = scenarioIn(dir);
  {
    auto first = makeCompiler(setup);
    auto compiled = first->compileAll({requestForStartup("a"), requestForStartup("b")});
    for (auto& kernel : compiled)
      ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  }
  int starts = lineCount(setup.starts);
  ASSERT_GE(starts, 1);
  EXPECT_EQ(RememberedIdentities(setup.cache_dir).load(kFingerprint), fakeIdentity());

  auto second = makeCompiler(setup);  // a new process
  EXPECT_EQ(second->rememberedIdentity(), fakeIdentity());
  auto hits = second->compileAll({requestForStartup("a"), requestForStartup("b")});
  for (auto& kernel : hits) {
    ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
    EXPECT_TRUE(kernel->cache_hit);
  }
  EXPECT_EQ(lineCount(setup.starts), starts) << "a cache hit started a worker";
  EXPECT_EQ(lineCount(setup.compiles), 2);

  // A miss in that process does start one, under the same identity.
  auto miss = second->compile(requestForStartup("c"));
  ASSERT_TRUE(miss.isOk()) << miss.status().toString();
  EXPECT_FALSE(miss->cache_hit);
  EXPECT_GT(lineCount(setup.starts), starts);
}

TEST(KernelCompilerStartup, WithoutAFingerprintEveryProcessAsksAWorker) {
  TempDir dir;
  Scenario setup = scenarioIn(dir);
  setup.caller_fingerprint = "";
  ASSERT_TRUE(makeCompiler(setup)->compile(requestForStartup("a")).isOk());
  int starts = lineCount(setup.starts);
  auto hit = makeCompiler(setup)->compile(requestForStartup("a"));
  ASSERT_TRUE(hit.isOk());
  EXPECT_TRUE(hit->cache_hit);
  EXPECT_GT(lineCount(setup.starts), starts);
}

TEST(KernelCompilerStartup, ABuildTheWorkerDoesNotConfirmIsNeverTrusted) {
  // The plugin's fingerprint differs from the one the worker computed for the
  // compiler it imported (another sys.path): nothing is remembered under the
  // plugin's, so each process asks a worker.
  TempDir dir;
  Scenario setup = scenarioIn(dir);
  setup.worker_fingerprint = "fedcba9876543210fedcba9876543210";
  ASSERT_TRUE(makeCompiler(setup)->compile(requestForStartup("a")).isOk());
  int starts = lineCount(setup.starts);
  auto second = makeCompiler(setup);
  EXPECT_FALSE(second->rememberedIdentity());
  ASSERT_TRUE(second->compile(requestForStartup("a")).isOk());
  EXPECT_GT(lineCount(setup.starts), starts);
}

TEST(KernelCompilerStartup, AStaleRecordLosesToTheWorkerOnAMiss) {
  TempDir dir;
  Scenario setup = scenarioIn(dir);
  ASSERT_TRUE(makeCompiler(setup)->compile(requestForStartup("a")).isOk());
  RememberedIdentities remembered(setup.cache_dir);
  ASSERT_TRUE(remembered.store(kFingerprint, fakeIdentity("older-compiler")).isOk());

  // Under the stale identity "a" misses; the worker says who really compiles,
  // and under that identity "a" is cached: nothing is compiled again.
  auto compiler = makeCompiler(setup);
  auto kernel = compiler->compile(requestForStartup("a"));
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_TRUE(kernel->cache_hit);
  EXPECT_EQ(lineCount(setup.compiles), 1);
  EXPECT_EQ(remembered.load(kFingerprint), fakeIdentity());
}

TEST(WorkerPoolStartup, ConcurrentIdentityQuestionsShareOneHello) {
  TempDir dir;
  std::string starts = dir.path() + "/starts.log";
  WorkerPoolOptions options = fakePoolOptions(3, dir.path());
  options.command.extra_env.push_back("FAKE_WORKER_STARTS=" + starts);
  options.command.extra_env.push_back("FAKE_WORKER_HELLO_DELAY=1");
  WorkerPool pool(options);
  EXPECT_FALSE(pool.knownIdentity());
  std::thread ahead([&] { EXPECT_TRUE(pool.identity().isOk()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto identity = pool.identity();  // while the first worker imports
  ahead.join();
  ASSERT_TRUE(identity.isOk()) << identity.status().toString();
  EXPECT_EQ(lineCount(starts), 1);
  EXPECT_EQ(pool.knownIdentity(), fakeIdentity());
}

TEST(WorkerPoolStartup, AbandonedStartupsEndAtOnce) {
  TempDir dir;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.command.extra_env.push_back("FAKE_WORKER_HELLO_DELAY=60");
  WorkerPool pool(options);
  auto start = std::chrono::steady_clock::now();
  std::thread ahead([&] { EXPECT_FALSE(pool.identity().isOk()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pool.abandonStartups();
  ahead.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(pool.identity().status().code(), StatusCode::kUnavailable);
}

struct Captured {
  std::mutex mutex;
  std::string text;
  CompileProgressOptions options(int after_ms, bool in_place) {
    CompileProgressOptions out;
    out.after = std::chrono::milliseconds(after_ms);
    out.in_place = in_place;
    out.write = [this](std::string_view piece) {
      std::lock_guard lock(mutex);
      text += piece;
    };
    return out;
  }
};

TEST(CompileProgress, AQuickCompileSaysNothing) {
  Captured captured;
  {
    CompileProgress progress(captured.options(5000, false), 2);
    progress.kernelDone();
    progress.kernelDone();
  }
  EXPECT_EQ(captured.text, "");
  {
    CompileProgress off(captured.options(0, false), 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(captured.text, "");
}

TEST(CompileProgress, ALogGetsALineWhenTheTimePassesAndOneAtTheEnd) {
  Captured captured;
  {
    CompileProgress progress(captured.options(50, false), 3);
    progress.kernelDone();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    progress.kernelDone();
    progress.kernelDone();
  }
  EXPECT_EQ(std::count(captured.text.begin(), captured.text.end(), '\n'), 2)
      << captured.text;
  EXPECT_EQ(captured.text.find('\r'), std::string::npos);
  EXPECT_EQ(captured.text.rfind("jax-flagtree: compiling kernels", 0), 0u)
      << captured.text;
  EXPECT_NE(captured.text.find("1/3 done"), std::string::npos) << captured.text;
  EXPECT_NE(captured.text.find("jax-flagtree: compiled 3/3 kernels in 0."),
            std::string::npos)
      << captured.text;
}

TEST(CompileProgress, ATerminalGetsOneLineRewrittenInPlace) {
  Captured captured;
  {
    CompileProgress progress(captured.options(50, true), 3);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    progress.kernelDone();
    progress.kernelDone();
    progress.kernelDone();
  }
  EXPECT_EQ(std::count(captured.text.begin(), captured.text.end(), '\n'), 1)
      << captured.text;
  EXPECT_EQ(captured.text.back(), '\n');
  EXPECT_EQ(captured.text.rfind("\r\033[Kjax-flagtree: ", 0), 0u) << captured.text;
  for (const char* count : {"0/3 done", "1/3 done", "2/3 done", "compiled 3/3"})
    EXPECT_NE(captured.text.find(count), std::string::npos)
        << count << " in " << captured.text;
}

TEST(KernelCompilerStartup, ASlowCompileReportsItsProgress) {
  TempDir dir;
  Scenario setup = scenarioIn(dir);
  Captured captured;
  KernelCompilerOptions options;
  options.pool = fakePoolOptions(2, "");
  options.cache_dir = setup.cache_dir;
  options.progress = captured.options(100, false);
  auto compiler = KernelCompiler::create(options);
  ASSERT_TRUE(compiler.isOk());
  auto results =
      (*compiler)->compileAll({requestForStartup("a", "// FAKE: sleep 0.5\n"),
                               requestForStartup("b", "// FAKE: sleep 0.5\n")});
  for (auto& kernel : results) ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_NE(captured.text.find("/2 done"), std::string::npos) << captured.text;
  EXPECT_NE(captured.text.find("compiled 2/2 kernels"), std::string::npos)
      << captured.text;
  captured.text.clear();
  // All cached the second time: fast, silent.
  ASSERT_TRUE((*compiler)
                  ->compileAll({requestForStartup("a", "// FAKE: sleep 0.5\n")})
                  .front()
                  .isOk());
  EXPECT_EQ(captured.text, "");
}

}  // namespace
}  // namespace jft::kernel_compiler
