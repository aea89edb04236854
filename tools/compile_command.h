// `jft compile [options] FILE.mlirbc`: runs the compiler pipeline offline and
// prints a stage (IR after passes, fusion plan, TTIR) or the route report.
// By default it stops after TTIR; --binaries also compiles the kernels
// through the Python worker (needs a Python with triton/FlagTree).
// Exit status: 0 ok, 1 compile error (message on stderr), 2 usage.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

namespace jft::tools {

int runCompile(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace jft::tools
