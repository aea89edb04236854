// Next to each kernel emitWhole dumps under JFT_TTIR_DUMP_DIR, the launch it
// needs (<suite>_<test>.json: grid and num_warps), so a GPU script can run
// the kernel exactly as the runtime would (tests/codegen/run_indexing_check.py).
// emitWhole writes it itself (a .ttir without its .json once broke
// run_complex_check.py); a test calling this as well rewrites the same text.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "codegen/ttir/kernel.h"

namespace jft::codegen::ttir::testing {

inline void dumpLaunch(const TtirKernel& kernel) {
  const char* dump = std::getenv("JFT_TTIR_DUMP_DIR");
  if (!dump || !*dump) return;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::filesystem::create_directories(dump);
  std::ofstream(std::string(dump) + "/" + test->test_suite_name() + "_" + test->name() +
                ".json")
      << "{\"grid\": [" << kernel.grid[0] << ", " << kernel.grid[1] << ", "
      << kernel.grid[2] << "], \"num_warps\": " << kernel.num_warps << "}\n";
}

}  // namespace jft::codegen::ttir::testing
