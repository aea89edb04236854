// Every PJRT entry point we implement, declared from the one table of slots
// (api_slots.def), so a slot and the function that fills it are named once.
// What each entry point does is told where it is defined.
#pragma once

#include "pjrt/abi.h"
#include "pjrt/abi_buffers.h"
#include "pjrt/abi_dlpack.h"
#include "pjrt/abi_executable.h"
#include "pjrt/abi_ffi.h"

namespace jft::pjrt {

#define JFT_PJRT_SLOT(name, function) PJRT_Error* function(PJRT_##name##_Args* args);
#define JFT_PJRT_VOID_SLOT(name, function) void function(PJRT_##name##_Args* args);
#define JFT_PJRT_STUB(name)
#include "pjrt/api_slots.def"
#undef JFT_PJRT_STUB
#undef JFT_PJRT_VOID_SLOT
#undef JFT_PJRT_SLOT

}  // namespace jft::pjrt
