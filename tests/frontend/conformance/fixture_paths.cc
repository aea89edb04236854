#include "fixture_paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace jft::conformance {

std::string fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

std::vector<std::string> fixtureNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(fixtureDir(), ec))
    if (std::filesystem::exists(entry.path() / "program.mlirbc"))
      names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string fixturePath(const std::string& fixture, const std::string& file) {
  return fixtureDir() + "/" + fixture + "/" + file;
}

}  // namespace jft::conformance
