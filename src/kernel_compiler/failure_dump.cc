#include "kernel_compiler/failure_dump.h"

#include "support/atomic_file.h"
#include "kernel_compiler/sha256.h"

namespace jft::kernel_compiler {

StatusOr<std::string> dumpFailedCompile(const std::string& dir,
                                        const CompileRequest& request,
                                        const Status& error) {
  JFT_RETURN_IF_ERROR(makeDirectories(dir));
  std::string description =
      "target: " + request.target.backend + " " + request.target.arch +
      " warp_size=" + std::to_string(request.target.warp_size) + "\n" +
      "options: num_warps=" + std::to_string(request.options.num_warps) +
      " num_stages=" + std::to_string(request.options.num_stages) +
      " num_ctas=" + std::to_string(request.options.num_ctas) + "\n";
  std::string stem =
      dir + "/failed-" + sha256Hex(request.ttir + "\n" + description).substr(0, 16);
  JFT_RETURN_IF_ERROR(writeFileAtomically(stem + ".ttir", request.ttir));
  JFT_RETURN_IF_ERROR(writeFileAtomically(
      stem + ".txt", description + "error: " + error.toString() + "\n"));
  return stem + ".ttir";
}

Status withFailureDump(const std::string& dir, const CompileRequest& request,
                       Status error) {
  if (dir.empty()) return error;
  auto path = dumpFailedCompile(dir, request, error);
  std::string note = path.isOk()
                         ? " (TTIR dumped to " + *path + ")"
                         : " (could not dump the TTIR: " + path.status().message() + ")";
  return Status(error.code(), error.message() + note);
}

}  // namespace jft::kernel_compiler
