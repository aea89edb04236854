// The one entry point of src/kernel_compiler: TTIR in, loadable binary out.
//
// compile() looks the request up in the on-disk cache (keyed by the request
// and the compiler identity the workers report) and, on a miss, compiles it
// in the worker pool and stores the result. A bad cache entry is discarded and
// rebuilt. compileAll() does the same for many requests, compiling the misses
// in parallel.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/kernel_cache.h"
#include "kernel_compiler/worker_pool.h"
#include "support/status.h"

namespace jft::kernel_compiler {

struct KernelCompilerOptions {
  WorkerPoolOptions pool;  // pool.dump_dir is overridden by dump_dir below
  std::string cache_dir;   // empty: defaultCacheDir()
  std::string dump_dir;    // failing TTIR goes here; empty: the cache directory
  bool use_cache = true;
};

class KernelCompiler {
 public:
  static StatusOr<std::unique_ptr<KernelCompiler>> create(KernelCompilerOptions options);

  StatusOr<CompiledKernel> compile(const CompileRequest& request);
  std::vector<StatusOr<CompiledKernel>> compileAll(
      const std::vector<CompileRequest>& requests);

  // The compiler the workers run (starts a worker on first use).
  StatusOr<CompilerIdentity> compilerIdentity() { return pool_.identity(); }
  const KernelCache& cache() const { return cache_; }
  WorkerPool& pool() { return pool_; }

 private:
  KernelCompiler(KernelCompilerOptions options, std::string cache_dir);

  // The cached kernel, or nullopt on a miss (absent or bad entry).
  std::optional<CompiledKernel> lookup(const std::string& key);

  KernelCompilerOptions options_;
  KernelCache cache_;
  WorkerPool pool_;
};

}  // namespace jft::kernel_compiler
