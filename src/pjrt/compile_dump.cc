// CompileDump implementation.
#include "pjrt/compile_dump.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace jft::pjrt {
namespace {

// Keeps only characters that are safe in a file name.
std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '_' || c == '-';
    out.push_back(safe ? c : '_');
  }
  return out.empty() ? "unknown" : out;
}

}  // namespace

Status writeFileAtomically(const std::string& path, std::string_view bytes) {
  std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) return unavailable("cannot open " + temporary + " for writing");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(temporary.c_str());
      return unavailable("cannot write " + temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return unavailable("cannot rename " + temporary + " to " + path);
  }
  return Status::ok();
}

StatusOr<std::string> CompileDump::write(std::string_view format,
                                         std::string_view program,
                                         std::string_view compileOptions) {
  std::error_code error;
  std::filesystem::create_directories(directory_, error);
  if (error)
    return unavailable("cannot create dump directory " + directory_ + ": " +
                       error.message());
  char prefix[64];
  std::snprintf(prefix, sizeof(prefix), "jft_module_%d_%04d",
                static_cast<int>(::getpid()), next_.fetch_add(1));
  std::string base = (std::filesystem::path(directory_) / prefix).string();
  std::string programPath = base + "." + sanitize(format);
  JFT_RETURN_IF_ERROR(writeFileAtomically(programPath, program));
  JFT_RETURN_IF_ERROR(writeFileAtomically(base + ".compile_options.pb", compileOptions));
  return programPath;
}

}  // namespace jft::pjrt
