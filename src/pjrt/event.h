// PJRT_Event: a caller-owned handle on a shared runtime Event.
//
// Destroying the handle never cancels the work; several handles may share one
// runtime event (a buffer's ready event is handed out many times).
#pragma once

#include "pjrt/abi.h"
#include "runtime/event.h"

struct PJRT_Event {
  jft::runtime::EventPtr event;
};

namespace jft::pjrt {

PJRT_Event* wrapEvent(runtime::EventPtr event);

PJRT_Error* eventDestroy(PJRT_Event_Destroy_Args* args);
PJRT_Error* eventIsReady(PJRT_Event_IsReady_Args* args);
PJRT_Error* eventError(PJRT_Event_Error_Args* args);
PJRT_Error* eventAwait(PJRT_Event_Await_Args* args);
PJRT_Error* eventOnReady(PJRT_Event_OnReady_Args* args);
PJRT_Error* eventCreate(PJRT_Event_Create_Args* args);
PJRT_Error* eventSet(PJRT_Event_Set_Args* args);

}  // namespace jft::pjrt
