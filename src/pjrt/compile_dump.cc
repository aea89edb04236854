// CompileDump implementation.
#include "pjrt/compile_dump.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include "support/atomic_file.h"

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

StatusOr<std::string> CompileDump::write(std::string_view format,
                                         std::string_view program,
                                         std::string_view compile_options) {
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
  JFT_RETURN_IF_ERROR(writeFileAtomically(base + ".compile_options.pb", compile_options));
  return programPath;
}

}  // namespace jft::pjrt
