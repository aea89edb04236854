// Donated parameters (input_output_alias): which output may take over which
// parameter's memory.
//
// JAX marks a donated argument of the entry function with
// `tf.aliasing_output = i` (output i reuses it) or, when it leaves the choice
// to the compiler, `jax.buffer_donor = true` (we take the first unclaimed
// output of the same size). An alias is granted only where running in place
// cannot change a result: every thunk that reads the parameter runs before
// the first thunk that writes the output, or the output is a copy of that
// very parameter (the runtime skips a copy onto itself) and every read of the
// parameter runs before the next thunk touching the output (a loop carrying
// the value in the output slot). A loop or conditional reads and writes what
// the thunks of its lists do. A collective reads its input and writes its
// output in one thunk, so a parameter it reads never lends its memory to
// what it writes (NCCL's in-place all_reduce is not used). Otherwise the output keeps its
// own memory (correct, only less frugal: a kernel that reads the parameter and writes the
// output could be in place, but only an emitter could promise that its index maps allow
// it).
#pragma once

#include <vector>

#include "ir/module.h"
#include "runtime/program.h"

namespace jft::compiler {

inline constexpr int kAnyOutput = -2;

// Per parameter: the output index it donates to, kAnyOutput, or -1.
std::vector<int> donationRequests(const ir::Function& function);

// Fills program.output_aliases (one entry per output, -1 where none) from the
// requests and the program's thunks; the slots must be assembled.
void assignOutputAliases(const std::vector<int>& requests, runtime::Program& program);

}  // namespace jft::compiler
