// Our declarations of the PJRT C API pieces that make buffers without a host
// array: uninitialized, error and alias buffers, the async host-to-device
// transfer manager, and the future variant of CopyRawToHost (pjrt_c_api.h).
// Layouts as the XLA commit jax 0.11 pins (unchanged since they were added);
// offsets checked below.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pjrt/abi.h"

struct PJRT_AsyncHostToDeviceTransferManager;
struct PJRT_FulfillAliasBufferCallback;

struct PJRT_Client_CreateUninitializedBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Device* device;
  PJRT_Memory* memory;  // wins over device when set
  PJRT_Buffer* buffer;  // out
};

struct PJRT_Client_CreateErrorBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Memory* memory;
  PJRT_Buffer* buffer;  // out
};

struct PJRT_Client_CreateAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Memory* memory;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Buffer* alias_buffer;                                 // out
  PJRT_FulfillAliasBufferCallback* fulfill_alias_buffer_cb;  // out
};

struct PJRT_Client_FulfillAliasBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Buffer* buffer;  // the buffer whose memory the alias takes (status OK)
  PJRT_Error_Code status_code;
  const char* error_message;
  size_t error_message_size;
  PJRT_FulfillAliasBufferCallback* fulfill_alias_buffer_cb;
};

// Note: no extension_start in the callback's struct.
struct PJRT_Buffer_CopyRawToHostFuture_Callback_Args {
  size_t struct_size;
  void* callback_data;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
  void* dst;
};

struct PJRT_Buffer_CopyRawToHostFuture_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  int64_t offset;
  int64_t transfer_size;
  PJRT_Event* event;    // out
  void* callback_data;  // out: hand back through future_ready_callback
  void (*future_ready_callback)(PJRT_Buffer_CopyRawToHostFuture_Callback_Args*);  // out
};

struct PJRT_ShapeSpec {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
};

struct PJRT_Client_CreateBuffersForAsyncHostToDevice_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_ShapeSpec* shape_specs;
  size_t num_shape_specs;
  PJRT_Buffer_MemoryLayout** device_layouts;  // optional
  size_t num_device_layouts;
  PJRT_Memory* memory;
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager;  // out
};

#define JFT_TRANSFER_MANAGER_ARGS_HEAD  \
  size_t struct_size;                   \
  PJRT_Extension_Base* extension_start; \
  PJRT_AsyncHostToDeviceTransferManager* transfer_manager

struct PJRT_AsyncHostToDeviceTransferManager_Destroy_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
};

struct PJRT_AsyncHostToDeviceTransferManager_TransferData_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  int buffer_index;
  const void* data;
  int64_t offset;
  int64_t transfer_size;
  bool is_last_transfer;
  PJRT_Event* done_with_h2d_transfer;  // out
};

struct PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  int buffer_index;
  PJRT_Buffer* buffer_out;  // out
};

struct PJRT_AsyncHostToDeviceTransferManager_Device_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  PJRT_Device* device_out;  // out
};

struct PJRT_AsyncHostToDeviceTransferManager_BufferCount_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  size_t buffer_count;  // out
};

struct PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  int buffer_index;
  size_t buffer_size;  // out
};

struct PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  int buffer_index;
  PJRT_Error_Code error_code;
  const char* error_message;
  size_t error_message_size;
};

struct PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  const PJRT_NamedValue* transfer_metadata;
  size_t num_metadata;
};

struct PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args {
  JFT_TRANSFER_MANAGER_ARGS_HEAD;
  int buffer_index;
  const void* data;
  const int64_t* shape_dims;
  size_t shape_num_dims;
  PJRT_Buffer_Type shape_element_type;
  PJRT_Buffer_MemoryLayout* shape_layout;
  PJRT_Event* done_with_h2d_transfer;  // out
};

#undef JFT_TRANSFER_MANAGER_ARGS_HEAD

// The header's PJRT_*_STRUCT_SIZE values.
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Client_CreateUninitializedBuffer_Args, buffer) ==
              80);
static_assert(offsetof(PJRT_Client_CreateUninitializedBuffer_Args, shape_layout) == 48);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Client_CreateErrorBuffer_Args, buffer) == 96);
static_assert(offsetof(PJRT_Client_CreateErrorBuffer_Args, error_message) == 32);
static_assert(offsetof(PJRT_Client_CreateErrorBuffer_Args, shape_element_type) == 64);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Client_CreateAliasBuffer_Args,
                                 fulfill_alias_buffer_cb) == 80);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Client_FulfillAliasBuffer_Args,
                                 fulfill_alias_buffer_cb) == 64);
static_assert(offsetof(PJRT_Client_FulfillAliasBuffer_Args, error_message) == 40);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Buffer_CopyRawToHostFuture_Callback_Args, dst) ==
              48);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Buffer_CopyRawToHostFuture_Args,
                                 future_ready_callback) == 64);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_ShapeSpec, element_type) == 36);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_Client_CreateBuffersForAsyncHostToDevice_Args,
                                 transfer_manager) == 72);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                                 done_with_h2d_transfer) == 72);
static_assert(offsetof(PJRT_AsyncHostToDeviceTransferManager_TransferData_Args,
                       is_last_transfer) == 56);
static_assert(
    JFT_ABI_SIZE_UP_TO(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer_Args,
                       buffer_out) == 40);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_AsyncHostToDeviceTransferManager_BufferSize_Args,
                                 buffer_size) == 40);
static_assert(
    JFT_ABI_SIZE_UP_TO(PJRT_AsyncHostToDeviceTransferManager_SetBufferError_Args,
                       error_message_size) == 48);
static_assert(JFT_ABI_SIZE_UP_TO(PJRT_AsyncHostToDeviceTransferManager_AddMetadata_Args,
                                 num_metadata) == 40);
static_assert(
    JFT_ABI_SIZE_UP_TO(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral_Args,
                       done_with_h2d_transfer) == 80);
