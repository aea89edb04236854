#include "read_file.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace jft::tools {

StatusOr<std::vector<uint8_t>> readFileBytes(const std::string& path) {
  if (path == "-") {
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(std::cin)),
                               std::istreambuf_iterator<char>());
    if (std::cin.bad())
      return Status(StatusCode::kDataLoss, "standard input: read failed");
    return bytes;
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return notFound(path + ": no such file");
  if (std::filesystem::is_directory(path, ec))
    return invalidArgument(path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) return notFound(path + ": cannot open for reading");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) return Status(StatusCode::kDataLoss, path + ": read failed");
  return bytes;
}

}  // namespace jft::tools
