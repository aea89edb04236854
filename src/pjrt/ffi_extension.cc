#include "pjrt/ffi_extension.h"

#include <cstring>
#include <string>
#include <string_view>

#include "ffi/registry.h"
#include "pjrt/args.h"
#include "pjrt/dlpack.h"
#include "pjrt/entry_points.h"
#include "pjrt/layouts_extension.h"
#include "pjrt/profiler_extension.h"

namespace jft::pjrt {
namespace {

JFT_PJRT_ENTRY(typeRegister, FFI_Type_Register, type_id, {
  if (args->type_name == nullptr || args->type_name_size == 0)
    return invalidArgument(std::string(kName) + ": no type name");
  JFT_ASSIGN_OR_RETURN(
      int64_t id,
      ffi::registerType(std::string_view(args->type_name, args->type_name_size),
                        args->type_id));
  args->type_id = id;
  // jax.ffi.register_ffi_type's type_info: the deleter of the states its
  // handlers set (XLA_FFI_State_Set's staged layout names no deleter).
  if (args->struct_size >= JFT_ABI_SIZE_UP_TO(PJRT_FFI_Type_Register_Args, type_info) &&
      args->type_info != nullptr && args->type_info->deleter != nullptr)
    ffi::setTypeDeleter(id, args->type_info->deleter);
})

JFT_PJRT_ENTRY(userDataAdd, FFI_UserData_Add, user_data, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->context, "context", kName));
  // A header with a deleter in PJRT_FFI_UserData sends a larger struct; the
  // deleter follows `data`.
  ffi::TypedObjects::Deleter deleter = nullptr;
  if (args->struct_size >=
      JFT_ABI_SIZE_UP_TO(PJRT_FFI_UserData_Add_Args, user_data) + 8) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&args->user_data);
    std::memcpy(&deleter, bytes + sizeof(PJRT_FFI_UserData), sizeof(deleter));
  }
  return args->context->user_data.add(args->user_data.type_id, args->user_data.data,
                                      deleter);
})

JFT_PJRT_ENTRY(registerFfiHandler, FFI_Register_Handler, platform_name_size, {
  if (args->target_name == nullptr)
    return invalidArgument(std::string(kName) + ": no target");
  ffi::RegisteredHandler handler;
  handler.bundle.execute = reinterpret_cast<XLA_FFI_Handler*>(args->handler);
  if (args->struct_size >= JFT_ABI_SIZE_UP_TO(PJRT_FFI_Register_Handler_Args, traits))
    handler.traits = args->traits;
  return ffi::registerHandler(
      std::string_view(args->target_name, args->target_name_size),
      std::string_view(args->platform_name != nullptr ? args->platform_name : "",
                       args->platform_name_size),
      handler);
})

JFT_PJRT_ENTRY(registerCustomCall, Gpu_Register_Custom_Call, handler_execute, {
  if (args->function_name == nullptr)
    return invalidArgument(std::string(kName) + ": no function name");
  ffi::RegisteredHandler handler;
  handler.api_version = args->api_version;
  handler.bundle.instantiate =
      reinterpret_cast<XLA_FFI_Handler*>(args->handler_instantiate);
  handler.bundle.prepare = reinterpret_cast<XLA_FFI_Handler*>(args->handler_prepare);
  handler.bundle.initialize =
      reinterpret_cast<XLA_FFI_Handler*>(args->handler_initialize);
  handler.bundle.execute = reinterpret_cast<XLA_FFI_Handler*>(args->handler_execute);
  if (args->struct_size >= JFT_ABI_SIZE_UP_TO(PJRT_Gpu_Register_Custom_Call_Args, traits))
    handler.traits = args->traits;
  // This extension is the GPU plugin's: its handlers are CUDA's.
  return ffi::registerHandler(
      std::string_view(args->function_name, args->function_name_size), "CUDA", handler);
})

struct Chain {
  PJRT_FFI_Extension ffi{};
  PJRT_Gpu_Custom_Call gpu{};
  Chain() {
    gpu.base.struct_size = sizeof(PJRT_Gpu_Custom_Call);
    gpu.base.type = PJRT_Extension_Type_Gpu_Custom_Call;
    gpu.base.next = streamExtension(layoutsExtension(profilerExtension(nullptr)));
    gpu.custom_call = &registerCustomCall;
    ffi.base.struct_size = sizeof(PJRT_FFI_Extension);
    ffi.base.type = PJRT_Extension_Type_FFI;
    ffi.base.next = &gpu.base;
    ffi.type_register = &typeRegister;
    ffi.user_data_add = &userDataAdd;
    ffi.register_handler = &registerFfiHandler;
  }
};

}  // namespace

PJRT_Extension_Base* extensionChain() {
  static Chain* chain = new Chain();  // never destroyed: jaxlib holds pointers into it
  return &chain->ffi.base;
}

JFT_PJRT_ENTRY(executeContextCreate, ExecuteContext_Create, context,
               { args->context = new PJRT_ExecuteContext(); })

JFT_PJRT_ENTRY(executeContextDestroy, ExecuteContext_Destroy, context,
               { delete args->context; })

}  // namespace jft::pjrt
