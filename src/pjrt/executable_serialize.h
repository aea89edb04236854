// Loading a serialized executable (executable_blob.h) on a client: the
// program is placed by the compile options (the caller's overriding ones, else
// those it was compiled with), must have been built for the placed device's
// target, and is loaded on each of this process's participants, with no
// compile and no kernel worker.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "pjrt/executable.h"

namespace jft::pjrt {

// Errors name why the bytes were refused (executable_blob.h), or
// FAILED_PRECONDITION when the placed device's target differs, the options
// ask for another number of replicas or partitions, or a library the program
// calls cannot be readied on a device.
StatusOr<std::unique_ptr<PJRT_LoadedExecutable>> deserializeAndLoad(
    PJRT_Client& client, std::string_view bytes,
    std::optional<std::string_view> overriddenOptions, ProgramLoader loader);

}  // namespace jft::pjrt
