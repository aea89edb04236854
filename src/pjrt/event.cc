// Event entry points.
#include "pjrt/event.h"

#include "pjrt/args.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt {

PJRT_Event* wrapEvent(runtime::EventPtr event) {
  return new PJRT_Event{std::move(event)};
}

PJRT_Error* eventDestroy(PJRT_Event_Destroy_Args* args) {
  return boundary("PJRT_Event_Destroy", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Event_Destroy_Args, event), "PJRT_Event_Destroy"));
    delete args->event;
    return Status::ok();
  });
}

#define JFT_EVENT_ENTRY(Function, Name, lastField, ...)   \
  JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, event, \
                        runtime::Event& event = *args->event->event, __VA_ARGS__)

JFT_EVENT_ENTRY(eventIsReady, Event_IsReady, is_ready, args->is_ready = event.isReady())
// The event's own failure is the *result* here, so it is returned as the error.
JFT_EVENT_ENTRY(eventError, Event_Error, event, {
  if (!event.isReady())
    return failedPrecondition("PJRT_Event_Error: the event is not ready yet");
  return event.status();
})
JFT_EVENT_ENTRY(eventAwait, Event_Await, event, return event.await())
#undef JFT_EVENT_ENTRY

PJRT_Error* eventOnReady(PJRT_Event_OnReady_Args* args) {
  return boundary("PJRT_Event_OnReady", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(args,
                                  JFT_PJRT_SIZE_UP_TO(PJRT_Event_OnReady_Args, user_arg),
                                  "PJRT_Event_OnReady"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->event, "event", "PJRT_Event_OnReady"));
    if (args->callback == nullptr)
      return invalidArgument("PJRT_Event_OnReady: callback is null");
    PJRT_Event_OnReadyCallback callback = args->callback;
    void* userArg = args->user_arg;
    args->event->event->onReady([callback, userArg](const Status& status) {
      callback(toPjrtError(status), userArg);
    });
    return Status::ok();
  });
}

PJRT_Error* eventCreate(PJRT_Event_Create_Args* args) {
  return boundary("PJRT_Event_Create", [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Event_Create_Args, event), "PJRT_Event_Create"));
    args->event = wrapEvent(runtime::Event::create());
    return Status::ok();
  });
}

PJRT_Error* eventSet(PJRT_Event_Set_Args* args) {
  return boundary("PJRT_Event_Set", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_Event_Set_Args, error_message_size),
                  "PJRT_Event_Set"));
    JFT_RETURN_IF_ERROR(requireNonNull(args->event, "event", "PJRT_Event_Set"));
    if (args->error_code < PJRT_Error_Code_OK ||
        args->error_code > PJRT_Error_Code_UNAUTHENTICATED)
      return invalidArgument("PJRT_Event_Set: unknown error code " +
                             std::to_string(args->error_code));
    if (args->error_code == PJRT_Error_Code_OK) {
      args->event->event->complete(Status::ok());
      return Status::ok();
    }
    if (args->error_message == nullptr && args->error_message_size > 0)
      return invalidArgument("PJRT_Event_Set: error_message is null");
    std::string message(args->error_message != nullptr ? args->error_message : "",
                        args->error_message_size);
    args->event->event->complete(
        Status(fromPjrtCode(args->error_code), std::move(message)));
    return Status::ok();
  });
}

}  // namespace jft::pjrt
