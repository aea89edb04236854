// DLPack exchange at the PJRT boundary: PJRT_Client_CreateViewOfDeviceBuffer
// (a buffer over memory another framework owns, never freed by us; its owner's
// callback runs once when the buffer goes and our queued reads are done) and
// the stream extension JAX orders producer and consumer streams through
// (the device's stream for external ready events; a foreign stream waiting
// until a buffer is ready).
#pragma once

#include "pjrt/abi.h"
#include "pjrt/abi_dlpack.h"

namespace jft::pjrt {

// The stream extension; `next` links the rest of the chain. Lives as long as
// the process.
PJRT_Extension_Base* streamExtension(PJRT_Extension_Base* next);

}  // namespace jft::pjrt
