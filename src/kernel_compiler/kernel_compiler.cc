#include "kernel_compiler/kernel_compiler.h"

#include <chrono>
#include <cstdio>

#include "kernel_compiler/cache_dir.h"

namespace jft::kernel_compiler {
namespace {

WorkerPoolOptions withDumpDir(WorkerPoolOptions pool, const std::string& dump_dir) {
  pool.dump_dir = dump_dir;
  return pool;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StatusOr<std::unique_ptr<KernelCompiler>> KernelCompiler::create(
    KernelCompilerOptions options) {
  std::string cache_dir = options.cache_dir;
  if (cache_dir.empty()) {
    JFT_ASSIGN_OR_RETURN(cache_dir, defaultCacheDir());
  }
  if (options.dump_dir.empty()) options.dump_dir = cache_dir;
  return std::unique_ptr<KernelCompiler>(
      new KernelCompiler(std::move(options), cache_dir));
}

KernelCompiler::KernelCompiler(KernelCompilerOptions options, std::string cache_dir)
    : options_(std::move(options)),
      cache_(cache_dir),
      remembered_(std::move(cache_dir)),
      pool_(withDumpDir(options_.pool, options_.dump_dir)) {}

std::optional<CompilerIdentity> KernelCompiler::rememberedIdentity() const {
  if (options_.compiler_fingerprint.empty()) return std::nullopt;
  return remembered_.load(options_.compiler_fingerprint);
}

StatusOr<CompilerIdentity> KernelCompiler::compilerIdentity() {
  if (auto known = pool_.knownIdentity()) return *known;
  if (auto remembered = rememberedIdentity()) return *remembered;
  return workerIdentity();
}

StatusOr<CompilerIdentity> KernelCompiler::workerIdentity() {
  JFT_ASSIGN_OR_RETURN(CompilerIdentity identity, pool_.identity());
  std::string fingerprint = pool_.compilerFingerprint();
  if (isCompilerFingerprint(fingerprint) && remembered_.load(fingerprint) != identity) {
    // Not remembering costs a worker start in the next process, nothing more.
    (void)remembered_.store(fingerprint, identity);
  }
  return identity;
}

std::optional<CompiledKernel> KernelCompiler::lookup(const std::string& key) {
  if (!options_.use_cache) return std::nullopt;
  auto cached = cache_.load(key);
  if (cached.isOk()) return std::move(cached).value();
  if (cached.status().code() == StatusCode::kDataLoss) {
    std::fprintf(stderr, "jax-flagtree: %s; recompiling\n",
                 cached.status().message().c_str());
  }
  return std::nullopt;
}

StatusOr<CompiledKernel> KernelCompiler::compile(const CompileRequest& request) {
  std::vector<StatusOr<CompiledKernel>> results = compileAll({request});
  return std::move(results.front());
}

std::vector<StatusOr<CompiledKernel>> KernelCompiler::compileAll(
    const std::vector<CompileRequest>& requests) {
  auto start = std::chrono::steady_clock::now();
  std::vector<StatusOr<CompiledKernel>> results;
  // As compilerIdentity(), noting whether a worker gave it.
  StatusOr<CompilerIdentity> identity = internalError("no compiler identity");
  bool asked_a_worker = true;
  if (auto known = pool_.knownIdentity()) {
    identity = std::move(*known);
  } else if (auto remembered = rememberedIdentity()) {
    identity = std::move(*remembered);
    asked_a_worker = false;
  } else {
    identity = workerIdentity();
  }
  if (!identity.isOk()) {
    for (size_t i = 0; i < requests.size(); ++i) results.emplace_back(identity.status());
    return results;
  }
  std::vector<std::string> keys;
  std::vector<size_t> misses;
  // At most twice: the second time with the identity of the worker a miss
  // started, when it differs from the remembered one.
  while (true) {
    results.clear();
    keys.clear();
    misses.clear();
    for (size_t i = 0; i < requests.size(); ++i) {
      keys.push_back(kernelCacheKey(requests[i], *identity));
      if (auto cached = lookup(keys.back())) {
        cached->compile_seconds = secondsSince(start);
        results.emplace_back(std::move(*cached));
        continue;
      }
      results.emplace_back(internalError("not compiled yet"));
      misses.push_back(i);
    }
    if (misses.empty() || asked_a_worker) break;
    asked_a_worker = true;
    auto actual = workerIdentity();
    if (!actual.isOk()) {
      for (size_t i : misses) results[i] = actual.status();
      return results;
    }
    if (*actual == *identity) break;
    identity = std::move(actual);
  }
  std::vector<CompileRequest> miss_requests;
  for (size_t i : misses) miss_requests.push_back(requests[i]);
  std::vector<StatusOr<CompiledKernel>> compiled;
  {
    CompileProgress progress(options_.progress, miss_requests.size());
    compiled = pool_.compileAll(miss_requests, [&] { progress.kernelDone(); });
  }
  for (size_t m = 0; m < misses.size(); ++m) {
    size_t i = misses[m];
    if (compiled[m].isOk() && options_.use_cache) {
      // A failed store costs only a recompile next time; the kernel is fine.
      Status stored = cache_.store(keys[i], *compiled[m]);
      if (!stored.isOk()) {
        std::fprintf(stderr, "jax-flagtree: cannot cache a kernel: %s\n",
                     stored.toString().c_str());
      }
    }
    results[i] = std::move(compiled[m]);
  }
  return results;
}

}  // namespace jft::kernel_compiler
