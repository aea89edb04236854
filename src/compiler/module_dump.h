// --xla_dump_to: what the pipeline saw and made for one module, in one
// folder `<dir>/<module name>_<first 12 hex digits of the fingerprint>/`:
// input.mlirbc, ir_imported.txt, passes.txt, ir_after_passes.txt, plan.txt,
// <kernel>.ttir, route_report.txt. Each file is written to a temporary name
// and renamed, so a reader never sees half a file.
#pragma once

#include <string>
#include <string_view>

#include "support/status.h"

namespace jft::compiler {

class ModuleDump {
 public:
  ModuleDump() = default;  // disabled
  ModuleDump(const std::string& dump_dir, std::string_view module_name,
             std::string_view fingerprint);

  bool enabled() const { return !directory_.empty(); }
  const std::string& directory() const { return directory_; }
  // `file` is a plain name; characters unsafe in file names become '_'.
  Status write(std::string_view file, std::string_view bytes) const;

 private:
  std::string directory_;
};

}  // namespace jft::compiler
