// The worker pool against fake_worker.py: real processes, real framing.
#include "kernel_compiler/worker_pool.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "fake_worker_command.h"
#include "kernel_compiler/sha256.h"
#include "support/atomic_file.h"
#include "temp_dir.h"

namespace jft::kernel_compiler {
namespace {

using testing::fakePoolOptions;
using testing::fakeTtir;
using testing::TempDir;

CompileRequest requestForTtir(const std::string& ttir) {
  CompileRequest request;
  request.ttir = ttir;
  request.target = {"cuda", "90", 32};
  request.options = {4, 3, 1};
  return request;
}

// The fake binary is "FAKE pid=<pid> ttir=<sha256>".
std::string workerPidOf(const CompiledKernel& kernel) {
  size_t start = kernel.binary.find("pid=") + 4;
  return kernel.binary.substr(start, kernel.binary.find(' ', start) - start);
}

std::string dumpedPathIn(const Status& status) {
  const std::string marker = "TTIR dumped to ";
  size_t at = status.message().find(marker);
  if (at == std::string::npos) return "";
  size_t start = at + marker.size();
  return status.message().substr(start, status.message().find(')', start) - start);
}

TEST(WorkerPool, CompilesAndReportsTheKernelContract) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path()));
  std::string ttir = fakeTtir("scale");
  auto kernel = pool.compile(requestForTtir(ttir));
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_EQ(kernel->name, "scale");
  EXPECT_EQ(kernel->binary_format, "cubin");
  EXPECT_NE(kernel->binary.find("ttir=" + sha256Hex(ttir)), std::string::npos);
  ASSERT_EQ(kernel->params.size(), 5u);  // 3 TTIR params + 2 scratch pointers
  EXPECT_EQ(kernel->params[0], (KernelParam{"*f32", ParamRole::kArg, 8, true}));
  EXPECT_EQ(kernel->params[2], (KernelParam{"i32", ParamRole::kArg, 4, false}));
  EXPECT_EQ(kernel->params[3].role, ParamRole::kGlobalScratch);
  EXPECT_EQ(kernel->params[4].role, ParamRole::kProfileScratch);
  EXPECT_EQ(kernel->shared_mem, 3u * 1024);
  EXPECT_EQ(kernel->compiler.name, "fake");
}

TEST(WorkerPool, ReportsIdentityFromHello) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path()));
  auto identity = pool.identity();
  ASSERT_TRUE(identity.isOk()) << identity.status().toString();
  EXPECT_EQ(identity->name, "fake");
  EXPECT_EQ(identity->version, "1.0");
  EXPECT_EQ(identity->build_id, "fakebuild");
}

TEST(WorkerPool, IdentityDoesNotWaitForABusyPool) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path()));
  ASSERT_TRUE(pool.identity().isOk());
  std::thread busy([&] {
    (void)pool.compile(requestForTtir(fakeTtir("slow", "// FAKE: sleep 2\n")));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto start = std::chrono::steady_clock::now();
  auto identity = pool.identity();
  auto waited = std::chrono::steady_clock::now() - start;
  busy.join();
  ASSERT_TRUE(identity.isOk());
  EXPECT_LT(waited, std::chrono::milliseconds(1000));
}

TEST(WorkerPool, AForkedChildLeavesTheParentsWorkersAlone) {
  TempDir dir;
  auto pool = std::make_unique<WorkerPool>(fakePoolOptions(1, dir.path()));
  auto before = pool->compile(requestForTtir(fakeTtir("before")));
  ASSERT_TRUE(before.isOk());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pool.reset();  // as a forked child's exit would destroy a static pool
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  auto after = pool->compile(requestForTtir(fakeTtir("after")));
  ASSERT_TRUE(after.isOk()) << after.status().toString();
  EXPECT_EQ(workerPidOf(*after), workerPidOf(*before));
  EXPECT_EQ(pool->restarts(), 0);
}

TEST(WorkerPool, DestructionEndsEveryWorker) {
  TempDir dir;
  std::vector<pid_t> pids;
  {
    WorkerPool pool(fakePoolOptions(3, dir.path()));
    std::vector<CompileRequest> requests;
    for (int i = 0; i < 3; ++i) {
      requests.push_back(
          requestForTtir(fakeTtir("k" + std::to_string(i), "// FAKE: sleep 0.3\n")));
    }
    for (auto& result : pool.compileAll(requests)) {
      ASSERT_TRUE(result.isOk());
      pids.push_back(static_cast<pid_t>(std::stol(workerPidOf(*result))));
    }
  }
  for (pid_t pid : pids) {
    EXPECT_NE(::kill(pid, 0), 0) << "worker " << pid << " outlived its pool";
  }
}

TEST(WorkerPool, WorkerWithoutCompilerIsAFailedPrecondition) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path(), "no-compiler"));
  auto identity = pool.identity();
  ASSERT_FALSE(identity.isOk());
  EXPECT_EQ(identity.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(identity.status().message().find("No module named 'triton'"),
            std::string::npos);
}

TEST(WorkerPool, CompileErrorKeepsTheWorkerAndDumpsTheTtir) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path() + "/dumps"));
  std::string bad = fakeTtir("bad", "// FAKE: error unsupported op tt.frobnicate\n");
  auto failed = pool.compile(requestForTtir(bad));
  ASSERT_FALSE(failed.isOk());
  EXPECT_EQ(failed.status().code(), StatusCode::kInternal);
  EXPECT_NE(failed.status().message().find("unsupported op tt.frobnicate"),
            std::string::npos);
  std::string dumped = dumpedPathIn(failed.status());
  ASSERT_FALSE(dumped.empty()) << failed.status().message();
  EXPECT_EQ(*readWholeFile(dumped), bad);
  std::string note = dumped.substr(0, dumped.size() - 5) + ".txt";
  EXPECT_NE(readWholeFile(note)->find("unsupported op"), std::string::npos);

  auto good = pool.compile(requestForTtir(fakeTtir("good")));
  ASSERT_TRUE(good.isOk()) << good.status().toString();
  EXPECT_EQ(pool.restarts(), 0);
}

TEST(WorkerPool, CrashIsReportedWithDumpAndTheWorkerRestarted) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path()));
  auto first = pool.compile(requestForTtir(fakeTtir("before")));
  ASSERT_TRUE(first.isOk()) << first.status().toString();

  std::string crashing = fakeTtir("boom", "// FAKE: crash\n");
  auto crashed = pool.compile(requestForTtir(crashing));
  ASSERT_FALSE(crashed.isOk());
  EXPECT_EQ(crashed.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(crashed.status().message().find("exited with status 3"), std::string::npos)
      << crashed.status().message();
  EXPECT_NE(crashed.status().message().find("compiling request"), std::string::npos)
      << "the worker's stderr tail belongs in the message";
  std::string dumped = dumpedPathIn(crashed.status());
  ASSERT_FALSE(dumped.empty()) << crashed.status().message();
  EXPECT_EQ(*readWholeFile(dumped), crashing);

  EXPECT_NE(
      crashed.status().message().find("kernel 'boom' lost its compile worker 3 times"),
      std::string::npos)
      << crashed.status().message();

  auto after = pool.compile(requestForTtir(fakeTtir("after")));
  ASSERT_TRUE(after.isOk()) << after.status().toString();
  EXPECT_EQ(pool.restarts(), 3) << "the crash and its two retries each cost a worker";
  EXPECT_NE(workerPidOf(*after), workerPidOf(*first));
}

// Collects the pool's log lines; the pool may call it from several threads.
struct LogLines {
  std::mutex mutex;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> sink() {
    return [this](const std::string& line) {
      std::lock_guard lock(mutex);
      lines.push_back(line);
    };
  }
  bool anyHas(const std::string& text) {
    std::lock_guard lock(mutex);
    for (const std::string& line : lines)
      if (line.find(text) != std::string::npos) return true;
    return false;
  }
};

int counterIn(const std::string& path) {
  auto text = readWholeFile(path);
  return text.isOk() ? std::stoi(*text) : 0;
}

TEST(WorkerPool, AKernelWhoseWorkerIsKilledIsCompiledAgainOnAFreshWorker) {
  TempDir dir;
  LogLines log;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path() + "/dumps");
  options.log = log.sink();
  WorkerPool pool(options);
  std::string counter = dir.path() + "/oom.count";
  auto kernel = pool.compile(
      requestForTtir(fakeTtir("oom", "// FAKE: sigkill-first 1 " + counter + "\n")));
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_EQ(kernel->name, "oom");
  EXPECT_EQ(counterIn(counter), 2) << "compiled once more after the kill";
  EXPECT_EQ(pool.restarts(), 1);
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_NE(log.lines[0].find("kernel 'oom'"), std::string::npos) << log.lines[0];
  EXPECT_NE(log.lines[0].find("was killed by signal 9"), std::string::npos)
      << log.lines[0];
  EXPECT_NE(log.lines[0].find("(pid "), std::string::npos) << log.lines[0];
  EXPECT_NE(log.lines[0].find("retry 1 of 2"), std::string::npos) << log.lines[0];
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/dumps"))
      << "a kernel that compiled in the end is not a failure";
}

TEST(WorkerPool, TwoLostWorkersAreStillRetried) {
  TempDir dir;
  LogLines log;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.log = log.sink();
  WorkerPool pool(options);
  std::string counter = dir.path() + "/twice.count";
  auto kernel = pool.compile(
      requestForTtir(fakeTtir("twice", "// FAKE: sigkill-first 2 " + counter + "\n")));
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_EQ(counterIn(counter), 3);
  ASSERT_EQ(log.lines.size(), 2u);
  EXPECT_TRUE(log.anyHas("retry 2 of 2"));
}

TEST(WorkerPool, AKernelThatKillsEveryWorkerFailsNamingItWithItsTtirDumped) {
  TempDir dir;
  LogLines log;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.log = log.sink();
  WorkerPool pool(options);
  std::string killer = fakeTtir("killer", "// FAKE: sigkill\n");
  auto failed = pool.compile(requestForTtir(killer));
  ASSERT_FALSE(failed.isOk());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  const std::string& message = failed.status().message();
  EXPECT_NE(message.find("kernel 'killer' lost its compile worker 3 times"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("was killed by signal 9"), std::string::npos) << message;
  std::string dumped = dumpedPathIn(failed.status());
  ASSERT_FALSE(dumped.empty()) << message;
  EXPECT_EQ(*readWholeFile(dumped), killer);
  ASSERT_EQ(log.lines.size(), 3u);
  EXPECT_TRUE(log.anyHas("retry 1 of 2"));
  EXPECT_TRUE(log.anyHas("retry 2 of 2"));
  EXPECT_TRUE(log.anyHas("giving up after 3 times"));

  auto next = pool.compile(requestForTtir(fakeTtir("next")));
  ASSERT_TRUE(next.isOk()) << next.status().toString();
}

TEST(WorkerPool, AHungWorkerIsReplacedAndTheKernelRetried) {
  TempDir dir;
  LogLines log;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.compile_timeout = std::chrono::milliseconds(700);
  options.log = log.sink();
  WorkerPool pool(options);
  std::string counter = dir.path() + "/hang.count";
  auto kernel = pool.compile(
      requestForTtir(fakeTtir("sticky", "// FAKE: hang-first 1 " + counter + "\n")));
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_NE(log.lines[0].find("exceeded the kernel compile time limit of 700 ms"),
            std::string::npos)
      << log.lines[0];
  EXPECT_NE(log.lines[0].find("kernel 'sticky'"), std::string::npos) << log.lines[0];
}

TEST(WorkerPool, AWorkerKilledFromOutsideMidCompileCostsNothingButTime) {
  TempDir dir;
  LogLines log;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.log = log.sink();
  WorkerPool pool(options);
  auto warm = pool.compile(requestForTtir(fakeTtir("warm")));
  ASSERT_TRUE(warm.isOk()) << warm.status().toString();
  pid_t victim = static_cast<pid_t>(std::stol(workerPidOf(*warm)));
  std::thread killer([victim] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(victim, SIGKILL);  // what the OOM killer does
  });
  auto kernel = pool.compile(requestForTtir(fakeTtir("slow", "// FAKE: sleep 1.0\n")));
  killer.join();
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_NE(workerPidOf(*kernel), workerPidOf(*warm));
  EXPECT_TRUE(log.anyHas("(pid " + std::to_string(victim) + ") was killed by signal 9"))
      << (log.lines.empty() ? "no log line" : log.lines[0]);
}

TEST(WorkerPool, OtherKernelsOfABatchAreUntouchedByALostWorker) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(2, dir.path()));
  std::string counter = dir.path() + "/b.count";
  std::vector<CompileRequest> requests = {
      requestForTtir(fakeTtir("a", "// FAKE: sleep 0.2\n")),
      requestForTtir(fakeTtir("b", "// FAKE: sigkill-first 1 " + counter + "\n")),
      requestForTtir(fakeTtir("c", "// FAKE: sleep 0.2\n")),
      requestForTtir(fakeTtir("d"))};
  auto results = pool.compileAll(requests);
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].isOk()) << i << ": " << results[i].status().toString();
    EXPECT_EQ(results[i]->name, std::string(1, static_cast<char>('a' + i)));
  }
}

TEST(WorkerPool, DeathBySignalIsNamed) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path()));
  auto crashed = pool.compile(requestForTtir(fakeTtir("segv", "// FAKE: segfault\n")));
  ASSERT_FALSE(crashed.isOk());
  EXPECT_NE(crashed.status().message().find("killed by signal 11"), std::string::npos)
      << crashed.status().message();
}

TEST(WorkerPool, HangingCompileTimesOutAndTheWorkerIsReplaced) {
  TempDir dir;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.compile_timeout = std::chrono::milliseconds(700);
  options.max_worker_loss_retries = 1;
  WorkerPool pool(options);
  auto start = std::chrono::steady_clock::now();
  auto hung = pool.compile(requestForTtir(fakeTtir("stuck", "// FAKE: hang\n")));
  auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(hung.isOk());
  EXPECT_EQ(hung.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(
      hung.status().message().find("kernel 'stuck' lost its compile worker 2 times"),
      std::string::npos)
      << hung.status().message();
  EXPECT_NE(hung.status().message().find("time limit of 700 ms"), std::string::npos)
      << hung.status().message();
  EXPECT_FALSE(dumpedPathIn(hung.status()).empty()) << hung.status().message();
  EXPECT_GE(waited, std::chrono::milliseconds(1400)) << "two full time limits";
  EXPECT_LT(waited, std::chrono::seconds(15));

  auto after = pool.compile(requestForTtir(fakeTtir("fine")));
  ASSERT_TRUE(after.isOk()) << after.status().toString();
  EXPECT_EQ(pool.restarts(), 2);
}

TEST(WorkerPool, GarbledStreamKillsTheWorker) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path()));
  auto garbled = pool.compile(requestForTtir(fakeTtir("noise", "// FAKE: garbage\n")));
  ASSERT_FALSE(garbled.isOk());
  EXPECT_EQ(garbled.status().code(), StatusCode::kDataLoss);
  EXPECT_TRUE(pool.compile(requestForTtir(fakeTtir("fine"))).isOk());
  EXPECT_EQ(pool.restarts(), 1);
}

TEST(WorkerPool, WorkerThatNeverSaysHelloTimesOut) {
  TempDir dir;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path(), "silent");
  options.startup_timeout = std::chrono::milliseconds(500);
  WorkerPool pool(options);
  auto kernel = pool.compile(requestForTtir(fakeTtir("k")));
  ASSERT_FALSE(kernel.isOk());
  EXPECT_EQ(kernel.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(dir.files().empty())
      << "a worker that never started says nothing of the kernel";
}

TEST(WorkerPool, WorkerThatExitsAtStartIsUnavailable) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(1, dir.path(), "exit"));
  auto identity = pool.identity();
  ASSERT_FALSE(identity.isOk());
  EXPECT_EQ(identity.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(identity.status().message().find("exiting before hello"), std::string::npos)
      << identity.status().message();
}

TEST(WorkerPool, MissingExecutableIsUnavailable) {
  TempDir dir;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.command.argv = {"jft-no-such-python-anywhere"};
  WorkerPool pool(options);
  EXPECT_EQ(pool.identity().status().code(), StatusCode::kUnavailable);
}

TEST(WorkerPool, CompilesInParallelOnSeveralWorkers) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(4, dir.path()));
  std::vector<CompileRequest> requests;
  for (int i = 0; i < 8; ++i) {
    requests.push_back(
        requestForTtir(fakeTtir("k" + std::to_string(i), "// FAKE: sleep 1.0\n")));
  }
  // Warm the workers so the timing below measures compiles, not interpreter starts.
  std::vector<CompileRequest> warm;
  for (int i = 0; i < 4; ++i)
    warm.push_back(
        requestForTtir(fakeTtir("w" + std::to_string(i), "// FAKE: sleep 0.3\n")));
  for (auto& result : pool.compileAll(warm)) ASSERT_TRUE(result.isOk());

  auto start = std::chrono::steady_clock::now();
  std::vector<StatusOr<CompiledKernel>> results = pool.compileAll(requests);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), requests.size());
  std::set<std::string> pids;
  for (size_t i = 0; i < results.size(); ++i) {
    ASSERT_TRUE(results[i].isOk()) << results[i].status().toString();
    EXPECT_EQ(results[i]->name, "k" + std::to_string(i)) << "results keep request order";
    pids.insert(workerPidOf(*results[i]));
  }
  EXPECT_EQ(pids.size(), 4u);
  // Serially this is 8 s; four workers need about 2 s. The margin absorbs a
  // loaded CI machine.
  EXPECT_LT(seconds, 6.0);
}

TEST(WorkerPool, OneFailureDoesNotSpoilTheBatch) {
  TempDir dir;
  WorkerPool pool(fakePoolOptions(2, dir.path()));
  std::vector<CompileRequest> requests = {
      requestForTtir(fakeTtir("a")), requestForTtir(fakeTtir("b", "// FAKE: crash\n")),
      requestForTtir(fakeTtir("c")),
      requestForTtir(fakeTtir("d", "// FAKE: error nope\n")),
      requestForTtir(fakeTtir("e"))};
  auto results = pool.compileAll(requests);
  EXPECT_TRUE(results[0].isOk());
  EXPECT_EQ(results[1].status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(results[2].isOk());
  EXPECT_EQ(results[3].status().code(), StatusCode::kInternal);
  EXPECT_TRUE(results[4].isOk());
}

TEST(WorkerPool, RealWorkerModuleStartsWithoutTriton) {
  // python -m jax_flagtree.worker from the source tree: without triton it must
  // still start, say hello and refuse compiles with a clear message.
  TempDir dir;
  WorkerPoolOptions options = fakePoolOptions(1, dir.path());
  options.command = pythonWorkerCommand(JFT_PYTHON3, JFT_PYTHON_DIR);
  WorkerPool pool(options);
  auto identity = pool.identity();
  if (identity.isOk())
    GTEST_SKIP() << "triton is installed here (" << identity->name << ")";
  EXPECT_EQ(identity.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(identity.status().message().find("triton"), std::string::npos);
  auto kernel = pool.compile(requestForTtir(fakeTtir("k")));
  ASSERT_FALSE(kernel.isOk());
  EXPECT_EQ(kernel.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(kernel.status().message().find("has no compiler"), std::string::npos)
      << kernel.status().message();
  EXPECT_TRUE(dir.files().empty()) << "nothing about this kernel to dump";
  EXPECT_EQ(pool.restarts(), 0);
}

// Runs only where the real compiler is installed (the GPU machine; no GPU is
// needed to compile): the reference TTIR through the real worker.
TEST(WorkerPool, RealWorkerCompilesTheReferenceKernels) {
  TempDir dir;
  WorkerPoolOptions options = fakePoolOptions(2, dir.path());
  options.command = pythonWorkerCommand(JFT_PYTHON3, JFT_PYTHON_DIR);
  options.compile_timeout = std::chrono::milliseconds(300000);
  WorkerPool pool(options);
  auto identity = pool.identity();
  if (!identity.isOk()) GTEST_SKIP() << identity.status().toString();
  std::vector<std::string> names = {"add_exp", "softmax_rows", "mm"};
  std::vector<CompileRequest> requests;
  for (const std::string& name : names) {
    requests.push_back(requestForTtir(*readWholeFile(
        (std::filesystem::path(JFT_KERNEL_COMPILER_DATA_DIR) / (name + ".ttir"))
            .string())));
  }
  auto results = pool.compileAll(requests);
  const size_t ttir_params[] = {4, 3, 6};
  for (size_t i = 0; i < names.size(); ++i) {
    ASSERT_TRUE(results[i].isOk()) << names[i] << ": " << results[i].status().toString();
    EXPECT_EQ(results[i]->binary.substr(0, 4),
              "\x7f"
              "ELF")
        << names[i];
    EXPECT_EQ(results[i]->name, names[i]);
    EXPECT_EQ(results[i]->params.size(), ttir_params[i] + 2) << names[i];
    EXPECT_EQ(results[i]->compiler, *identity);
  }
  EXPECT_GT(results[2]->shared_mem, 0u);
}

}  // namespace
}  // namespace jft::kernel_compiler
