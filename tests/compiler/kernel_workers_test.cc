// KernelWorkers: the worker started ahead when the client is created (unless
// the compiler identity is remembered), and the slow-compile setting. Drives
// tests/kernel_compiler/fake_worker.py as the worker module.
#include "compiler/kernel_workers.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "support/atomic_file.h"

namespace jft::compiler {
namespace {

// Sets environment variables for one test, restoring them afterwards.
class ScopedEnv {
 public:
  void set(const std::string& name, const std::string& value) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        ::unsetenv(it->first.c_str());
      }
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

class TempFolder {
 public:
  TempFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "jft-workers-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) ? pattern : std::string();
  }
  ~TempFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

#ifdef JFT_FAKE_WORKER
constexpr const char* kFingerprint = "00112233445566778899aabbccddeeff";

int lines(const std::string& path) {
  auto text = readWholeFile(path);
  return text.isOk() ? static_cast<int>(std::count(text->begin(), text->end(), '\n')) : 0;
}

bool waitFor(const std::function<bool()>& condition) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The fake worker as `python -m fake_worker`, its cache in `dir`.
KernelWorkerSettings fakeSettings(ScopedEnv& env, const std::string& dir) {
  std::string fake_dir = std::filesystem::path(JFT_FAKE_WORKER).parent_path().string();
  env.set("PYTHONPATH", fake_dir + ":" JFT_PYTHON_DIR "/jax_flagtree");
  env.set("JAX_FLAGTREE_CACHE_DIR", dir + "/cache");
  env.set("FAKE_WORKER_STARTS", dir + "/starts.log");
  env.set("FAKE_WORKER_FINGERPRINT", kFingerprint);
  KernelWorkerSettings settings;
  settings.python_executable = JFT_PYTHON3;
  settings.worker_module = "fake_worker";
  settings.num_workers = 2;
  settings.compiler_fingerprint = kFingerprint;
  return settings;
}

TEST(KernelWorkersAhead, StartsOneWorkerInTheBackgroundUntilTheIdentityIsRemembered) {
  TempFolder dir;
  ScopedEnv env;
  KernelWorkerSettings settings = fakeSettings(env, dir.path());
  std::string record = dir.path() + "/cache/compilers/" + kFingerprint + ".json";
  {
    KernelWorkers workers(settings);
    auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(workers.startAhead());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500))
        << "startAhead must not wait for the worker";
    EXPECT_FALSE(workers.startAhead()) << "one worker ahead, not one per call";
    ASSERT_TRUE(waitFor([&] { return std::filesystem::exists(record); }));
    EXPECT_EQ(lines(dir.path() + "/starts.log"), 1);
  }
  KernelWorkers next_process(settings);
  EXPECT_FALSE(next_process.startAhead());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(lines(dir.path() + "/starts.log"), 1);
}

TEST(KernelWorkersAhead, GoingAwayDuringASlowStartDoesNotWaitForIt) {
  TempFolder dir;
  ScopedEnv env;
  KernelWorkerSettings settings = fakeSettings(env, dir.path());
  env.set("FAKE_WORKER_HELLO_DELAY", "60");
  auto start = std::chrono::steady_clock::now();
  {
    KernelWorkers workers(settings);
    EXPECT_TRUE(workers.startAhead());
    ASSERT_TRUE(waitFor([&] { return lines(dir.path() + "/starts.log") == 1; }));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}
#endif

TEST(KernelWorkersSettings, SlowCompileSecondsComeFromTheEnvironment) {
  ScopedEnv env;
  env.set("XLA_FLAGTREE_SLOW_COMPILE_SECONDS", "2.5");
  EXPECT_EQ(slowCompileSeconds(5), 2.5);
  env.set("XLA_FLAGTREE_SLOW_COMPILE_SECONDS", "0");
  EXPECT_EQ(slowCompileSeconds(5), 0);
  env.set("XLA_FLAGTREE_SLOW_COMPILE_SECONDS", "soon");
  EXPECT_EQ(slowCompileSeconds(5), 5);
  env.set("XLA_FLAGTREE_SLOW_COMPILE_SECONDS", "-1");
  EXPECT_EQ(slowCompileSeconds(5), 5);
  env.set("XLA_FLAGTREE_SLOW_COMPILE_SECONDS", "");
  EXPECT_EQ(slowCompileSeconds(5), 5);
}

TEST(KernelWorkersSettings, FingerprintAndSlowCompileReachTheKernelCompiler) {
  KernelWorkerSettings settings;
  settings.compiler_fingerprint = "abc";
  settings.slow_compile_seconds = 3;
  kernel_compiler::KernelCompilerOptions options = kernelCompilerOptions(settings);
  EXPECT_EQ(options.compiler_fingerprint, "abc");
  EXPECT_EQ(options.progress.after, std::chrono::milliseconds(3000));
  EXPECT_TRUE(static_cast<bool>(options.progress.write));
  settings.slow_compile_seconds = 0;
  EXPECT_EQ(kernelCompilerOptions(settings).progress.after.count(), 0);
}

}  // namespace
}  // namespace jft::compiler
