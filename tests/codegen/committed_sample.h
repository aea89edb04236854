// Kernels committed as samples (tests/codegen/matmul_ttir, conv_ttir): a
// test fails when the kernel it emits is no longer the committed one, so the
// CPU interpreter (run_matmul_ttir.py, run_conv_ttir.py) and the GPU compile
// check (tests/gpu/compile_ttir_dir.py) see what the emitter writes today.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "codegen/ttir/kernel.h"

namespace jft::codegen::ttir::testing {

// The kernel and its launch equal <dir>/<suite>_<test>.ttir and .json.
inline void expectCommitted(const std::string& dir, const TtirKernel& k) {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string base = dir + "/" + test->test_suite_name() + "_" + test->name();
  std::ifstream in(base + ".ttir"), launch(base + ".json");
  std::stringstream text, json;
  text << in.rdbuf();
  json << launch.rdbuf();
  EXPECT_EQ(text.str(), k.ttir) << "refresh " << base << ".ttir (see its README)";
  EXPECT_NE(
      json.str().find("\"grid\": [" + std::to_string(k.grid[0]) + ", " +
                      std::to_string(k.grid[1]) + ", " + std::to_string(k.grid[2]) + "]"),
      std::string::npos)
      << base << ".json: " << json.str();
}

}  // namespace jft::codegen::ttir::testing
