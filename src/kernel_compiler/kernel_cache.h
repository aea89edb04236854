// The content-addressed on-disk cache of compiled kernels.
//
// Key: SHA-256 over the TTIR, the target, the options and the compiler's
// identity (name, version, Triton version, build id), each field length-prefixed so no
// two inputs serialize alike. Entry: DIR/<key[0:2]>/<key>.kernel, written
// atomically (temporary file + rename), laid out as
//
//   "JFTK" | u32 format version | u64 header length | u64 payload length |
//   header (JSON: the key and the kernel metadata, as in the worker's result) |
//   payload (the binary) | SHA-256 of everything before it (32 bytes)
//
// and verified on every read: a short, corrupt or foreign entry is deleted and
// reported as DATA_LOSS, which callers treat as a miss and rebuild.
#pragma once

#include <string>

#include "kernel_compiler/compile_types.h"
#include "support/status.h"

namespace jft::kernel_compiler {

std::string kernelCacheKey(const CompileRequest& request,
                           const CompilerIdentity& compiler);

// The serialized entry, and its checked inverse (exposed for tests).
std::string encodeCacheEntry(const std::string& key, const CompiledKernel& kernel);
StatusOr<CompiledKernel> decodeCacheEntry(const std::string& key, std::string_view bytes);

class KernelCache {
 public:
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}

  const std::string& dir() const { return dir_; }
  std::string entryPath(const std::string& key) const;

  // NOT_FOUND: no entry. DATA_LOSS: the entry was bad and has been removed.
  // The returned kernel has cache_hit set.
  StatusOr<CompiledKernel> load(const std::string& key) const;
  Status store(const std::string& key, const CompiledKernel& kernel) const;

 private:
  std::string dir_;
};

}  // namespace jft::kernel_compiler
