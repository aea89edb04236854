// CompileDump: writes each program the plugin receives, with its compile
// options, into the `--xla_dump_to` directory so real inputs can be captured.
//
// Files: `<prefix>.<format>` (the program bytes as received; "mlir" programs are
// StableHLO portable artifacts) and `<prefix>.compile_options.pb` (the
// serialized CompileOptionsProto). Each file is written atomically
// (support/atomic_file.h), so a reader never sees half a file.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "support/status.h"

namespace jft::pjrt {

class CompileDump {
 public:
  explicit CompileDump(std::string directory) : directory_(std::move(directory)) {}

  bool enabled() const { return !directory_.empty(); }
  // Returns the path of the program file written.
  StatusOr<std::string> write(std::string_view format, std::string_view program,
                              std::string_view compile_options);

 private:
  std::string directory_;
  std::atomic<int> next_{0};
};

}  // namespace jft::pjrt
