// Writes the TTIR of a failed compile next to its error message, so that a
// crash in the compiler can be reproduced from the files alone.
#pragma once

#include <string>

#include "kernel_compiler/compile_types.h"
#include "support/status.h"

namespace jft::kernel_compiler {

// Writes DIR/failed-<hash>.ttir (the request's TTIR) and DIR/failed-<hash>.txt
// (target, options, error). Returns the .ttir path. <hash> covers the TTIR
// and the target, so repeated failures of one kernel overwrite one pair.
StatusOr<std::string> dumpFailedCompile(const std::string& dir,
                                        const CompileRequest& request,
                                        const Status& error);

// The error with " (TTIR dumped to PATH)" appended, or with the reason the
// dump failed; unchanged when dir is empty.
Status withFailureDump(const std::string& dir, const CompileRequest& request,
                       Status error);

}  // namespace jft::kernel_compiler
