// Our declarations of the PJRT C API pieces DLPack exchange uses: the
// argument struct of PJRT_Client_CreateViewOfDeviceBuffer (pjrt_c_api.h) and
// the stream extension (pjrt_c_api_stream_extension.h, version 0), through
// which JAX orders a producer's stream before a consumer's. Layouts as the
// XLA commit jax 0.11 pins; offsets checked below.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pjrt/abi.h"

struct PJRT_Client_CreateViewOfDeviceBuffer_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  void* device_buffer_ptr;  // not owned: we never free it
  const int64_t* dims;
  size_t num_dims;
  PJRT_Buffer_Type element_type;
  PJRT_Buffer_MemoryLayout* layout;  // null: dense, major to minor
  PJRT_Device* device;
  void (*on_delete_callback)(void* device_buffer_ptr, void* user_arg);  // optional
  void* on_delete_callback_arg;
  intptr_t stream;      // optional producer stream (CUstream), 0 for none
  PJRT_Buffer* buffer;  // out
  PJRT_Memory* memory;  // appended later: read only when struct_size covers it
};

struct PJRT_Get_Stream_For_External_Ready_Events_Args {
  size_t struct_size;
  PJRT_Device* device;
  intptr_t stream;  // out
};

struct PJRT_Wait_Until_Buffer_Ready_On_Stream_Args {
  size_t struct_size;
  intptr_t stream;
  PJRT_Buffer* buffer;
};

struct PJRT_Stream_Extension {
  PJRT_Extension_Base base;
  PJRT_Error* (*get_stream)(PJRT_Get_Stream_For_External_Ready_Events_Args* args);
  PJRT_Error* (*wait_stream)(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args* args);
};

static_assert(offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, element_type) == 48);
static_assert(offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, layout) == 56);
static_assert(offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, on_delete_callback) ==
              72);
static_assert(offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, stream) == 88);
static_assert(offsetof(PJRT_Client_CreateViewOfDeviceBuffer_Args, buffer) == 96);
static_assert(sizeof(PJRT_Get_Stream_For_External_Ready_Events_Args) == 24);
static_assert(offsetof(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args, buffer) == 16);
static_assert(offsetof(PJRT_Stream_Extension, get_stream) == 24);
static_assert(offsetof(PJRT_Stream_Extension, wait_stream) == 32);
