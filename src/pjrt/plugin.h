// Plugin-level facts: the StableHLO versions that the attributes JAX reads
// before it creates a client (PJRT_Plugin_Attributes) advertise.
#pragma once

#include "pjrt/abi.h"

namespace jft::pjrt {

// StableHLO versions our reader accepts; JAX serialises to the current one.
inline constexpr int64_t kStablehloCurrent[3] = {1, 20, 0};
inline constexpr int64_t kStablehloMinimum[3] = {1, 0, 0};

}  // namespace jft::pjrt
