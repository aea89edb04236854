// Our declarations of the PJRT C ABI, written from the published layout of
// PJRT C API 0.114: the header at the XLA commit jax 0.11 pins. Minors 111..114
// appended struct fields and enum values but no function slots, so the table
// still has 138. jaxlib 0.11.2's own CUDA plugin reports 0.115 (also 138 slots);
// we declare only what we could verify field by field, and a framework that
// knows a newer minor reads an older plugin through `struct_size`.
//
// Only the argument structs of the entry points we implement are declared; every
// other slot of the table is a generic function pointer (api_slots.def gives the
// order). Field order and types are ABI: never reorder, only append what upstream
// appended. `*_kSize` constants give the size of each struct up to and including
// its last field, which is what callers put in `struct_size`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "support/abi_layout.h"

namespace jft::pjrt::abi {
inline constexpr int kMajorVersion = 0;
inline constexpr int kMinorVersion = 114;
}  // namespace jft::pjrt::abi

extern "C" {

// Enums carry a fixed underlying type: their values arrive from callers and an
// out-of-range value must be a checked input, not undefined behaviour. The size
// (4 bytes) is that of the C enums.

// ---------------------------------------------------------------- extensions

typedef enum : int {
  PJRT_Extension_Type_Gpu_Custom_Call = 0,
  PJRT_Extension_Type_Profiler,
  PJRT_Extension_Type_Custom_Partitioner,
  PJRT_Extension_Type_Stream,
  PJRT_Extension_Type_Layouts,
  PJRT_Extension_Type_FFI,
  PJRT_Extension_Type_MemoryDescriptions,
  PJRT_Extension_Type_Triton,
  PJRT_Extension_Type_RawBuffer,
  PJRT_Extension_Type_PhaseCompile,
  PJRT_Extension_Type_Example,
  PJRT_Extension_Type_Unknown,
  PJRT_Extension_Type_CrossHostTransfers,
  PJRT_Extension_Type_ExecutableMetadata,
  PJRT_Extension_Type_Callback,
  PJRT_Extension_Type_HostAllocator,
  PJRT_Extension_Type_TpuTopology,
  PJRT_Extension_Type_TpuExecutable,
  PJRT_Extension_Type_Megascale,
  PJRT_Extension_Type_Shardings,
  PJRT_Extension_Type_AbiVersion,
  PJRT_Extension_Type_Collectives,
  PJRT_Extension_Type_MultiSlice,
  PJRT_Extension_Type_HostMemoryAllocator,
  PJRT_Extension_Type_XlaTransform,  // 0.114
} PJRT_Extension_Type;

struct PJRT_Extension_Base {
  size_t struct_size;
  PJRT_Extension_Type type;
  PJRT_Extension_Base* next;
};

// ------------------------------------------------------------------- version

struct PJRT_Api_Version {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  int major_version;
  int minor_version;
};

// -------------------------------------------------------------------- errors

typedef enum : int {
  PJRT_Error_Code_OK = 0,
  PJRT_Error_Code_CANCELLED = 1,
  PJRT_Error_Code_UNKNOWN = 2,
  PJRT_Error_Code_INVALID_ARGUMENT = 3,
  PJRT_Error_Code_DEADLINE_EXCEEDED = 4,
  PJRT_Error_Code_NOT_FOUND = 5,
  PJRT_Error_Code_ALREADY_EXISTS = 6,
  PJRT_Error_Code_PERMISSION_DENIED = 7,
  PJRT_Error_Code_RESOURCE_EXHAUSTED = 8,
  PJRT_Error_Code_FAILED_PRECONDITION = 9,
  PJRT_Error_Code_ABORTED = 10,
  PJRT_Error_Code_OUT_OF_RANGE = 11,
  PJRT_Error_Code_UNIMPLEMENTED = 12,
  PJRT_Error_Code_INTERNAL = 13,
  PJRT_Error_Code_UNAVAILABLE = 14,
  PJRT_Error_Code_DATA_LOSS = 15,
  PJRT_Error_Code_UNAUTHENTICATED = 16,
} PJRT_Error_Code;

struct PJRT_Error;

typedef void (*PJRT_Error_PayloadVisitor)(const char* key, size_t key_size,
                                          const char* value, size_t value_size,
                                          void* user_arg);

// Since 0.107 an error object starts with this table, so a caller may use an
// error without going through the API table.
struct PJRT_Error_FunctionTable {
  size_t struct_size;
  size_t instance_size;
  PJRT_Extension_Base* extension_start;
  void (*destroy)(PJRT_Error* error);
  void (*message)(const PJRT_Error* error, const char** message, size_t* message_size);
  PJRT_Error_Code (*get_code)(const PJRT_Error* error);
  void (*for_each_payload)(const PJRT_Error* error, PJRT_Error_PayloadVisitor visitor,
                           void* user_arg);
};

struct PJRT_Error {
  const PJRT_Error_FunctionTable* vtable;
};

struct PJRT_Error_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Error* error;
};

struct PJRT_Error_Message_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  const char* message;  // out
  size_t message_size;  // out
};

struct PJRT_Error_GetCode_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_Code code;  // out
};

struct PJRT_Error_ForEachPayload_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Error* error;
  PJRT_Error_PayloadVisitor visitor;
  void* user_arg;
};

typedef PJRT_Error* (*PJRT_CallbackError)(PJRT_Error_Code code, const char* message,
                                          size_t message_size);

// -------------------------------------------------------------- named values

typedef enum : int {
  PJRT_NamedValue_kString = 0,
  PJRT_NamedValue_kInt64,
  PJRT_NamedValue_kInt64List,
  PJRT_NamedValue_kFloat,
  PJRT_NamedValue_kBool,
} PJRT_NamedValue_Type;

struct PJRT_NamedValue {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* name;
  size_t name_size;
  PJRT_NamedValue_Type type;
  union {
    const char* string_value;
    int64_t int64_value;
    const int64_t* int64_array_value;
    float float_value;
    bool bool_value;
  };
  size_t value_size;  // elements of a list or characters of a string; 1 otherwise
};

// -------------------------------------------------------------------- plugin

struct PJRT_Plugin_Initialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
};

struct PJRT_Plugin_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* attributes;  // out, lives as long as the process
  size_t num_attributes;              // out
};

// -------------------------------------------------------------------- events

struct PJRT_Event;

struct PJRT_Event_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};

struct PJRT_Event_IsReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  bool is_ready;  // out
};

struct PJRT_Event_Error_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};

struct PJRT_Event_Await_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
};

// The callback owns `error` (may be null) and must destroy it.
typedef void (*PJRT_Event_OnReadyCallback)(PJRT_Error* error, void* user_arg);

struct PJRT_Event_OnReady_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Event_OnReadyCallback callback;
  void* user_arg;
};

struct PJRT_Event_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;  // out
};

struct PJRT_Event_Set_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Event* event;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};

// -------------------------------------------------------------- opaque types

struct PJRT_Client;
struct PJRT_Device;
struct PJRT_DeviceDescription;
struct PJRT_TopologyDescription;
struct PJRT_Executable;
struct PJRT_LoadedExecutable;
struct PJRT_Buffer;

struct PJRT_Memory;
struct PJRT_Memory_FunctionTable {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  size_t instance_struct_size;
  void* (*get_user_data)(PJRT_Memory* memory, const void* key);
  void (*set_user_data)(PJRT_Memory* memory, const void* key, void* data,
                        void (*dtor)(void*));
};

// Since 0.105 a memory object starts with this table.
struct PJRT_Memory {
  const PJRT_Memory_FunctionTable* vtable;
};

// -------------------------------------------------------------------- client

// The key-value store of jax.distributed, reached through callbacks the
// caller of PJRT_Client_Create passes. The plugin hands its callback_error so
// a failing callback returns one of the plugin's own errors.
typedef void (*PJRT_KeyValueGetCallback_ValueDeleter)(char* value);

struct PJRT_KeyValueGetCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  int timeout_in_ms;
  PJRT_CallbackError* callback_error;
  void* user_arg;
  char* value;        // out
  size_t value_size;  // out
  // out: the plugin copies `value`, then frees it with this.
  PJRT_KeyValueGetCallback_ValueDeleter value_deleter_callback;
};
// Blocking: waits up to timeout_in_ms for the key.
typedef PJRT_Error* (*PJRT_KeyValueGetCallback)(PJRT_KeyValueGetCallback_Args* args);

struct PJRT_KeyValuePutCallback_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const char* key;
  size_t key_size;
  const char* value;  // needs to live only for the call
  size_t value_size;
  PJRT_CallbackError* callback_error;
  void* user_arg;
};
typedef PJRT_Error* (*PJRT_KeyValuePutCallback)(PJRT_KeyValuePutCallback_Args* args);

struct PJRT_Client_Create_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_NamedValue* create_options;
  size_t num_options;
  PJRT_KeyValueGetCallback kv_get_callback;
  void* kv_get_user_arg;
  PJRT_KeyValuePutCallback kv_put_callback;
  void* kv_put_user_arg;
  PJRT_Client* client;  // out
  void* kv_try_get_callback;
  void* kv_try_get_user_arg;
};

struct PJRT_Client_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
};

struct PJRT_Client_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_name;  // out
  size_t platform_name_size;  // out
};

struct PJRT_Client_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int process_index;  // out
};

struct PJRT_Client_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* platform_version;  // out
  size_t platform_version_size;  // out
};

struct PJRT_Client_TopologyDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_TopologyDescription* topology;  // out, owned by the client
};

struct PJRT_Client_Devices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* devices;  // out
  size_t num_devices;           // out
};

struct PJRT_Client_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Device* const* addressable_devices;  // out
  size_t num_addressable_devices;           // out
};

struct PJRT_Client_LookupDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int id;
  PJRT_Device* device;  // out
};

struct PJRT_Client_LookupAddressableDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int local_hardware_id;
  PJRT_Device* addressable_device;  // out
};

struct PJRT_Client_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* const* addressable_memories;  // out
  size_t num_addressable_memories;           // out
};

struct PJRT_Program {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  char* code;
  size_t code_size;
  const char* format;  // "mlir", "hlo", "hlo_with_config"
  size_t format_size;
};

struct PJRT_Client_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const PJRT_Program* program;
  const char* compile_options;  // serialized CompileOptionsProto
  size_t compile_options_size;
  PJRT_LoadedExecutable* executable;  // out
};

struct PJRT_Compile_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const PJRT_Program* program;
  const char* compile_options;
  size_t compile_options_size;
  PJRT_Client* client;
  PJRT_Executable* executable;  // out
};

struct PJRT_Client_DefaultDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  int num_replicas;
  int num_partitions;
  size_t default_assignment_size;
  int* default_assignment;  // caller-owned, num_replicas * num_partitions written
};

// ------------------------------------------------------------- buffer types

typedef enum : int {
  PJRT_Buffer_Type_INVALID,
  PJRT_Buffer_Type_PRED,
  PJRT_Buffer_Type_S8,
  PJRT_Buffer_Type_S16,
  PJRT_Buffer_Type_S32,
  PJRT_Buffer_Type_S64,
  PJRT_Buffer_Type_U8,
  PJRT_Buffer_Type_U16,
  PJRT_Buffer_Type_U32,
  PJRT_Buffer_Type_U64,
  PJRT_Buffer_Type_F16,
  PJRT_Buffer_Type_F32,
  PJRT_Buffer_Type_F64,
  PJRT_Buffer_Type_BF16,
  PJRT_Buffer_Type_C64,
  PJRT_Buffer_Type_C128,
  PJRT_Buffer_Type_F8E5M2,
  PJRT_Buffer_Type_F8E4M3FN,
  PJRT_Buffer_Type_F8E4M3B11FNUZ,
  PJRT_Buffer_Type_F8E5M2FNUZ,
  PJRT_Buffer_Type_F8E4M3FNUZ,
  PJRT_Buffer_Type_S4,
  PJRT_Buffer_Type_U4,
  PJRT_Buffer_Type_TOKEN,
  PJRT_Buffer_Type_S2,
  PJRT_Buffer_Type_U2,
  PJRT_Buffer_Type_F8E4M3,
  PJRT_Buffer_Type_F8E3M4,
  PJRT_Buffer_Type_F8E8M0FNU,
  PJRT_Buffer_Type_F4E2M1FN,
  PJRT_Buffer_Type_S1,
  PJRT_Buffer_Type_U1,
  PJRT_Buffer_Type_F6E2M3FN,  // 0.114
  PJRT_Buffer_Type_F6E3M2FN,  // 0.114
} PJRT_Buffer_Type;

typedef enum : int {
  // `data` may be read only during the call.
  PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
  // `data` stays valid until done_with_host_buffer fires.
  PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
  // `data` stays valid while the buffer lives; the runtime may alias it.
  PJRT_HostBufferSemantics_kImmutableZeroCopy,
  // As above and the runtime may write it; on a GPU the same as the second.
  PJRT_HostBufferSemantics_kMutableZeroCopy,
} PJRT_HostBufferSemantics;

typedef enum : int {
  PJRT_Buffer_MemoryLayout_Type_Tiled = 0,
  PJRT_Buffer_MemoryLayout_Type_Strides,
} PJRT_Buffer_MemoryLayout_Type;

struct PJRT_Buffer_MemoryLayout_Tiled {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* minor_to_major;
  size_t minor_to_major_size;
  const int64_t* tile_dims;
  const size_t* tile_dim_sizes;
  size_t num_tiles;
};

struct PJRT_Buffer_MemoryLayout_Strides {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* byte_strides;
  size_t num_byte_strides;
};

struct PJRT_Buffer_MemoryLayout {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  union {
    PJRT_Buffer_MemoryLayout_Tiled tiled;
    PJRT_Buffer_MemoryLayout_Strides strides;
  };
  PJRT_Buffer_MemoryLayout_Type type;
};

struct PJRT_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const void* data;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* byte_strides;  // empty means dense, major to minor
  size_t num_byte_strides;
  PJRT_HostBufferSemantics host_buffer_semantics;
  PJRT_Device* device;
  PJRT_Memory* memory;                      // wins over `device` when set
  PJRT_Buffer_MemoryLayout* device_layout;  // null means dense, major to minor
  PJRT_Event* done_with_host_buffer;        // out
  PJRT_Buffer* buffer;                      // out
};

// ------------------------------------------------------------- descriptions

struct PJRT_DeviceDescription_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int id;  // out
};

struct PJRT_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  int process_index;  // out
};

// Note the order: the count comes before the array here.
struct PJRT_DeviceDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  size_t num_attributes;              // out
  const PJRT_NamedValue* attributes;  // out
};

struct PJRT_DeviceDescription_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* device_kind;  // out
  size_t device_kind_size;  // out
};

struct PJRT_DeviceDescription_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* debug_string;  // out
  size_t debug_string_size;  // out
};

struct PJRT_DeviceDescription_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_DeviceDescription* device_description;
  const char* to_string;  // out
  size_t to_string_size;  // out
};

// ------------------------------------------------------------------ devices

struct PJRT_Device_GetDescription_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_DeviceDescription* device_description;  // out
};

struct PJRT_Device_IsAddressable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  bool is_addressable;  // out
};

struct PJRT_Device_LocalHardwareId_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int local_hardware_id;  // out
};

struct PJRT_Device_AddressableMemories_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* const* memories;  // out
  size_t num_memories;           // out
};

struct PJRT_Device_DefaultMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  PJRT_Memory* memory;  // out
};

struct PJRT_Device_MemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  int64_t bytes_in_use;
  int64_t peak_bytes_in_use;
  bool peak_bytes_in_use_is_set;
  int64_t num_allocs;
  bool num_allocs_is_set;
  int64_t largest_alloc_size;
  bool largest_alloc_size_is_set;
  int64_t bytes_limit;
  bool bytes_limit_is_set;
  int64_t bytes_reserved;
  bool bytes_reserved_is_set;
  int64_t peak_bytes_reserved;
  bool peak_bytes_reserved_is_set;
  int64_t bytes_reservable_limit;
  bool bytes_reservable_limit_is_set;
  int64_t largest_free_block_bytes;
  bool largest_free_block_bytes_is_set;
  int64_t pool_bytes;
  bool pool_bytes_is_set;
  int64_t peak_pool_bytes;
  bool peak_pool_bytes_is_set;
  int64_t peak_allocated_bytes;  // 0.113
  bool peak_allocated_bytes_is_set;
};

struct PJRT_Device_ClearMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
};

struct PJRT_Device_Attributes;
struct PJRT_Device_GetAttributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Device* device;
  const PJRT_NamedValue* attributes;                                      // out
  size_t num_attributes;                                                  // out
  PJRT_Device_Attributes* device_attributes;                              // out
  void (*attributes_deleter)(PJRT_Device_Attributes* device_attributes);  // out
};

// ----------------------------------------------------------------- memories

struct PJRT_Memory_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int id;  // out
};

struct PJRT_Memory_Kind_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* kind;  // out
  size_t kind_size;  // out
};

struct PJRT_Memory_Kind_Id_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  int kind_id;  // out
};

struct PJRT_Memory_DebugString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* debug_string;  // out
  size_t debug_string_size;  // out
};

struct PJRT_Memory_ToString_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  const char* to_string;  // out
  size_t to_string_size;  // out
};

struct PJRT_Memory_AddressableByDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Memory* memory;
  PJRT_Device* const* devices;  // out
  size_t num_devices;           // out
};

// -------------------------------------------------------------- executables

struct PJRT_DeviceAssignmentSerialized;
struct PJRT_LoadedExecutable_GetDeviceAssignment_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* serialized_bytes;  // out, DeviceAssignmentProto
  size_t serialized_bytes_size;  // out
  PJRT_DeviceAssignmentSerialized* serialized_device_assignment;                   // out
  void (*serialized_device_assignment_deleter)(PJRT_DeviceAssignmentSerialized*);  // out
};

// ------------------------------------------------------------------ buffers

struct PJRT_Buffer_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};

struct PJRT_Buffer_ElementType_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_Type type;  // out
};

struct PJRT_Buffer_Dimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* dims;  // out
  size_t num_dims;      // out
};

struct PJRT_Buffer_UnpaddedDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const int64_t* unpadded_dims;  // out
  size_t num_dims;               // out
};

struct PJRT_Buffer_DynamicDimensionIndices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  const size_t* dynamic_dim_indices;  // out
  size_t num_dynamic_dims;            // out
};

struct PJRT_Buffer_GetMemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Buffer_MemoryLayout layout;  // out, data owned by the buffer
};

struct PJRT_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* src;
  PJRT_Buffer_MemoryLayout* host_layout;  // null means the buffer's layout
  void* dst;                              // null asks for the size only
  size_t dst_size;                        // in/out
  PJRT_Event* event;                      // out
};

struct PJRT_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  size_t on_device_size_in_bytes;  // out
};

struct PJRT_Buffer_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};

struct PJRT_Buffer_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_deleted;  // out
};

struct PJRT_Buffer_CopyRawToHost_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* dst;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event* event;  // out
};

struct PJRT_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* dst_device;
  PJRT_Buffer* dst_buffer;  // out
};

struct PJRT_Buffer_CopyToMemory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* dst_memory;
  PJRT_Buffer* dst_buffer;  // out
};

struct PJRT_Buffer_IsOnCpu_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  bool is_on_cpu;  // out
};

struct PJRT_Buffer_Device_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Device* device;  // out
};

struct PJRT_Buffer_Memory_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Memory* memory;  // out
};

struct PJRT_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Event* event;  // out, caller destroys
};

struct PJRT_Buffer_UnsafePointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  uintptr_t buffer_pointer;  // out
};

struct PJRT_Buffer_IncreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};

struct PJRT_Buffer_DecreaseExternalReferenceCount_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
};

struct PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  void* device_memory_ptr;  // out
};

// ----------------------------------------------------------------- topology

struct PJRT_TopologyDescription_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
};

struct PJRT_TopologyDescription_PlatformVersion_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const char* platform_version;  // out
  size_t platform_version_size;  // out
};

struct PJRT_TopologyDescription_PlatformName_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  const char* platform_name;  // out
  size_t platform_name_size;  // out
};

struct PJRT_TopologyDescription_GetDeviceDescriptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_TopologyDescription* topology;
  PJRT_DeviceDescription* const* descriptions;  // out
  size_t num_descriptions;                      // out
};

struct PJRT_TopologyDescription_Attributes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology;
  const PJRT_NamedValue* attributes;  // out
  size_t num_attributes;              // out
};

// -------------------------------------------------------------- the table

// Slots whose argument struct we do not declare; the framework calls each with
// its own struct, we only ever answer UNIMPLEMENTED naming the function.
typedef void (*PJRT_SlotFn)(void);

struct PJRT_Api {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Api_Version pjrt_api_version;
#define JFT_PJRT_SLOT(name, function) PJRT_SlotFn PJRT_##name;
#define JFT_PJRT_VOID_SLOT(name, function) PJRT_SlotFn PJRT_##name;
#define JFT_PJRT_STUB(name) PJRT_SlotFn PJRT_##name;
#include "pjrt/api_slots.def"
#undef JFT_PJRT_STUB
#undef JFT_PJRT_VOID_SLOT
#undef JFT_PJRT_SLOT
};

}  // extern "C"

namespace jft::pjrt::abi {
inline constexpr size_t kSlotCount = 138;
inline constexpr size_t kApiSize =
    JFT_ABI_SIZE_UP_TO(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds);
}  // namespace jft::pjrt::abi

// Layout checks against the published sizes (64-bit targets).
static_assert(sizeof(void*) == 8, "the PJRT ABI is declared for 64-bit targets");
static_assert(sizeof(PJRT_Api) == 40 + 8 * jft::pjrt::abi::kSlotCount);
static_assert(offsetof(PJRT_Api, PJRT_Error_Destroy) == 40);
static_assert(sizeof(PJRT_NamedValue) == 56);
static_assert(offsetof(PJRT_Client_BufferFromHostBuffer_Args, buffer) == 112);
static_assert(offsetof(PJRT_DeviceDescription_Attributes_Args, attributes) == 32);
static_assert(offsetof(PJRT_Device_MemoryStats_Args, peak_pool_bytes_is_set) == 184);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Device_MemoryStats_Args,
                                 peak_allocated_bytes_is_set) == 201);
static_assert(PJRT_Buffer_Type_F6E3M2FN == 33);
static_assert(PJRT_Extension_Type_XlaTransform == 24);
static_assert(offsetof(PJRT_Client_Create_Args, client) == 64);
static_assert(offsetof(PJRT_KeyValueGetCallback_Args, timeout_in_ms) == 32);
static_assert(offsetof(PJRT_KeyValueGetCallback_Args, value_deleter_callback) == 72);
static_assert(offsetof(PJRT_KeyValuePutCallback_Args, user_arg) == 56);
