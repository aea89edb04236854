// Event entry points.
#include "pjrt/event.h"

#include "pjrt/args.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt {

PJRT_Event* wrapEvent(runtime::EventPtr event) {
  return new PJRT_Event{std::move(event)};
}

JFT_PJRT_ENTRY(eventDestroy, Event_Destroy, event, { delete args->event; })

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

JFT_PJRT_ENTRY(eventOnReady, Event_OnReady, user_arg, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->event, "event", kName));
  if (args->callback == nullptr)
    return invalidArgument("PJRT_Event_OnReady: callback is null");
  PJRT_Event_OnReadyCallback callback = args->callback;
  void* userArg = args->user_arg;
  args->event->event->onReady([callback, userArg](const Status& status) {
    callback(toPjrtError(status), userArg);
  });
})

JFT_PJRT_ENTRY(eventCreate, Event_Create, event,
               { args->event = wrapEvent(runtime::Event::create()); })

JFT_PJRT_ENTRY(eventSet, Event_Set, error_message_size, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->event, "event", kName));
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
})

}  // namespace jft::pjrt
