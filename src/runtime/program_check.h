// The structural checks a Program must pass before it is loaded, so that
// execution can index slots, kernels and arena offsets without looking again.
#pragma once

#include "runtime/program.h"
#include "support/status.h"

namespace jft::runtime {

// Temp slot offsets (and the arena's scratch regions) are multiples of this.
inline constexpr uint64_t kArenaAlignment = 256;

// OK or INVALID_ARGUMENT naming the program and the first fault found.
// `warp_size` bounds num_warps (a block holds at most 1024 threads).
Status checkProgram(const Program& program, int warp_size);

}  // namespace jft::runtime
