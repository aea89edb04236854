// Compile entry points.
//
// PJRT_Client_Compile: validates the program, dumps it with its compile options
// when `--xla_dump_to` is set, runs the compiler pipeline (src/compiler) with the
// client's settings and kernel compiler, and loads the result on its device.
// Only StableHLO ("mlir") programs on one device are accepted.
// PJRT_Compile (compile without a client's devices) dumps and answers
// UNIMPLEMENTED.
#pragma once

#include <string>

#include "compiler/compile_artifact.h"
#include "pjrt/abi.h"

namespace jft::pjrt {

// The target a program is built for on `device` (backend, arch from its
// compute capability, warp size), and its text as a serialized executable
// records it ("cuda 90 warp 32").
compiler::KernelTarget deviceTarget(const PJRT_Client& client, const PJRT_Device& device);
std::string targetText(const compiler::KernelTarget& target);

}  // namespace jft::pjrt
