// The XLA_FFI_Api table. Every entry checks its args' struct_size against the
// fields it reads and answers with an error object, never a crash.
#include "ffi/api.h"

#include <cstddef>
#include <cstring>
#include <string>

#include "ffi/execution_context.h"
#include "ffi/registry.h"

namespace jft::ffi {
namespace {

template <typename Args>
Status checkArgs(const Args* args, size_t needed, const char* function) {
  if (args == nullptr) return invalidArgument(std::string(function) + ": null arguments");
  if (args->struct_size < needed)
    return invalidArgument(std::string(function) + ": struct_size " +
                           std::to_string(args->struct_size) + " is smaller than " +
                           std::to_string(needed));
  return Status::ok();
}

#define JFT_FFI_CHECK(args, type, last, function)                                      \
  if (Status s = checkArgs(args, JFT_ABI_SIZE_UP_TO(type, last), function); !s.isOk()) \
  return toFfiError(s)

Status needContext(XLA_FFI_ExecutionContext* ctx, const char* function) {
  if (ctx == nullptr)
    return failedPrecondition(std::string(function) +
                              ": the call has no execution context");
  return Status::ok();
}

// JFT_FFI_CHECK for the entries that work in the call's execution context:
// the arguments checked, then a context required.
template <typename Args>
Status checkArgsInContext(const Args* args, size_t needed, const char* function) {
  JFT_RETURN_IF_ERROR(checkArgs(args, needed, function));
  return needContext(args->ctx, function);
}

#define JFT_FFI_CHECK_IN_CONTEXT(args, type, last, function)                         \
  if (Status s = checkArgsInContext(args, JFT_ABI_SIZE_UP_TO(type, last), function); \
      !s.isOk())                                                                     \
  return toFfiError(s)

// The getters that hand a handler one field of its execution context: the
// arguments checked up to `out`, a context required, the field copied.
template <auto kOut, auto kIn, typename Args>
XLA_FFI_Error* contextField(Args* args, size_t size_up_to_out, const char* function) {
  if (Status s = checkArgsInContext(args, size_up_to_out, function); !s.isOk())
    return toFfiError(s);
  args->*kOut = args->ctx->*kIn;
  return nullptr;
}

XLA_FFI_Error* errorCreate(XLA_FFI_Error_Create_Args* args) {
  if (args == nullptr)
    return toFfiError(invalidArgument("XLA_FFI_Error_Create: null args"));
  const int code = static_cast<int>(args->errc);
  StatusCode status_code =
      (code > 0 && code <= 16) ? static_cast<StatusCode>(code) : StatusCode::kUnknown;
  return new XLA_FFI_Error{
      Status(status_code, args->message != nullptr ? args->message : "(no message)")};
}

void errorGetMessage(XLA_FFI_Error_GetMessage_Args* args) {
  if (args == nullptr || args->error == nullptr) return;
  args->message = args->error->status.message().c_str();
}

void errorDestroy(XLA_FFI_Error_Destroy_Args* args) {
  if (args != nullptr) delete args->error;
}

XLA_FFI_Error* handlerRegister(XLA_FFI_Handler_Register_Args* args) {
  JFT_FFI_CHECK(args, XLA_FFI_Handler_Register_Args, bundle, "XLA_FFI_Handler_Register");
  RegisteredHandler handler;
  handler.bundle = args->bundle;
  if (args->struct_size >= JFT_ABI_SIZE_UP_TO(XLA_FFI_Handler_Register_Args, traits))
    handler.traits = args->traits;
  return toFfiError(
      registerHandler(std::string_view(args->name.ptr, args->name.len),
                      std::string_view(args->platform.ptr, args->platform.len), handler));
}

XLA_FFI_Error* streamGet(XLA_FFI_Stream_Get_Args* args) {
  return contextField<&XLA_FFI_Stream_Get_Args::stream,
                      &XLA_FFI_ExecutionContext::stream>(
      args, JFT_ABI_SIZE_UP_TO(XLA_FFI_Stream_Get_Args, stream), "XLA_FFI_Stream_Get");
}

XLA_FFI_Error* typeIdRegister(XLA_FFI_TypeId_Register_Args* args) {
  JFT_FFI_CHECK(args, XLA_FFI_TypeId_Register_Args, type_id, "XLA_FFI_TypeId_Register");
  if (args->type_id == nullptr)
    return toFfiError(invalidArgument("XLA_FFI_TypeId_Register: null type_id"));
  StatusOr<int64_t> id = registerType(std::string_view(args->name.ptr, args->name.len),
                                      args->type_id->type_id);
  if (!id.isOk()) return toFfiError(id.status());
  args->type_id->type_id = *id;
  if (args->struct_size >= JFT_ABI_SIZE_UP_TO(XLA_FFI_TypeId_Register_Args, type_info) &&
      args->type_info != nullptr)
    setTypeDeleter(*id, args->type_info->deleter);
  return nullptr;
}

XLA_FFI_Error* executionContextGet(XLA_FFI_ExecutionContext_Get_Args* args) {
  JFT_FFI_CHECK_IN_CONTEXT(args, XLA_FFI_ExecutionContext_Get_Args, data,
                           "XLA_FFI_ExecutionContext_Get");
  if (args->type_id == nullptr)
    return toFfiError(invalidArgument("XLA_FFI_ExecutionContext_Get: null type_id"));
  void* data = args->ctx->user_data != nullptr
                   ? args->ctx->user_data->find(args->type_id->type_id)
                   : nullptr;
  if (data == nullptr)
    return toFfiError(notFound("the execution carries no user data of FFI type id " +
                               std::to_string(args->type_id->type_id) +
                               " (for a host callback: the program was run without its "
                               "callbacks, e.g. not through jax)"));
  args->data = data;
  return nullptr;
}

// Which of the two XLA_FFI_State_Set layouts (c_abi.h) the caller used: the
// word after `ctx` is a 4-byte stage (0 to 3) in the staged one and a type
// id's address in the other. Only the stage's own bytes are read: the 4 bytes
// of padding after it are whatever the caller's stack held (jaxlib's
// handlers fill the fields one by one), and reading them as part of a
// pointer sent a staged call down the other layout, whose `deleter` is then
// the state itself. A type id whose address has its low 32 bits below 4
// would sit exactly on a 4 GiB boundary, which static storage never does.
bool isStagedStateSet(const XLA_FFI_State_Set_Args* args) {
  uint32_t low = 0;  // little-endian: the stage, or a pointer's low half
  std::memcpy(&low,
              reinterpret_cast<const char*>(args) +
                  offsetof(XLA_FFI_State_Set_Staged_Args, stage),
              sizeof(low));
  return low <= static_cast<uint32_t>(XLA_FFI_ExecutionStage_EXECUTE);
}

Status setState(XLA_FFI_ExecutionContext* ctx, XLA_FFI_TypeId* type_id, void* state,
                TypedObjects::Deleter deleter) {
  JFT_RETURN_IF_ERROR(needContext(ctx, "XLA_FFI_State_Set"));
  if (type_id == nullptr) return invalidArgument("XLA_FFI_State_Set: null type_id");
  if (ctx->state == nullptr)
    return failedPrecondition("XLA_FFI_State_Set: no state for this call");
  return ctx->state->add(type_id->type_id, state, deleter);
}

XLA_FFI_Error* stateSet(XLA_FFI_State_Set_Args* args) {
  JFT_FFI_CHECK(args, XLA_FFI_State_Set_Args, deleter, "XLA_FFI_State_Set");
  if (isStagedStateSet(args)) {
    const auto* staged = reinterpret_cast<const XLA_FFI_State_Set_Staged_Args*>(args);
    const TypedObjects::Deleter deleter =
        staged->type_id != nullptr ? typeDeleter(staged->type_id->type_id) : nullptr;
    return toFfiError(setState(staged->ctx, staged->type_id, staged->state, deleter));
  }
  return toFfiError(setState(args->ctx, args->type_id, args->state, args->deleter));
}

XLA_FFI_Error* stateGet(XLA_FFI_State_Get_Args* args) {
  JFT_FFI_CHECK(args, XLA_FFI_State_Get_Args, state, "XLA_FFI_State_Get");
  // The staged layout is one word longer (c_abi.h).
  const bool staged =
      args->struct_size >= JFT_ABI_SIZE_UP_TO(XLA_FFI_State_Get_Staged_Args, state);
  auto* staged_args = reinterpret_cast<XLA_FFI_State_Get_Staged_Args*>(args);
  XLA_FFI_ExecutionContext* ctx = args->ctx;
  XLA_FFI_TypeId* type_id = staged ? staged_args->type_id : args->type_id;
  if (Status s = needContext(ctx, "XLA_FFI_State_Get"); !s.isOk()) return toFfiError(s);
  void* state = (ctx->state != nullptr && type_id != nullptr)
                    ? ctx->state->find(type_id->type_id)
                    : nullptr;
  if (state == nullptr)
    return toFfiError(
        notFound("XLA_FFI_State_Get: the call site has no state of that type"));
  (staged ? staged_args->state : args->state) = state;
  return nullptr;
}

XLA_FFI_Error* memoryAllocate(XLA_FFI_DeviceMemory_Allocate_Args* args) {
  JFT_FFI_CHECK_IN_CONTEXT(args, XLA_FFI_DeviceMemory_Allocate_Args, data,
                           "XLA_FFI_DeviceMemory_Allocate");
  if (!args->ctx->allocate)
    return toFfiError(
        unimplemented("XLA_FFI_DeviceMemory_Allocate: no device allocator here"));
  if (args->alignment > 256)
    return toFfiError(invalidArgument("XLA_FFI_DeviceMemory_Allocate: alignment " +
                                      std::to_string(args->alignment) +
                                      " exceeds the 256 bytes allocations have"));
  StatusOr<void*> data = args->ctx->allocate(args->size);
  if (!data.isOk()) return toFfiError(data.status());
  args->data = *data;
  return nullptr;
}

XLA_FFI_Error* memoryFree(XLA_FFI_DeviceMemory_Free_Args* args) {
  JFT_FFI_CHECK_IN_CONTEXT(args, XLA_FFI_DeviceMemory_Free_Args, data,
                           "XLA_FFI_DeviceMemory_Free");
  if (!args->ctx->deallocate)
    return toFfiError(
        unimplemented("XLA_FFI_DeviceMemory_Free: no device allocator here"));
  args->ctx->deallocate(args->data, args->size);
  return nullptr;
}

#undef JFT_FFI_CHECK
#undef JFT_FFI_CHECK_IN_CONTEXT

template <typename Args>
XLA_FFI_Error* notSupported(Args*) {
  return toFfiError(
      unimplemented("this XLA FFI function is not supported by jax-flagtree"));
}

XLA_FFI_Error* threadPoolSchedule(XLA_FFI_ThreadPool_Schedule_Args*) {
  return toFfiError(
      unimplemented("XLA_FFI_ThreadPool_Schedule is not supported by jax-flagtree (no "
                    "host thread pool)"));
}

XLA_FFI_Error* threadPoolNumThreads(XLA_FFI_ThreadPool_NumThreads_Args*) {
  return toFfiError(
      unimplemented("XLA_FFI_ThreadPool_NumThreads is not supported by jax-flagtree (no "
                    "host thread pool)"));
}

XLA_FFI_Error* futureCreate(XLA_FFI_Future_Create_Args*) {
  return toFfiError(
      unimplemented("XLA_FFI_Future_Create is not supported by jax-flagtree: handlers "
                    "run synchronously "
                    "in stream order"));
}

XLA_FFI_Error* runIdGet(XLA_FFI_RunId_Get_Args* args) {
  return contextField<&XLA_FFI_RunId_Get_Args::run_id, &XLA_FFI_ExecutionContext::run_id>(
      args, JFT_ABI_SIZE_UP_TO(XLA_FFI_RunId_Get_Args, run_id), "XLA_FFI_RunId_Get");
}

XLA_FFI_Error* deviceOrdinalGet(XLA_FFI_DeviceOrdinal_Get_Args* args) {
  return contextField<&XLA_FFI_DeviceOrdinal_Get_Args::device_ordinal,
                      &XLA_FFI_ExecutionContext::device_ordinal>(
      args, JFT_ABI_SIZE_UP_TO(XLA_FFI_DeviceOrdinal_Get_Args, device_ordinal),
      "XLA_FFI_DeviceOrdinal_Get");
}

XLA_FFI_Api buildApi() {
  XLA_FFI_Api api{};
  api.struct_size = sizeof(XLA_FFI_Api);
  api.api_version.struct_size = JFT_ABI_SIZE_UP_TO(XLA_FFI_Api_Version, minor_version);
  api.api_version.major_version = abi::kMajorVersion;
  api.api_version.minor_version = abi::kMinorVersion;
  api.XLA_FFI_Error_Create = &errorCreate;
  api.XLA_FFI_Error_GetMessage = &errorGetMessage;
  api.XLA_FFI_Error_Destroy = &errorDestroy;
  api.XLA_FFI_Handler_Register = &handlerRegister;
  api.XLA_FFI_Stream_Get = &streamGet;
  api.XLA_FFI_TypeId_Register = &typeIdRegister;
  api.XLA_FFI_ExecutionContext_Get = &executionContextGet;
  api.XLA_FFI_State_Set = &stateSet;
  api.XLA_FFI_State_Get = &stateGet;
  api.XLA_FFI_DeviceMemory_Allocate = &memoryAllocate;
  api.XLA_FFI_DeviceMemory_Free = &memoryFree;
  api.XLA_FFI_ThreadPool_Schedule = &threadPoolSchedule;
  api.XLA_FFI_ThreadPool_NumThreads = &threadPoolNumThreads;
  api.XLA_FFI_Future_Create = &futureCreate;
  api.XLA_FFI_Future_SetAvailable = &notSupported<XLA_FFI_Future_SetAvailable_Args>;
  api.XLA_FFI_Future_SetError = &notSupported<XLA_FFI_Future_SetError_Args>;
  api.XLA_FFI_RunId_Get = &runIdGet;
  api.XLA_FFI_DeviceOrdinal_Get = &deviceOrdinalGet;
  return api;
}

}  // namespace

const XLA_FFI_Api* ffiApi() {
  static const XLA_FFI_Api api = buildApi();
  return &api;
}

XLA_FFI_Error* toFfiError(const Status& status) {
  if (status.isOk()) return nullptr;
  return new XLA_FFI_Error{status};
}

Status takeFfiError(XLA_FFI_Error* error) {
  if (error == nullptr) return Status::ok();
  Status status = error->status;
  delete error;
  return status;
}

}  // namespace jft::ffi
