// The zoo fixtures for the IR tests: where they live ($JFT_FIXTURE_DIR, else
// the path CMake compiled in), their names, and each program imported.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "frontend/vhlo/import.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::ir::testing {

inline std::filesystem::path zooDir() {
  const char* env = std::getenv("JFT_FIXTURE_DIR");
  return std::filesystem::path(env && *env ? env : JFT_FIXTURE_DIR);
}

inline std::string readZooFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The fixture folders that hold a program.mlirbc, sorted.
inline std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(zooDir()))
    if (std::filesystem::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

inline StatusOr<Module> importFixture(const std::string& name) {
  const std::string bytes = readZooFile(zooDir() / name / "program.mlirbc");
  return frontend::importStableHlo(reinterpret_cast<const uint8_t*>(bytes.data()),
                                   bytes.size());
}

}  // namespace jft::ir::testing
