// `jft native [options] FILE.mlirbc`: the native route's CUDA C for each loop
// and reduction group of a program (import, IR passes, fusion plan, then the
// native emitter), with each kernel's parameters and launch; --json also
// carries the TTIR route's kernel of the same group, for comparing the two
// on a GPU (tests/gpu/test_native_emitter.py).
// Exit status: 0 ok (refused groups are listed, not errors), 1 the file
// cannot be read or imported (or a kernel does not compile under
// --compile), 2 usage.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

namespace jft::tools {

int runNative(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace jft::tools
