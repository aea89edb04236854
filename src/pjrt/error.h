// Errors at the C boundary: internal Status becomes PJRT_Error here and only here.
//
// Our error object begins with the 0.107 function table, so callers may use it
// either through the API table or directly.
#pragma once

#include <string>

#include "pjrt/abi.h"
#include "support/status.h"

namespace jft::pjrt {

// Null for an OK status.
PJRT_Error* toPjrtError(const Status& status);
// OK for null; the error itself is left to its owner.
Status toStatus(const PJRT_Error* error);

PJRT_Error_Code toPjrtCode(StatusCode code);
StatusCode fromPjrtCode(PJRT_Error_Code code);

}  // namespace jft::pjrt
