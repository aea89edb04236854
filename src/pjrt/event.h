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

}  // namespace jft::pjrt
