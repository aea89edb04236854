// Plugin-level entry points: initialisation and the attributes JAX reads before
// it creates a client (version of the StableHLO it may send us).
#pragma once

#include "pjrt/abi.h"

namespace jft::pjrt {

// StableHLO versions our reader accepts; JAX serialises to the current one.
inline constexpr int64_t kStablehloCurrent[3] = {1, 20, 0};
inline constexpr int64_t kStablehloMinimum[3] = {1, 0, 0};

PJRT_Error* pluginInitialize(PJRT_Plugin_Initialize_Args* args);
PJRT_Error* pluginAttributes(PJRT_Plugin_Attributes_Args* args);

}  // namespace jft::pjrt
