// KernelCompiler = cache + pool, against fake_worker.py.
#include "kernel_compiler/kernel_compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "fake_worker_command.h"
#include "support/atomic_file.h"
#include "temp_dir.h"

namespace jft::kernel_compiler {
namespace {

using testing::fakePoolOptions;
using testing::fakeTtir;
using testing::TempDir;

CompileRequest requestForKernel(const std::string& name, int num_warps = 4) {
  CompileRequest request;
  request.ttir = fakeTtir(name);
  request.target = {"cuda", "90", 32};
  request.options = {num_warps, 3, 1};
  return request;
}

// Lines the fake worker logged, one per real compile.
int compileCount(const std::string& log) {
  auto text = readWholeFile(log);
  if (!text.isOk()) return 0;
  return static_cast<int>(std::count(text->begin(), text->end(), '\n'));
}

std::unique_ptr<KernelCompiler> makeCompiler(const TempDir& dir, const std::string& log) {
  KernelCompilerOptions options;
  options.pool = fakePoolOptions(2, "", "", log);
  options.cache_dir = dir.path() + "/cache";
  auto compiler = KernelCompiler::create(options);
  EXPECT_TRUE(compiler.isOk()) << compiler.status().toString();
  return compiler.isOk() ? std::move(compiler).value() : nullptr;
}

TEST(KernelCompiler, SecondCompileIsACacheHitEvenInANewProcess) {
  TempDir dir;
  std::string log = dir.path() + "/compiles.log";
  {
    auto compiler = makeCompiler(dir, log);
    auto first = compiler->compile(requestForKernel("k"));
    ASSERT_TRUE(first.isOk()) << first.status().toString();
    EXPECT_FALSE(first->cache_hit);
    auto second = compiler->compile(requestForKernel("k"));
    ASSERT_TRUE(second.isOk());
    EXPECT_TRUE(second->cache_hit);
    EXPECT_EQ(second->binary, first->binary);
    EXPECT_EQ(second->params, first->params);
    EXPECT_EQ(compileCount(log), 1);
  }
  auto fresh = makeCompiler(dir, log);  // as after a restart of the user's program
  auto third = fresh->compile(requestForKernel("k"));
  ASSERT_TRUE(third.isOk());
  EXPECT_TRUE(third->cache_hit);
  EXPECT_EQ(compileCount(log), 1);
}

TEST(KernelCompiler, DifferentOptionsCompileSeparately) {
  TempDir dir;
  std::string log = dir.path() + "/compiles.log";
  auto compiler = makeCompiler(dir, log);
  ASSERT_TRUE(compiler->compile(requestForKernel("k", 4)).isOk());
  auto eight = compiler->compile(requestForKernel("k", 8));
  ASSERT_TRUE(eight.isOk());
  EXPECT_FALSE(eight->cache_hit);
  EXPECT_EQ(eight->num_warps, 8);
  EXPECT_EQ(compileCount(log), 2);
}

TEST(KernelCompiler, CorruptEntryIsRebuilt) {
  TempDir dir;
  std::string log = dir.path() + "/compiles.log";
  auto compiler = makeCompiler(dir, log);
  auto first = compiler->compile(requestForKernel("k"));
  ASSERT_TRUE(first.isOk());
  auto identity = compiler->compilerIdentity();
  ASSERT_TRUE(identity.isOk());
  std::string path =
      compiler->cache().entryPath(kernelCacheKey(requestForKernel("k"), *identity));
  ASSERT_TRUE(std::filesystem::exists(path));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 7);

  auto rebuilt = compiler->compile(requestForKernel("k"));
  ASSERT_TRUE(rebuilt.isOk()) << rebuilt.status().toString();
  EXPECT_FALSE(rebuilt->cache_hit);
  EXPECT_EQ(rebuilt->binary, first->binary);
  EXPECT_EQ(compileCount(log), 2);
  auto hit = compiler->compile(requestForKernel("k"));
  ASSERT_TRUE(hit.isOk());
  EXPECT_TRUE(hit->cache_hit);
}

TEST(KernelCompiler, CompileAllMixesHitsAndMisses) {
  TempDir dir;
  std::string log = dir.path() + "/compiles.log";
  auto compiler = makeCompiler(dir, log);
  ASSERT_TRUE(compiler->compile(requestForKernel("b")).isOk());
  auto results = compiler->compileAll(
      {requestForKernel("a"), requestForKernel("b"), requestForKernel("c")});
  ASSERT_EQ(results.size(), 3u);
  for (auto& r : results) ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_EQ(results[0]->name, "a");
  EXPECT_FALSE(results[0]->cache_hit);
  EXPECT_TRUE(results[1]->cache_hit);
  EXPECT_FALSE(results[2]->cache_hit);
  EXPECT_EQ(compileCount(log), 3);
}

TEST(KernelCompiler, FailuresAreNotCachedAndDumpIntoTheCacheDir) {
  TempDir dir;
  std::string log = dir.path() + "/compiles.log";
  auto compiler = makeCompiler(dir, log);
  CompileRequest bad = requestForKernel("bad");
  bad.ttir = "// FAKE: error no\n" + bad.ttir;
  auto failed = compiler->compile(bad);
  ASSERT_FALSE(failed.isOk());
  EXPECT_NE(failed.status().message().find(dir.path() + "/cache/failed-"),
            std::string::npos)
      << failed.status().message();
  EXPECT_FALSE(compiler->compile(bad).isOk());
}

TEST(KernelCompiler, DisabledCacheAlwaysCompiles) {
  TempDir dir;
  std::string log = dir.path() + "/compiles.log";
  KernelCompilerOptions options;
  options.pool = fakePoolOptions(1, "", "", log);
  options.cache_dir = dir.path() + "/cache";
  options.use_cache = false;
  auto compiler = KernelCompiler::create(options);
  ASSERT_TRUE(compiler.isOk());
  ASSERT_TRUE((*compiler)->compile(requestForKernel("k")).isOk());
  ASSERT_TRUE((*compiler)->compile(requestForKernel("k")).isOk());
  EXPECT_EQ(compileCount(log), 2);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/cache"));
}

}  // namespace
}  // namespace jft::kernel_compiler
