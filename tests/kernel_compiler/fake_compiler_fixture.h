// A test fixture with a kernel compiler whose two workers run the fake
// worker (the real protocol, a fake Triton), its cache and failure dumps in a
// fresh temporary folder per test, removed afterwards. `Base` is the gtest
// fixture it extends (::testing::Test, or TestWithParam<...> for
// parameterised tests). Needs JFT_FAKE_WORKER.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "kernel_compiler/fake_worker_command.h"
#include "kernel_compiler/kernel_compiler.h"

namespace jft::kernel_compiler::testing {

template <typename Base = ::testing::Test>
class FakeCompilerFixture : public Base {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("jft_") + test->test_suite_name() + "_" +
                       test->name() + "_" + std::to_string(::getpid());
    for (char& c : name)
      if (c == '/') c = '_';
    dir_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir_);
    KernelCompilerOptions options;
    options.pool = fakePoolOptions(2, (dir_ / "failures").string());
    options.cache_dir = (dir_ / "cache").string();
    auto made = KernelCompiler::create(std::move(options));
    ASSERT_TRUE(made.isOk()) << made.status().toString();
    compiler_ = std::move(made).value();
  }
  void TearDown() override {
    compiler_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::unique_ptr<KernelCompiler> compiler_;
};

}  // namespace jft::kernel_compiler::testing
