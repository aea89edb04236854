#include "kernel_compiler/kernel_cache.h"

#include <unistd.h>

#include "support/atomic_file.h"
#include "kernel_compiler/compiled_kernel_json.h"
#include "kernel_compiler/little_endian.h"
#include "kernel_compiler/json.h"
#include "kernel_compiler/sha256.h"

namespace jft::kernel_compiler {
namespace {

constexpr std::string_view kEntryMagic = "JFTK";
constexpr uint32_t kEntryFormatVersion = 1;
constexpr size_t kEntryPrefixBytes = 4 + 4 + 8 + 8;
constexpr size_t kChecksumBytes = 32;

void appendField(Sha256& hasher, std::string_view name, std::string_view value) {
  std::string framing = std::string(name) + ":" + std::to_string(value.size()) + ":";
  hasher.update(framing);
  hasher.update(value);
  hasher.update("\n");
}

Status corrupt(const std::string& why) {
  return Status(StatusCode::kDataLoss, "bad kernel cache entry: " + why);
}

}  // namespace

std::string kernelCacheKey(const CompileRequest& request,
                           const CompilerIdentity& compiler) {
  Sha256 hasher;
  appendField(hasher, "jax-flagtree-kernel", std::to_string(kEntryFormatVersion));
  appendField(hasher, "ttir", request.ttir);
  appendField(hasher, "backend", request.target.backend);
  appendField(hasher, "arch", request.target.arch);
  appendField(hasher, "warp_size", std::to_string(request.target.warp_size));
  appendField(hasher, "num_warps", std::to_string(request.options.num_warps));
  appendField(hasher, "num_stages", std::to_string(request.options.num_stages));
  appendField(hasher, "num_ctas", std::to_string(request.options.num_ctas));
  appendField(hasher, "compiler", compiler.name);
  appendField(hasher, "compiler_version", compiler.version);
  appendField(hasher, "triton_version", compiler.triton_version);
  appendField(hasher, "build_id", compiler.build_id);
  return toHex(hasher.finish());
}

std::string encodeCacheEntry(const std::string& key, const CompiledKernel& kernel) {
  Json header = kernelMetadataToJson(kernel);
  header.set("key", key);
  std::string header_text = header.dump();
  std::string bytes(kEntryMagic);
  appendLittleEndian(bytes, kEntryFormatVersion, 4);
  appendLittleEndian(bytes, header_text.size(), 8);
  appendLittleEndian(bytes, kernel.binary.size(), 8);
  bytes += header_text;
  bytes += kernel.binary;
  Sha256Digest checksum = sha256(bytes);
  bytes.append(reinterpret_cast<const char*>(checksum.data()), checksum.size());
  return bytes;
}

StatusOr<CompiledKernel> decodeCacheEntry(const std::string& key,
                                          std::string_view bytes) {
  if (bytes.size() < kEntryPrefixBytes + kChecksumBytes) return corrupt("truncated");
  if (bytes.substr(0, 4) != kEntryMagic) return corrupt("bad magic");
  if (readLittleEndian(bytes, 4, 4) != kEntryFormatVersion)
    return corrupt("other format");
  uint64_t header_bytes = readLittleEndian(bytes, 8, 8);
  uint64_t payload_bytes = readLittleEndian(bytes, 16, 8);
  uint64_t body = bytes.size() - kEntryPrefixBytes - kChecksumBytes;
  if (header_bytes > body || payload_bytes != body - header_bytes) {
    return corrupt("lengths do not match the file size");
  }
  std::string_view checked = bytes.substr(0, bytes.size() - kChecksumBytes);
  Sha256Digest expected = sha256(checked);
  if (bytes.substr(checked.size()) !=
      std::string_view(reinterpret_cast<const char*>(expected.data()), expected.size())) {
    return corrupt("checksum mismatch");
  }
  auto header = Json::parse(bytes.substr(kEntryPrefixBytes, header_bytes));
  if (!header.isOk()) return corrupt(header.status().message());
  auto stored_key = requireString(*header, "key");
  if (!stored_key.isOk() || *stored_key != key)
    return corrupt("entry belongs to another key");
  auto kernel = kernelMetadataFromJson(*header);
  if (!kernel.isOk()) return corrupt(kernel.status().message());
  kernel->binary =
      std::string(bytes.substr(kEntryPrefixBytes + header_bytes, payload_bytes));
  return kernel;
}

std::string KernelCache::entryPath(const std::string& key) const {
  return dir_ + "/" + key.substr(0, 2) + "/" + key + ".kernel";
}

StatusOr<CompiledKernel> KernelCache::load(const std::string& key) const {
  std::string path = entryPath(key);
  JFT_ASSIGN_OR_RETURN(std::string bytes, readWholeFile(path));
  auto kernel = decodeCacheEntry(key, bytes);
  if (!kernel.isOk()) {
    ::unlink(path.c_str());  // rebuilt by the caller; a concurrent rewrite is also fine
    return Status(StatusCode::kDataLoss, kernel.status().message() + " ('" + path + "')");
  }
  kernel->cache_hit = true;
  return kernel;
}

Status KernelCache::store(const std::string& key, const CompiledKernel& kernel) const {
  std::string path = entryPath(key);
  JFT_RETURN_IF_ERROR(makeDirectories(path.substr(0, path.rfind('/'))));
  return writeFileAtomically(path, encodeCacheEntry(key, kernel));
}

}  // namespace jft::kernel_compiler
