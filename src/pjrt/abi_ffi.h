// Our declarations of the PJRT extensions that carry XLA FFI (the published
// pjrt_c_api_ffi_extension.h and pjrt_c_api_gpu_extension.h of the XLA commit
// jaxlib 0.11 pins), and of the execute-context entry points. jaxlib's
// gpu_plugin_extension (register_custom_call_target, register_custom_type)
// finds these in our extension chain; PJRT's C API client adds an execution's
// FFI user data (jax's host callbacks) to a PJRT_ExecuteContext it creates
// through us. Offsets are static_asserted.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ffi/user_data.h"
#include "pjrt/abi.h"

extern "C" {

struct PJRT_ExecuteContext {
  jft::ffi::UserData user_data;
};

struct PJRT_ExecuteContext_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;  // out
};

struct PJRT_ExecuteContext_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
};

// --- PJRT_Extension_Type_FFI (version 3 layout)

struct PJRT_FFI_Type_Info {
  void (*deleter)(void* object);
  void (*serialize)();  // not called by us
  void (*deserialize)();
};

struct PJRT_FFI_Type_Register_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* type_name;
  size_t type_name_size;
  int64_t type_id;  // in-out: 0 asks for a fresh id
  PJRT_FFI_Type_Info* type_info;
};

struct PJRT_FFI_UserData {
  int64_t type_id;
  void* data;
};

struct PJRT_FFI_UserData_Add_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_ExecuteContext* context;
  PJRT_FFI_UserData user_data;
};

struct PJRT_FFI_Register_Handler_Args {
  size_t struct_size;
  const char* target_name;
  size_t target_name_size;
  void* handler;  // XLA_FFI_Handler*
  const char* platform_name;
  size_t platform_name_size;
  uint32_t traits;
};

struct PJRT_FFI_Extension {
  PJRT_Extension_Base base;
  PJRT_Error* (*type_register)(PJRT_FFI_Type_Register_Args*);
  PJRT_Error* (*user_data_add)(PJRT_FFI_UserData_Add_Args*);
  PJRT_Error* (*register_handler)(PJRT_FFI_Register_Handler_Args*);
};

// --- PJRT_Extension_Type_Gpu_Custom_Call (version 2 layout; version 3's
// trailing `traits` is read when the caller's struct_size covers it)

struct PJRT_Gpu_Register_Custom_Call_Args {
  size_t struct_size;
  const char* function_name;
  size_t function_name_size;
  int api_version;  // 0: untyped, 1: XLA FFI
  void* handler_instantiate;
  void* handler_prepare;
  void* handler_initialize;
  void* handler_execute;
  uint32_t traits;
};

struct PJRT_Gpu_Custom_Call {
  PJRT_Extension_Base base;
  PJRT_Error* (*custom_call)(PJRT_Gpu_Register_Custom_Call_Args*);
};

}  // extern "C"

namespace jft::pjrt::abi {

JFT_ABI_OFFSET(PJRT_ExecuteContext_Create_Args, context, 16);
JFT_ABI_OFFSET(PJRT_ExecuteContext_Destroy_Args, context, 16);
JFT_ABI_OFFSET(PJRT_FFI_Type_Info, deserialize, 16);
JFT_ABI_OFFSET(PJRT_FFI_Type_Register_Args, type_name, 16);
JFT_ABI_OFFSET(PJRT_FFI_Type_Register_Args, type_name_size, 24);
JFT_ABI_OFFSET(PJRT_FFI_Type_Register_Args, type_id, 32);
JFT_ABI_OFFSET(PJRT_FFI_Type_Register_Args, type_info, 40);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_FFI_Type_Register_Args, type_info) == 0x30);
JFT_ABI_OFFSET(PJRT_FFI_UserData_Add_Args, context, 16);
JFT_ABI_OFFSET(PJRT_FFI_UserData_Add_Args, user_data, 24);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_FFI_UserData_Add_Args, user_data) == 0x28);
JFT_ABI_OFFSET(PJRT_FFI_Register_Handler_Args, target_name, 8);
JFT_ABI_OFFSET(PJRT_FFI_Register_Handler_Args, handler, 24);
JFT_ABI_OFFSET(PJRT_FFI_Register_Handler_Args, platform_name, 32);
JFT_ABI_OFFSET(PJRT_FFI_Register_Handler_Args, traits, 48);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_FFI_Register_Handler_Args, traits) == 0x34);
JFT_ABI_OFFSET(PJRT_FFI_Extension, type_register, 24);
JFT_ABI_OFFSET(PJRT_FFI_Extension, register_handler, 40);
static_assert(sizeof(PJRT_FFI_Extension) == 0x30);
JFT_ABI_OFFSET(PJRT_Gpu_Register_Custom_Call_Args, function_name, 8);
JFT_ABI_OFFSET(PJRT_Gpu_Register_Custom_Call_Args, api_version, 24);
JFT_ABI_OFFSET(PJRT_Gpu_Register_Custom_Call_Args, handler_instantiate, 32);
JFT_ABI_OFFSET(PJRT_Gpu_Register_Custom_Call_Args, handler_execute, 56);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Gpu_Register_Custom_Call_Args, handler_execute) ==
              0x40);
JFT_ABI_OFFSET(PJRT_Gpu_Custom_Call, custom_call, 24);
static_assert(sizeof(PJRT_Gpu_Custom_Call) == 0x20);

}  // namespace jft::pjrt::abi
