// PJRT_Error: a status with a function table in front.
#include "pjrt/error.h"

#include <cstdio>
#include <cstdlib>
#include <new>

#include "pjrt/args.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt {
namespace {

struct ErrorObject {
  PJRT_Error base;  // must stay first: callers see only this
  PJRT_Error_Code code;
  std::string message;
};

const ErrorObject* unwrap(const PJRT_Error* error) {
  return reinterpret_cast<const ErrorObject*>(error);
}

void destroyError(PJRT_Error* error) {
  delete reinterpret_cast<ErrorObject*>(error);
}

void errorText(const PJRT_Error* error, const char** message, size_t* size) {
  *message = unwrap(error)->message.c_str();
  *size = unwrap(error)->message.size();
}

PJRT_Error_Code errorCode(const PJRT_Error* error) {
  return unwrap(error)->code;
}

void visitNoPayload(const PJRT_Error*, PJRT_Error_PayloadVisitor, void*) {}

constexpr PJRT_Error_FunctionTable kErrorTable = {
    sizeof(PJRT_Error_FunctionTable),
    sizeof(ErrorObject),
    nullptr,
    &destroyError,
    &errorText,
    &errorCode,
    &visitNoPayload,
};

}  // namespace

bool traceCalls() {
  static const bool enabled = [] {
    const char* value = std::getenv("JFT_PJRT_TRACE");
    return value != nullptr && value[0] != '\0' && value[0] != '0';
  }();
  return enabled;
}

void traceCall(const char* function) {
  std::fprintf(stderr, "pjrt: %s\n", function);
}

PJRT_Error_Code toPjrtCode(StatusCode code) {
  return static_cast<PJRT_Error_Code>(code);
}
StatusCode fromPjrtCode(PJRT_Error_Code code) {
  return static_cast<StatusCode>(code);
}

PJRT_Error* toPjrtError(const Status& status) {
  if (status.isOk()) return nullptr;
  auto* error = new (std::nothrow)
      ErrorObject{{&kErrorTable}, toPjrtCode(status.code()), status.message()};
  return error != nullptr ? &error->base : nullptr;
}

Status toStatus(const PJRT_Error* error) {
  if (error == nullptr) return Status::ok();
  return Status(fromPjrtCode(unwrap(error)->code), unwrap(error)->message);
}

// Error_Destroy and Error_Message return nothing, so bad arguments can only be
// ignored; a null error is explicitly allowed.
void errorDestroy(PJRT_Error_Destroy_Args* args) {
  if (args == nullptr ||
      args->struct_size < JFT_ABI_SIZE_UP_TO(PJRT_Error_Destroy_Args, error))
    return;
  if (args->error != nullptr) args->error->vtable->destroy(args->error);
}

void errorMessage(PJRT_Error_Message_Args* args) {
  if (args == nullptr ||
      args->struct_size < JFT_ABI_SIZE_UP_TO(PJRT_Error_Message_Args, message_size))
    return;
  if (args->error == nullptr) {
    args->message = "";
    args->message_size = 0;
    return;
  }
  errorText(args->error, &args->message, &args->message_size);
}

JFT_PJRT_ENTRY(errorGetCode, Error_GetCode, code, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->error, "error", kName));
  args->code = errorCode(args->error);
})

JFT_PJRT_ENTRY(errorForEachPayload, Error_ForEachPayload, user_arg,
               { return requireNonNull(args->error, "error", kName); })

}  // namespace jft::pjrt
