#include "kernel_compiler/kernel_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "support/atomic_file.h"
#include "kernel_compiler/cache_dir.h"
#include "kernel_compiler/sha256.h"
#include "temp_dir.h"

namespace jft::kernel_compiler {
namespace {

using testing::TempDir;

CompileRequest sampleRequest() {
  CompileRequest request;
  request.ttir = "module { tt.func public @k() { tt.return } }";
  request.target = {"cuda", "90", 32};
  request.options = {4, 3, 1};
  return request;
}

CompilerIdentity sampleCompiler() {
  return {"flagtree", "0.4.0", "3.5.1", "test", "b1"};
}

CompiledKernel sampleKernel() {
  CompiledKernel kernel;
  kernel.binary = std::string(
      "\x7f"
      "ELF\0\1\2binary",
      13);
  kernel.binary_format = "cubin";
  kernel.name = "k";
  kernel.shared_mem = 32768;
  kernel.num_warps = 8;
  kernel.params = {{"*bf16", ParamRole::kArg, 8, true},
                   {"i32", ParamRole::kArg, 4, false},
                   {"*i8", ParamRole::kGlobalScratch, 8, true},
                   {"*i8", ParamRole::kProfileScratch, 8, true}};
  kernel.global_scratch_size = 256;
  kernel.global_scratch_align = 128;
  kernel.compiler = sampleCompiler();
  return kernel;
}

void expectSameKernel(const CompiledKernel& a, const CompiledKernel& b) {
  EXPECT_EQ(a.binary, b.binary);
  EXPECT_EQ(a.binary_format, b.binary_format);
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.shared_mem, b.shared_mem);
  EXPECT_EQ(a.num_warps, b.num_warps);
  EXPECT_EQ(a.params, b.params);
  EXPECT_EQ(a.global_scratch_size, b.global_scratch_size);
  EXPECT_EQ(a.global_scratch_align, b.global_scratch_align);
  EXPECT_EQ(a.profile_scratch_size, b.profile_scratch_size);
  EXPECT_EQ(a.profile_scratch_align, b.profile_scratch_align);
  EXPECT_EQ(a.compiler, b.compiler);
}

TEST(KernelCacheKey, IsStableHexSha256) {
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  EXPECT_EQ(key, kernelCacheKey(sampleRequest(), sampleCompiler()));
  ASSERT_EQ(key.size(), 64u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(KernelCacheKey, ChangesWithEveryInput) {
  std::string base = kernelCacheKey(sampleRequest(), sampleCompiler());
  std::vector<std::pair<const char*, std::pair<CompileRequest, CompilerIdentity>>>
      variants;
  auto vary = [&](const char* what, auto mutate) {
    CompileRequest request = sampleRequest();
    CompilerIdentity compiler = sampleCompiler();
    mutate(request, compiler);
    variants.push_back({what, {request, compiler}});
  };
  vary("ttir", [](auto& r, auto&) { r.ttir += " "; });
  vary("backend", [](auto& r, auto&) { r.target.backend = "hip"; });
  vary("arch", [](auto& r, auto&) { r.target.arch = "80"; });
  vary("warp_size", [](auto& r, auto&) { r.target.warp_size = 64; });
  vary("num_warps", [](auto& r, auto&) { r.options.num_warps = 8; });
  vary("num_stages", [](auto& r, auto&) { r.options.num_stages = 2; });
  vary("num_ctas", [](auto& r, auto&) { r.options.num_ctas = 2; });
  vary("compiler name", [](auto&, auto& c) { c.name = "triton"; });
  vary("compiler version", [](auto&, auto& c) { c.version = "0.4.1"; });
  vary("triton version", [](auto&, auto& c) { c.triton_version = "3.6.0"; });
  vary("build id", [](auto&, auto& c) { c.build_id = "0123456789abcdef"; });
  // Field boundaries must not be ambiguous: moving text between fields changes the key.
  vary("shifted text", [](auto& r, auto&) {
    r.target.backend = "cuda9";
    r.target.arch = "0";
  });
  std::set<std::string> keys = {base};
  for (const auto& [what, inputs] : variants) {
    std::string key = kernelCacheKey(inputs.first, inputs.second);
    EXPECT_NE(key, base) << what;
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), variants.size() + 1);
}

TEST(KernelCache, RoundTrip) {
  TempDir dir;
  KernelCache cache(dir.path() + "/cache");
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  EXPECT_EQ(cache.load(key).status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(cache.store(key, sampleKernel()).isOk());
  auto loaded = cache.load(key);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  expectSameKernel(*loaded, sampleKernel());
  EXPECT_TRUE(loaded->cache_hit);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"cache/" + key.substr(0, 2) + "/" +
                                                  key + ".kernel"});
}

TEST(KernelCache, EntryLayoutMatchesTheDocumentedFormat) {
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  std::string bytes = encodeCacheEntry(key, sampleKernel());
  ASSERT_GT(bytes.size(), 24u + 32u);
  EXPECT_EQ(bytes.substr(0, 4), "JFTK");
  std::string body = bytes.substr(0, bytes.size() - 32);
  EXPECT_EQ(bytes.substr(bytes.size() - 32),
            std::string(reinterpret_cast<const char*>(sha256(body).data()), 32));
  EXPECT_EQ(bytes.substr(bytes.size() - 32 - sampleKernel().binary.size(),
                         sampleKernel().binary.size()),
            sampleKernel().binary);
}

class CorruptEntry : public ::testing::TestWithParam<int> {};

TEST_P(CorruptEntry, IsDetectedRemovedAndRebuilt) {
  TempDir dir;
  KernelCache cache(dir.path());
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  ASSERT_TRUE(cache.store(key, sampleKernel()).isOk());
  std::string path = cache.entryPath(key);
  std::string bytes = *readWholeFile(path);
  switch (GetParam()) {
    case 0:
      bytes[bytes.size() - 40] ^= 1;
      break;  // a bit of the binary
    case 1:
      bytes[30] ^= 1;
      break;  // a bit of the header
    case 2:
      bytes.resize(bytes.size() / 2);
      break;  // truncated
    case 3:
      bytes.resize(10);
      break;  // shorter than the prefix
    case 4:
      bytes.back() ^= 1;
      break;  // the checksum itself
    case 5:
      bytes.clear();
      break;  // empty file
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  auto loaded = cache.load(key);
  ASSERT_FALSE(loaded.isOk());
  EXPECT_EQ(loaded.status().code(), StatusCode::kDataLoss);
  EXPECT_FALSE(std::filesystem::exists(path));
  ASSERT_TRUE(cache.store(key, sampleKernel()).isOk());
  auto rebuilt = cache.load(key);
  ASSERT_TRUE(rebuilt.isOk()) << rebuilt.status().toString();
  expectSameKernel(*rebuilt, sampleKernel());
}

INSTANTIATE_TEST_SUITE_P(Damage, CorruptEntry, ::testing::Range(0, 6));

TEST(KernelCache, EveryMutationOfAnEntryIsRejected) {
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  const std::string entry = encodeCacheEntry(key, sampleKernel());
  std::mt19937 random(99);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes = entry;
    size_t at = random() % bytes.size();
    if (round % 2 == 0) {
      bytes[at] = static_cast<char>(bytes[at] ^ (1 + random() % 255));
    } else {
      bytes.resize(at);
    }
    EXPECT_FALSE(decodeCacheEntry(key, bytes).isOk()) << "round " << round;
  }
}

TEST(KernelCache, EntryUnderAnotherKeyIsRejected) {
  TempDir dir;
  KernelCache cache(dir.path());
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  CompileRequest other_request = sampleRequest();
  other_request.ttir += "\n";
  std::string other = kernelCacheKey(other_request, sampleCompiler());
  std::filesystem::create_directories(dir.path() + "/" + other.substr(0, 2));
  std::ofstream(cache.entryPath(other), std::ios::binary)
      << encodeCacheEntry(key, sampleKernel());
  EXPECT_EQ(cache.load(other).status().code(), StatusCode::kDataLoss);
}

TEST(AtomicFile, FailedWriteLeavesNoFileBehind) {
  TempDir dir;
  // The destination is a non-empty directory, so the final rename must fail
  // after the temporary file was fully written.
  std::string path = dir.path() + "/entry";
  std::filesystem::create_directories(path + "/occupied");
  Status status = writeFileAtomically(path, std::string(100000, 'x'));
  EXPECT_FALSE(status.isOk());
  EXPECT_TRUE(dir.files().empty()) << dir.files().front();
  EXPECT_FALSE(writeFileAtomically(dir.path() + "/missing/dir/file", "x").isOk());
  EXPECT_TRUE(dir.files().empty());
}

TEST(AtomicFile, ReplacesExistingFileWhole) {
  TempDir dir;
  std::string path = dir.path() + "/f";
  ASSERT_TRUE(writeFileAtomically(path, "old contents").isOk());
  ASSERT_TRUE(writeFileAtomically(path, "new").isOk());
  EXPECT_EQ(*readWholeFile(path), "new");
  EXPECT_EQ(dir.files(), std::vector<std::string>{"f"});
}

TEST(KernelCache, ConcurrentReadersNeverSeeAPartialEntry) {
  TempDir dir;
  KernelCache cache(dir.path());
  std::string key = kernelCacheKey(sampleRequest(), sampleCompiler());
  CompiledKernel big = sampleKernel();
  big.binary = std::string(256 << 10, 'b');
  std::atomic<bool> done{false};
  std::atomic<int> hits{0}, bad{0};
  std::thread reader([&] {
    while (!done) {
      auto loaded = cache.load(key);
      if (loaded.isOk()) {
        ++hits;
        if (loaded->binary != big.binary) ++bad;
      } else if (loaded.status().code() != StatusCode::kNotFound) {
        ++bad;
      }
    }
  });
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(cache.store(key, big).isOk());
  done = true;
  reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_TRUE(cache.load(key).isOk());
}

TEST(CacheDir, EnvironmentPrecedence) {
  auto env = [](std::map<std::string, std::string> vars) {
    return [vars](const char* name) -> std::optional<std::string> {
      auto it = vars.find(name);
      if (it == vars.end()) return std::nullopt;
      return it->second;
    };
  };
  EXPECT_EQ(
      *defaultCacheDir(env(
          {{"JAX_FLAGTREE_CACHE_DIR", "/c"}, {"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})),
      "/c");
  EXPECT_EQ(*defaultCacheDir(env({{"XDG_CACHE_HOME", "/x"}, {"HOME", "/h"}})),
            "/x/jax-flagtree");
  EXPECT_EQ(*defaultCacheDir(env({{"HOME", "/h"}})), "/h/.cache/jax-flagtree");
  EXPECT_EQ(defaultCacheDir(env({})).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace jft::kernel_compiler
