// Our declarations of the XLA FFI C ABI: the call frame a custom-call handler
// receives and the function table (XLA_FFI_Api) it calls back into. Written
// from the published xla/ffi/api/c_api.h of the XLA commit jaxlib 0.11 pins
// (third_party/xla/revision.bzl); identifiers follow the published names so
// readers recognise them, layout and order must match exactly, and every
// field's offset is checked below. Handlers compiled against that header
// (jaxlib's host-callback handler, users' jax.ffi handlers) read these
// structs directly, so a wrong offset is a crash, not an error.
#pragma once

#include <cstddef>
#include <cstdint>

#include "support/abi_layout.h"

extern "C" {

struct XLA_FFI_Api;
struct XLA_FFI_InternalApi;
struct XLA_FFI_Error;
struct XLA_FFI_ExecutionContext;
struct XLA_FFI_Future;

enum XLA_FFI_Extension_Type : int { XLA_FFI_Extension_Metadata = 1 };

struct XLA_FFI_Extension_Base {
  size_t struct_size;
  XLA_FFI_Extension_Type type;
  XLA_FFI_Extension_Base* next;
};

struct XLA_FFI_Api_Version {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int major_version;
  int minor_version;
};

// Same numbering as PJRT's and ours (support/status.h): absl's codes.
enum XLA_FFI_Error_Code : int {
  XLA_FFI_Error_Code_OK = 0,
  XLA_FFI_Error_Code_INVALID_ARGUMENT = 3,
  XLA_FFI_Error_Code_NOT_FOUND = 5,
  XLA_FFI_Error_Code_ALREADY_EXISTS = 6,
  XLA_FFI_Error_Code_RESOURCE_EXHAUSTED = 8,
  XLA_FFI_Error_Code_UNIMPLEMENTED = 12,
  XLA_FFI_Error_Code_INTERNAL = 13,
  XLA_FFI_Error_Code_UNAUTHENTICATED = 16,
};

struct XLA_FFI_Error_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  const char* message;
  XLA_FFI_Error_Code errc;
};

struct XLA_FFI_Error_GetMessage_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Error* error;
  const char* message;  // out
};

struct XLA_FFI_Error_Destroy_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Error* error;
};

// xla::PrimitiveType's numbering (xla_data.proto).
enum XLA_FFI_DataType : int {
  XLA_FFI_DataType_INVALID = 0,
  XLA_FFI_DataType_PRED = 1,
  XLA_FFI_DataType_S8 = 2,
  XLA_FFI_DataType_S16 = 3,
  XLA_FFI_DataType_S32 = 4,
  XLA_FFI_DataType_S64 = 5,
  XLA_FFI_DataType_U8 = 6,
  XLA_FFI_DataType_U16 = 7,
  XLA_FFI_DataType_U32 = 8,
  XLA_FFI_DataType_U64 = 9,
  XLA_FFI_DataType_F16 = 10,
  XLA_FFI_DataType_F32 = 11,
  XLA_FFI_DataType_F64 = 12,
  XLA_FFI_DataType_C64 = 15,
  XLA_FFI_DataType_BF16 = 16,
  XLA_FFI_DataType_TOKEN = 17,
  XLA_FFI_DataType_C128 = 18,
  XLA_FFI_DataType_F8E5M2 = 19,
  XLA_FFI_DataType_F8E4M3FN = 20,
};

struct XLA_FFI_Buffer {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_DataType dtype;
  void* data;
  int64_t rank;
  int64_t* dims;
};

enum XLA_FFI_ArgType : int { XLA_FFI_ArgType_BUFFER = 1 };
enum XLA_FFI_RetType : int { XLA_FFI_RetType_BUFFER = 1 };
enum XLA_FFI_AttrType : int {
  XLA_FFI_AttrType_ARRAY = 1,
  XLA_FFI_AttrType_DICTIONARY = 2,
  XLA_FFI_AttrType_SCALAR = 3,
  XLA_FFI_AttrType_STRING = 4,
};

struct XLA_FFI_TypeId {
  int64_t type_id;
};

struct XLA_FFI_ByteSpan {
  const char* ptr;
  size_t len;
};

struct XLA_FFI_Scalar {
  XLA_FFI_DataType dtype;
  void* value;
};

struct XLA_FFI_Array {
  XLA_FFI_DataType dtype;
  size_t size;
  void* data;
};

enum XLA_FFI_ExecutionStage : int {
  XLA_FFI_ExecutionStage_INSTANTIATE = 0,
  XLA_FFI_ExecutionStage_PREPARE = 1,
  XLA_FFI_ExecutionStage_INITIALIZE = 2,
  XLA_FFI_ExecutionStage_EXECUTE = 3,
};

struct XLA_FFI_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_ArgType* types;
  void** args;
};

struct XLA_FFI_Rets {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_RetType* types;
  void** rets;
};

// Sorted by name: handlers binary-search them.
struct XLA_FFI_Attrs {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  int64_t size;
  XLA_FFI_AttrType* types;
  XLA_FFI_ByteSpan** names;
  void** attrs;
};

struct XLA_FFI_CallFrame {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  const XLA_FFI_Api* api;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_Args args;
  XLA_FFI_Rets rets;
  XLA_FFI_Attrs attrs;
  XLA_FFI_Future* future;  // out: set by an asynchronous handler
};

using XLA_FFI_Handler = XLA_FFI_Error*(XLA_FFI_CallFrame* call_frame);

struct XLA_FFI_Handler_Bundle {
  XLA_FFI_Handler* instantiate;
  XLA_FFI_Handler* prepare;
  XLA_FFI_Handler* initialize;
  XLA_FFI_Handler* execute;
};

using XLA_FFI_Handler_Traits = uint32_t;

struct XLA_FFI_Handler_Register_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_ByteSpan platform;
  XLA_FFI_Handler_Bundle bundle;
  XLA_FFI_Handler_Traits traits;
};

// The type's destructor for states XLA owns; later headers append fields.
struct XLA_FFI_TypeInfo {
  void (*deleter)(void* object);
};

struct XLA_FFI_TypeId_Register_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ByteSpan name;
  XLA_FFI_TypeId* type_id;  // in-out: 0 asks for a fresh id
  XLA_FFI_TypeInfo* type_info;
};

struct XLA_FFI_ExecutionContext_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* data;  // out
};

struct XLA_FFI_State_Set_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;
  void (*deleter)(void* state);
};

struct XLA_FFI_State_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_TypeId* type_id;
  void* state;  // out
};

// The same two calls in the XLA that jaxlib 0.11 pins: the stage the state
// belongs to follows the context, and the state's deleter is its type's
// (XLA_FFI_TypeInfo at registration) instead of an argument. The setter's two
// layouts have one size; api.cc tells them apart by the word after `ctx`, a
// small stage number in this one and a pointer in the other.
struct XLA_FFI_State_Set_Staged_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_TypeId* type_id;
  void* state;
};

struct XLA_FFI_State_Get_Staged_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_ExecutionStage stage;
  XLA_FFI_TypeId* type_id;
  void* state;  // out
};

struct XLA_FFI_Stream_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  void* stream;  // out: CUstream on CUDA
};

struct XLA_FFI_DeviceMemory_Allocate_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  size_t size;
  size_t alignment;
  void* data;  // out
};

struct XLA_FFI_DeviceMemory_Free_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  size_t size;
  void* data;
};

using XLA_FFI_Task = void(void* data);

struct XLA_FFI_ThreadPool_Schedule_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  XLA_FFI_Task* task;
  void* data;
};

struct XLA_FFI_ThreadPool_NumThreads_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  int64_t* num_threads;  // out
};

struct XLA_FFI_Future_Create_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Future* future;  // out
};

struct XLA_FFI_Future_SetAvailable_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Future* future;
};

struct XLA_FFI_Future_SetError_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Future* future;
  XLA_FFI_Error* error;
};

struct XLA_FFI_RunId_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  int64_t run_id;  // out
};

struct XLA_FFI_DeviceOrdinal_Get_Args {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_ExecutionContext* ctx;
  int32_t device_ordinal;  // out
};

// The function table, in the header's order. Only the order matters to a
// handler: it calls api->XLA_FFI_Stream_Get etc. at fixed offsets.
struct XLA_FFI_Api {
  size_t struct_size;
  XLA_FFI_Extension_Base* extension_start;
  XLA_FFI_Api_Version api_version;
  XLA_FFI_InternalApi* internal_api;

  XLA_FFI_Error* (*XLA_FFI_Error_Create)(XLA_FFI_Error_Create_Args*);
  void (*XLA_FFI_Error_GetMessage)(XLA_FFI_Error_GetMessage_Args*);
  void (*XLA_FFI_Error_Destroy)(XLA_FFI_Error_Destroy_Args*);
  XLA_FFI_Error* (*XLA_FFI_Handler_Register)(XLA_FFI_Handler_Register_Args*);
  XLA_FFI_Error* (*XLA_FFI_Stream_Get)(XLA_FFI_Stream_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_TypeId_Register)(XLA_FFI_TypeId_Register_Args*);
  XLA_FFI_Error* (*XLA_FFI_ExecutionContext_Get)(XLA_FFI_ExecutionContext_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_State_Set)(XLA_FFI_State_Set_Args*);
  XLA_FFI_Error* (*XLA_FFI_State_Get)(XLA_FFI_State_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_DeviceMemory_Allocate)(XLA_FFI_DeviceMemory_Allocate_Args*);
  XLA_FFI_Error* (*XLA_FFI_DeviceMemory_Free)(XLA_FFI_DeviceMemory_Free_Args*);
  XLA_FFI_Error* (*XLA_FFI_ThreadPool_Schedule)(XLA_FFI_ThreadPool_Schedule_Args*);
  XLA_FFI_Error* (*XLA_FFI_ThreadPool_NumThreads)(XLA_FFI_ThreadPool_NumThreads_Args*);
  XLA_FFI_Error* (*XLA_FFI_Future_Create)(XLA_FFI_Future_Create_Args*);
  XLA_FFI_Error* (*XLA_FFI_Future_SetAvailable)(XLA_FFI_Future_SetAvailable_Args*);
  XLA_FFI_Error* (*XLA_FFI_Future_SetError)(XLA_FFI_Future_SetError_Args*);
  XLA_FFI_Error* (*XLA_FFI_RunId_Get)(XLA_FFI_RunId_Get_Args*);
  XLA_FFI_Error* (*XLA_FFI_DeviceOrdinal_Get)(XLA_FFI_DeviceOrdinal_Get_Args*);
};

}  // extern "C"

namespace jft::ffi::abi {

inline constexpr int kMajorVersion = 0;
inline constexpr int kMinorVersion = 1;

JFT_ABI_OFFSET(XLA_FFI_Extension_Base, type, 8);
JFT_ABI_OFFSET(XLA_FFI_Extension_Base, next, 16);
JFT_ABI_OFFSET(XLA_FFI_Api_Version, major_version, 16);
JFT_ABI_OFFSET(XLA_FFI_Api_Version, minor_version, 20);
JFT_ABI_OFFSET(XLA_FFI_Error_Create_Args, message, 16);
JFT_ABI_OFFSET(XLA_FFI_Error_Create_Args, errc, 24);
JFT_ABI_OFFSET(XLA_FFI_Error_GetMessage_Args, error, 16);
JFT_ABI_OFFSET(XLA_FFI_Error_GetMessage_Args, message, 24);
JFT_ABI_OFFSET(XLA_FFI_Error_Destroy_Args, error, 16);
JFT_ABI_OFFSET(XLA_FFI_Buffer, dtype, 16);
JFT_ABI_OFFSET(XLA_FFI_Buffer, data, 24);
JFT_ABI_OFFSET(XLA_FFI_Buffer, rank, 32);
JFT_ABI_OFFSET(XLA_FFI_Buffer, dims, 40);
static_assert(sizeof(XLA_FFI_Buffer) == 48);
JFT_ABI_OFFSET(XLA_FFI_ByteSpan, len, 8);
JFT_ABI_OFFSET(XLA_FFI_Scalar, value, 8);
JFT_ABI_OFFSET(XLA_FFI_Array, size, 8);
JFT_ABI_OFFSET(XLA_FFI_Array, data, 16);
JFT_ABI_OFFSET(XLA_FFI_Args, size, 16);
JFT_ABI_OFFSET(XLA_FFI_Args, types, 24);
JFT_ABI_OFFSET(XLA_FFI_Args, args, 32);
JFT_ABI_OFFSET(XLA_FFI_Rets, size, 16);
JFT_ABI_OFFSET(XLA_FFI_Rets, types, 24);
JFT_ABI_OFFSET(XLA_FFI_Rets, rets, 32);
JFT_ABI_OFFSET(XLA_FFI_Attrs, size, 16);
JFT_ABI_OFFSET(XLA_FFI_Attrs, types, 24);
JFT_ABI_OFFSET(XLA_FFI_Attrs, names, 32);
JFT_ABI_OFFSET(XLA_FFI_Attrs, attrs, 40);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, api, 16);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, ctx, 24);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, stage, 32);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, args, 40);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, rets, 80);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, attrs, 120);
JFT_ABI_OFFSET(XLA_FFI_CallFrame, future, 168);
JFT_ABI_OFFSET(XLA_FFI_Handler_Bundle, execute, 24);
JFT_ABI_OFFSET(XLA_FFI_Handler_Register_Args, name, 16);
JFT_ABI_OFFSET(XLA_FFI_Handler_Register_Args, platform, 32);
JFT_ABI_OFFSET(XLA_FFI_Handler_Register_Args, bundle, 48);
JFT_ABI_OFFSET(XLA_FFI_Handler_Register_Args, traits, 80);
JFT_ABI_OFFSET(XLA_FFI_TypeId_Register_Args, name, 16);
JFT_ABI_OFFSET(XLA_FFI_TypeId_Register_Args, type_id, 32);
JFT_ABI_OFFSET(XLA_FFI_TypeId_Register_Args, type_info, 40);
JFT_ABI_OFFSET(XLA_FFI_ExecutionContext_Get_Args, ctx, 16);
JFT_ABI_OFFSET(XLA_FFI_ExecutionContext_Get_Args, type_id, 24);
JFT_ABI_OFFSET(XLA_FFI_ExecutionContext_Get_Args, data, 32);
JFT_ABI_OFFSET(XLA_FFI_State_Set_Args, type_id, 24);
JFT_ABI_OFFSET(XLA_FFI_State_Set_Args, state, 32);
JFT_ABI_OFFSET(XLA_FFI_State_Set_Args, deleter, 40);
JFT_ABI_OFFSET(XLA_FFI_State_Get_Args, state, 32);
JFT_ABI_OFFSET(XLA_FFI_State_Set_Staged_Args, stage, 24);
JFT_ABI_OFFSET(XLA_FFI_State_Set_Staged_Args, type_id, 32);
JFT_ABI_OFFSET(XLA_FFI_State_Set_Staged_Args, state, 40);
JFT_ABI_OFFSET(XLA_FFI_State_Get_Staged_Args, type_id, 32);
JFT_ABI_OFFSET(XLA_FFI_State_Get_Staged_Args, state, 40);
static_assert(sizeof(XLA_FFI_State_Set_Staged_Args) == sizeof(XLA_FFI_State_Set_Args));
JFT_ABI_OFFSET(XLA_FFI_Stream_Get_Args, ctx, 16);
JFT_ABI_OFFSET(XLA_FFI_Stream_Get_Args, stream, 24);
JFT_ABI_OFFSET(XLA_FFI_DeviceMemory_Allocate_Args, size, 24);
JFT_ABI_OFFSET(XLA_FFI_DeviceMemory_Allocate_Args, alignment, 32);
JFT_ABI_OFFSET(XLA_FFI_DeviceMemory_Allocate_Args, data, 40);
JFT_ABI_OFFSET(XLA_FFI_DeviceMemory_Free_Args, size, 24);
JFT_ABI_OFFSET(XLA_FFI_DeviceMemory_Free_Args, data, 32);
JFT_ABI_OFFSET(XLA_FFI_ThreadPool_Schedule_Args, task, 24);
JFT_ABI_OFFSET(XLA_FFI_ThreadPool_Schedule_Args, data, 32);
JFT_ABI_OFFSET(XLA_FFI_ThreadPool_NumThreads_Args, num_threads, 24);
JFT_ABI_OFFSET(XLA_FFI_Future_Create_Args, future, 16);
JFT_ABI_OFFSET(XLA_FFI_Future_SetAvailable_Args, future, 16);
JFT_ABI_OFFSET(XLA_FFI_Future_SetError_Args, error, 24);
JFT_ABI_OFFSET(XLA_FFI_RunId_Get_Args, run_id, 24);
JFT_ABI_OFFSET(XLA_FFI_DeviceOrdinal_Get_Args, device_ordinal, 24);
JFT_ABI_OFFSET(XLA_FFI_Api, api_version, 16);
JFT_ABI_OFFSET(XLA_FFI_Api, internal_api, 40);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Error_Create, 48);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Error_GetMessage, 56);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Error_Destroy, 64);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Handler_Register, 72);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Stream_Get, 80);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_TypeId_Register, 88);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_ExecutionContext_Get, 96);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_State_Set, 104);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_State_Get, 112);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_DeviceMemory_Allocate, 120);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_DeviceMemory_Free, 128);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_ThreadPool_Schedule, 136);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_ThreadPool_NumThreads, 144);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Future_Create, 152);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Future_SetAvailable, 160);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_Future_SetError, 168);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_RunId_Get, 176);
JFT_ABI_OFFSET(XLA_FFI_Api, XLA_FFI_DeviceOrdinal_Get, 184);
static_assert(sizeof(XLA_FFI_Api) == 192);

}  // namespace jft::ffi::abi
