// ClientOptions: the create options JAX passes to PJRT_Client_Create.
//
// Our Python registration passes `python_executable` and `worker_module` (used to
// start compile workers); JAX adds its own (`visible_devices`, allocator knobs,
// `platform_name`). Options we do not use are collected in `ignored` so the
// client can say so once, never failing on them.
#pragma once

#include <string>
#include <vector>

#include "pjrt/abi.h"
#include "support/status.h"

namespace jft::pjrt {

struct ClientOptions {
  std::string pythonExecutable;
  std::string workerModule;
  std::vector<int> visibleDevices;  // empty: every GPU
  std::vector<std::string> ignored;
};

// INVALID_ARGUMENT for malformed entries (null name, wrong value type for a known
// option, negative device ordinal).
StatusOr<ClientOptions> parseClientOptions(const PJRT_NamedValue* options, size_t count);

}  // namespace jft::pjrt
