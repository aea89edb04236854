// Native kernels -> kernel images, through the cache.
#include "compiler/native_binaries.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "kernel_compiler/sha256.h"

namespace jft::compiler {
namespace {

constexpr std::string_view kNativeCacheVersion = "1";

void field(kernel_compiler::Sha256& hash, std::string_view name, std::string_view value) {
  hash.update(std::string(name) + ":" + std::to_string(value.size()) + ":");
  hash.update(value);
  hash.update("\n");
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The cache entry's record: the native launch contract in the kernel
// compiler's terms (every parameter a pointer argument).
kernel_compiler::CompiledKernel compiledRecord(const codegen::ttir::TtirKernel& kernel,
                                               std::string binary,
                                               const std::string& identity) {
  kernel_compiler::CompiledKernel record;
  record.binary = std::move(binary);
  record.binary_format = "cubin";
  record.name = kernel.name;
  record.num_warps = kernel.num_warps;
  kernel_compiler::KernelParam pointer;
  pointer.type = "*i8";
  pointer.size_bytes = 8;
  pointer.is_pointer = true;
  record.params.assign(kernel.inputs.size() + kernel.outputs.size(), pointer);
  record.compiler.name = "native";
  record.compiler.version = identity;
  return record;
}

KernelBinary binaryOf(kernel_compiler::CompiledKernel record) {
  KernelBinary out;
  out.image.binary = std::move(record.binary);
  out.image.name = record.name;
  out.image.shared_mem = 0;
  out.image.num_warps = record.num_warps;
  out.image.params.assign(record.params.size(), runtime::KernelImage::Param::kBuffer);
  record.binary.clear();
  out.facts = std::move(record);
  return out;
}

StatusOr<KernelBinary> buildOne(const codegen::ttir::TtirKernel& kernel,
                                NativeCompiler& compiler, const std::string& identity,
                                const kernel_compiler::KernelCache* cache) {
  const auto start = std::chrono::steady_clock::now();
  const std::string key = nativeCacheKey(identity, kernel.name, kernel.cuda);
  if (cache != nullptr) {
    StatusOr<kernel_compiler::CompiledKernel> hit = cache->load(key);
    // A hit must be this kernel's contract; anything else is rebuilt.
    if (hit.isOk() && hit->name == kernel.name && hit->num_warps == kernel.num_warps &&
        hit->params.size() == kernel.inputs.size() + kernel.outputs.size()) {
      hit->cache_hit = true;
      hit->compile_seconds = secondsSince(start);
      return binaryOf(std::move(hit).value());
    }
  }
  StatusOr<std::string> cubin = compiler.compile(kernel.cuda, kernel.name);
  if (!cubin.isOk()) return cubin.status();
  kernel_compiler::CompiledKernel record =
      compiledRecord(kernel, std::move(cubin).value(), identity);
  record.compile_seconds = secondsSince(start);
  // Best effort: a cache that cannot be written costs a compile next time.
  if (cache != nullptr) (void)cache->store(key, record);
  return binaryOf(std::move(record));
}

}  // namespace

std::string nativeCacheKey(const std::string& compiler_identity, const std::string& name,
                           const std::string& source) {
  kernel_compiler::Sha256 hash;
  field(hash, "jax-flagtree-native-kernel", kNativeCacheVersion);
  field(hash, "compiler", compiler_identity);
  field(hash, "name", name);
  field(hash, "source", source);
  return kernel_compiler::toHex(hash.finish());
}

NativeBinaries compileNativeKernels(
    const std::vector<const codegen::ttir::TtirKernel*>& kernels,
    NativeCompiler* compiler, const kernel_compiler::KernelCache* cache) {
  NativeBinaries out;
  if (kernels.empty()) return out;
  Status missing;
  if (compiler == nullptr) {
    missing = unavailable(
        "the native route compiles CUDA C with NVRTC (libnvrtc), and this compile has no "
        "native compiler (compiling for a GPU gives one; set JFT_NVRTC_LIBRARY or "
        "JFT_NVRTC_DIR when libnvrtc is not on the loader's path)");
  } else if (StatusOr<std::string> identity = compiler->identity(); !identity.isOk()) {
    missing = identity.status().withContext(
        "the native route compiles CUDA C with NVRTC, which could not be loaded");
  } else {
    out.identity = std::move(identity).value();
  }
  if (!missing.isOk()) {
    out.kernels.assign(kernels.size(), missing);
    return out;
  }
  out.kernels.assign(kernels.size(), internalError("not compiled"));
  // NVRTC takes a fraction of a second per kernel; a program's kernels
  // compile side by side.
  const size_t threads = std::min<size_t>(
      {kernels.size(), std::max(1u, std::thread::hardware_concurrency() / 2), 8});
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < kernels.size(); i = next++)
      out.kernels[i] = buildOne(*kernels[i], *compiler, out.identity, cache);
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  return out;
}

}  // namespace jft::compiler
