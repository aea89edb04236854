// Our declarations of the PJRT C ABI for executables: compile results, their
// queries and Execute. Same rules as abi.h (written from the published layout;
// field order is ABI, only append what upstream appended); kept apart so the
// executable entry points can grow without touching the shared header.
#pragma once

#include "pjrt/abi.h"

extern "C" {

struct PJRT_Executable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
};

struct PJRT_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
};

struct PJRT_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* loaded_executable;
  PJRT_Executable* executable;  // out, caller destroys
};

struct PJRT_Executable_Name_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_name;  // out
  size_t executable_name_size;  // out
};

struct PJRT_Executable_NumReplicas_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_replicas;  // out
};

struct PJRT_Executable_NumPartitions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_partitions;  // out
};

struct PJRT_LogicalDeviceIds {
  int replica;
  int partition;
};

struct PJRT_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_Device* const* addressable_devices;  // out
  size_t num_addressable_devices;           // out
};

struct PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_LogicalDeviceIds* addressable_device_logical_ids;  // out
  size_t num_addressable_device_logical_ids;              // out
};

// Called twice: with program->code null to learn code_size, then with a buffer.
struct PJRT_Executable_OptimizedProgram_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Program* program;  // in/out
};

struct PJRT_LoadedExecutable_Delete_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
};

struct PJRT_LoadedExecutable_IsDeleted_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  bool is_deleted;  // out
};

struct PJRT_SendCallbackInfo;
struct PJRT_RecvCallbackInfo;
struct PJRT_ExecuteContext;
struct PJRT_MultiSlice_Config;

// 0.112: a callback the runtime calls with an HLO output while the program
// runs. Note the info struct has no struct_size of its own.
typedef void (*PJRT_HloOutputCallback)(int64_t replica_id, int64_t partition_id,
                                       const void* data, const int64_t* shape_dims,
                                       size_t shape_num_dims,
                                       PJRT_Buffer_Type shape_element_type,
                                       int64_t operand_index, void* user_arg);

struct PJRT_HloOutputCallbackInfo {
  void* user_arg;
  PJRT_HloOutputCallback callback;
  int64_t callback_id;
  size_t num_operands;
};

struct PJRT_ExecuteOptions {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_SendCallbackInfo** send_callbacks;
  PJRT_RecvCallbackInfo** recv_callbacks;
  size_t num_send_ops;
  size_t num_recv_ops;
  int launch_id;
  const int64_t* non_donatable_input_indices;
  size_t num_non_donatable_input_indices;
  PJRT_ExecuteContext* context;
  const char* call_location;
  size_t num_tasks;
  int* task_ids;
  int64_t* incarnation_ids;
  PJRT_MultiSlice_Config* multi_slice_config;
  bool use_major_to_minor_data_layout_for_callbacks;
  PJRT_HloOutputCallbackInfo* hlo_output_callbacks;  // 0.112
  size_t num_hlo_output_callbacks;
};

struct PJRT_LoadedExecutable_Execute_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  PJRT_ExecuteOptions* options;
  PJRT_Buffer* const* const* argument_lists;  // [num_devices][num_args]
  size_t num_devices;
  size_t num_args;
  PJRT_Buffer** const* output_lists;    // [num_devices][num_outputs], filled in
  PJRT_Event** device_complete_events;  // optional, [num_devices], filled in
  PJRT_Device* execute_device;          // optional: run on this device only
};

struct PJRT_Executable_NumOutputs_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;  // out
};

struct PJRT_Executable_SizeOfGeneratedCodeInBytes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t size_in_bytes;  // out
};

struct PJRT_Executable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* executable_fingerprint;  // out
  size_t executable_fingerprint_size;  // out
};

// Note the order: the count comes before the array here.
struct PJRT_Executable_GetCostAnalysis_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_properties;              // out
  const PJRT_NamedValue* properties;  // out
};

struct PJRT_Executable_GetCompiledMemoryStats_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  int64_t generated_code_size_in_bytes;  // out
  int64_t argument_size_in_bytes;        // out
  int64_t output_size_in_bytes;          // out
  int64_t alias_size_in_bytes;           // out
  int64_t temp_size_in_bytes;            // out
  int64_t host_generated_code_size_in_bytes;
  int64_t host_argument_size_in_bytes;
  int64_t host_output_size_in_bytes;
  int64_t host_alias_size_in_bytes;
  int64_t host_temp_size_in_bytes;
  int64_t peak_memory_in_bytes;      // out
  int64_t total_size_in_bytes;       // out
  int64_t total_allocation_bytes;    // out, 0.104
  int64_t indefinite_allocations;    // out, 0.104
  int64_t peak_unpadded_heap_bytes;  // out, 0.104
};

struct PJRT_Executable_OutputElementTypes_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  PJRT_Buffer_Type* output_types;  // out
  size_t num_output_types;         // out
};

struct PJRT_Executable_OutputDimensions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;       // out
  const int64_t* dims;      // out, every output's dims concatenated
  const size_t* dim_sizes;  // out, the rank of each output
};

struct PJRT_Executable_OutputMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;               // out
  const char* const* memory_kinds;  // out
  const size_t* memory_kind_sizes;  // out
};

struct PJRT_SerializedExecutable;
struct PJRT_Executable_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const PJRT_Executable* executable;
  const char* serialized_bytes;                                       // out
  size_t serialized_bytes_size;                                       // out
  PJRT_SerializedExecutable* serialized_executable;                   // out
  void (*serialized_executable_deleter)(PJRT_SerializedExecutable*);  // out
};

struct PJRT_SerializedCompileOptions;
struct PJRT_Executable_GetCompileOptions_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  const char* serialized_bytes;                                                // out
  size_t serialized_bytes_size;                                                // out
  PJRT_SerializedCompileOptions* serialized_compile_options;                   // out
  void (*serialized_compile_options_deleter)(PJRT_SerializedCompileOptions*);  // out
};

// 0.111: how a deserialized executable is loaded.
struct PJRT_LoadOptions {
  size_t struct_size;
  const int32_t* computation_origin;
  size_t computation_origin_size;
  PJRT_MultiSlice_Config* multi_slice_config;
};

struct PJRT_Executable_DeserializeAndLoad_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const char* serialized_executable;
  size_t serialized_executable_size;
  PJRT_LoadedExecutable* loaded_executable;  // out
  const char* overridden_serialized_compile_options;
  size_t overridden_serialized_compile_options_size;
  PJRT_LoadOptions* load_options;  // 0.111
};

// Deprecated upstream in favour of PJRT_Executable_Fingerprint.
struct PJRT_LoadedExecutable_Fingerprint_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_LoadedExecutable* executable;
  const char* executable_fingerprint;  // out
  size_t executable_fingerprint_size;  // out
};

struct PJRT_Executable_ParameterMemoryKinds_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;            // out
  const char* const* memory_kinds;  // out
  const size_t* memory_kind_sizes;  // out
};

}  // extern "C"

// Layout checks against the published sizes (64-bit targets).
static_assert(sizeof(PJRT_LogicalDeviceIds) == 8);
static_assert(offsetof(PJRT_ExecuteOptions, launch_id) == 48);
static_assert(offsetof(PJRT_ExecuteOptions, incarnation_ids) == 104);
static_assert(offsetof(PJRT_ExecuteOptions,
                       use_major_to_minor_data_layout_for_callbacks) == 120);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, num_hlo_output_callbacks) == 144);
static_assert(sizeof(PJRT_HloOutputCallbackInfo) == 32);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_LoadOptions, multi_slice_config) == 32);
static_assert(offsetof(PJRT_LoadedExecutable_Execute_Args, execute_device) == 72);
static_assert(offsetof(PJRT_Executable_GetCompiledMemoryStats_Args,
                       total_size_in_bytes) == 112);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Executable_GetCompiledMemoryStats_Args,
                                 peak_unpadded_heap_bytes) == 144);
static_assert(offsetof(PJRT_Executable_DeserializeAndLoad_Args,
                       overridden_serialized_compile_options_size) == 56);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Executable_DeserializeAndLoad_Args, load_options) ==
              72);
