// A test fixture with a kernel compiler whose two workers run the fake
// worker (the real protocol, a fake Triton), its cache and failure dumps in a
// fresh temporary folder per test, removed afterwards. Needs JFT_FAKE_WORKER.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "kernel_compiler/fake_worker_command.h"
#include "kernel_compiler/kernel_compiler.h"

namespace jft::compiler::testing {

class FakeCompilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           ("jft_" + std::string(test->test_suite_name()) + "_" + test->name() + "_" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    kernel_compiler::KernelCompilerOptions options;
    options.pool =
        kernel_compiler::testing::fakePoolOptions(2, (dir_ / "failures").string());
    options.cache_dir = (dir_ / "cache").string();
    auto made = kernel_compiler::KernelCompiler::create(std::move(options));
    ASSERT_TRUE(made.isOk()) << made.status().toString();
    compiler_ = std::move(made).value();
  }
  void TearDown() override {
    compiler_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;
  std::unique_ptr<kernel_compiler::KernelCompiler> compiler_;
};

}  // namespace jft::compiler::testing
