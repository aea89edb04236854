// Reading zoo fixtures: the artifact and the .npy inputs/outputs (whose data
// sizes are the independent reference for parameter and output buffers).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

namespace jft::compiler::testing {

inline std::filesystem::path fixtureDir() {
  if (const char* env = std::getenv("JFT_FIXTURE_DIR"); env && *env) return env;
  return JFT_FIXTURE_DIR;
}

inline std::string readBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string zooArtifact(const std::string& name) {
  return readBytes(fixtureDir() / name / "program.mlirbc");
}

// The shape in an .npy header ("'shape': (8, 6), "); nullopt when unreadable.
// Shapes, not byte sizes: JAX's fixtures store bf16 arrays as f32.
inline std::optional<std::vector<int64_t>> npyShape(const std::filesystem::path& path) {
  std::string b = readBytes(path);
  if (b.compare(0, 6, "\x93NUMPY") != 0) return std::nullopt;
  size_t key = b.find("'shape':");
  size_t open = b.find('(', key);
  size_t close = b.find(')', open);
  if (key == std::string::npos || open == std::string::npos || close == std::string::npos)
    return std::nullopt;
  std::vector<int64_t> dims;
  std::string inside = b.substr(open + 1, close - open - 1);
  for (size_t at = 0; at < inside.size();) {
    size_t digit = inside.find_first_of("0123456789", at);
    if (digit == std::string::npos) break;
    size_t stop = inside.find_first_not_of("0123456789", digit);
    dims.push_back(std::stoll(inside.substr(digit, stop - digit)));
    at = stop == std::string::npos ? inside.size() : stop;
  }
  return dims;
}

// Shapes of in0.npy, in1.npy, ... (or out*), in order.
inline std::vector<std::vector<int64_t>> npyShapes(const std::string& name,
                                                   const std::string& prefix) {
  std::vector<std::vector<int64_t>> shapes;
  for (int i = 0;; ++i) {
    auto path = fixtureDir() / name / (prefix + std::to_string(i) + ".npy");
    if (!std::filesystem::exists(path)) break;
    shapes.push_back(npyShape(path).value_or(std::vector<int64_t>{-1}));
  }
  return shapes;
}

}  // namespace jft::compiler::testing
