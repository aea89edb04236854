// Custom calls of a loaded executable (Executable::FfiCall), private to
// runtime/executable.cc and runtime/ffi_call.cc.
#pragma once

#include <string>

#include "support/status.h"

namespace jft::runtime {

// The error for a target no handler is registered for: what, where, and
// what the user can do.
Status missingFfiHandler(const std::string& target, const std::string& location);

}  // namespace jft::runtime
