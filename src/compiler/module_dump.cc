// Per-module dump folder.
#include "compiler/module_dump.h"

#include <filesystem>

#include "support/atomic_file.h"

namespace jft::compiler {
namespace {

std::string sanitize(std::string_view text) {
  std::string out;
  for (char c : text) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    out.push_back(safe ? c : '_');
  }
  if (out.empty() || out == "." || out == "..") out = "module";
  return out;
}

}  // namespace

ModuleDump::ModuleDump(const std::string& dump_dir, std::string_view module_name,
                       std::string_view fingerprint) {
  if (dump_dir.empty()) return;
  std::string folder = sanitize(module_name.empty() ? "module" : module_name) + "_" +
                       sanitize(fingerprint.substr(0, 12));
  directory_ = (std::filesystem::path(dump_dir) / folder).string();
}

Status ModuleDump::write(std::string_view file, std::string_view bytes) const {
  if (!enabled()) return Status::ok();
  JFT_RETURN_IF_ERROR(makeDirectories(directory_));
  return writeFileAtomically(
      (std::filesystem::path(directory_) / sanitize(file)).string(), bytes);
}

}  // namespace jft::compiler
