// The one entry point of src/kernel_compiler: TTIR in, loadable binary out.
//
// compile() looks the request up in the on-disk cache (keyed by the request
// and the compiler identity the workers report) and, on a miss, compiles it
// in the worker pool and stores the result. A bad cache entry is discarded and
// rebuilt. compileAll() does the same for many requests, compiling the misses
// in parallel, and says so on the progress sink when that takes long.
//
// The identity comes from a worker's hello, or, when the caller names the
// installed compiler build (compiler_fingerprint) and a worker reported that
// build before, from the record remembered then (remembered_identity.h): a
// program whose kernels are all cached starts no worker. When a miss does
// start one and it reports another identity, its answer wins: the lookups are
// redone with it and the record is rewritten.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernel_compiler/compile_progress.h"
#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/kernel_cache.h"
#include "kernel_compiler/remembered_identity.h"
#include "kernel_compiler/worker_pool.h"
#include "support/status.h"

namespace jft::kernel_compiler {

struct KernelCompilerOptions {
  WorkerPoolOptions pool;  // pool.dump_dir is overridden by dump_dir below
  std::string cache_dir;   // empty: defaultCacheDir()
  std::string dump_dir;    // failing TTIR goes here; empty: the cache directory
  bool use_cache = true;
  // The installed compiler build (python/jax_flagtree/compiler_fingerprint.py);
  // empty: the identity is always asked of a worker.
  std::string compiler_fingerprint;
  CompileProgressOptions progress;
};

class KernelCompiler {
 public:
  static StatusOr<std::unique_ptr<KernelCompiler>> create(KernelCompilerOptions options);

  StatusOr<CompiledKernel> compile(const CompileRequest& request);
  std::vector<StatusOr<CompiledKernel>> compileAll(
      const std::vector<CompileRequest>& requests);

  // The compiler the workers run: known from a hello, else remembered for
  // compiler_fingerprint, else asked of a worker (starting one).
  StatusOr<CompilerIdentity> compilerIdentity();
  // Asks a worker (starting one if none has said hello) and remembers its
  // answer under the fingerprint it reports.
  StatusOr<CompilerIdentity> workerIdentity();
  // The identity remembered for compiler_fingerprint, if any (no worker).
  std::optional<CompilerIdentity> rememberedIdentity() const;
  const KernelCache& cache() const { return cache_; }
  WorkerPool& pool() { return pool_; }

 private:
  KernelCompiler(KernelCompilerOptions options, std::string cache_dir);

  // The cached kernel, or nullopt on a miss (absent or bad entry).
  std::optional<CompiledKernel> lookup(const std::string& key);

  KernelCompilerOptions options_;
  KernelCache cache_;
  RememberedIdentities remembered_;
  WorkerPool pool_;
};

}  // namespace jft::kernel_compiler
