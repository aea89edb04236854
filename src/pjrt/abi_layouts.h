// Our declarations of the PJRT layouts extension (pjrt_c_api_layouts_extension.h,
// version 1, with the executable queries of C API 0.93): opaque layouts a
// caller serializes to XLA's layout text ("{0,1}"), the default layout of a
// shape, a buffer's layout and an executable's parameter and output layouts.
// Layouts as the XLA commit jax 0.11 pins; offsets checked below.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pjrt/abi.h"

typedef struct PJRT_Layouts_MemoryLayout PJRT_Layouts_MemoryLayout;
typedef struct PJRT_Layouts_SerializedLayout PJRT_Layouts_SerializedLayout;

struct PJRT_Layouts_MemoryLayout_Destroy_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Layouts_MemoryLayout* layout;  // may be null
};

struct PJRT_Layouts_MemoryLayout_Serialize_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Layouts_MemoryLayout* layout;
  const char* serialized_bytes;                      // out, lives as serialized_layout
  size_t serialized_bytes_size;                      // out
  PJRT_Layouts_SerializedLayout* serialized_layout;  // out
  void (*serialized_layout_deleter)(PJRT_Layouts_SerializedLayout* layout);  // out
};

struct PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Client* client;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout* layout;  // out, the caller destroys it
};

struct PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Buffer* buffer;
  PJRT_Layouts_MemoryLayout* layout;  // out, the caller destroys it
};

struct PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_TopologyDescription* topology_description;
  PJRT_Buffer_Type type;
  const int64_t* dims;
  size_t num_dims;
  PJRT_Layouts_MemoryLayout* layout;  // out, the caller destroys it
};

struct PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_outputs;                   // out
  PJRT_Layouts_MemoryLayout** layouts;  // out, owned by the executable
};

struct PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args {
  size_t struct_size;
  PJRT_Extension_Base* extension_start;
  PJRT_Executable* executable;
  size_t num_parameters;                // out
  PJRT_Layouts_MemoryLayout** layouts;  // out, owned by the executable
};

struct PJRT_Layouts_Extension {
  PJRT_Extension_Base base;
  PJRT_Error* (*PJRT_Layouts_MemoryLayout_Destroy)(
      PJRT_Layouts_MemoryLayout_Destroy_Args* args);
  PJRT_Error* (*PJRT_Layouts_MemoryLayout_Serialize)(
      PJRT_Layouts_MemoryLayout_Serialize_Args* args);
  PJRT_Error* (*PJRT_Layouts_PJRT_Client_GetDefaultLayout)(
      PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args* args);
  PJRT_Error* (*PJRT_Layouts_PJRT_Buffer_MemoryLayout)(
      PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args* args);
  PJRT_Error* (*PJRT_Layouts_PJRT_Topology_GetDefaultLayout)(
      PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args* args);
  PJRT_Error* (*PJRT_Layouts_PJRT_Executable_GetOutputLayouts)(
      PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args* args);
  PJRT_Error* (*PJRT_Layouts_PJRT_Executable_GetParameterLayouts)(
      PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args* args);
};

static_assert(sizeof(PJRT_Layouts_MemoryLayout_Destroy_Args) == 24);
static_assert(sizeof(PJRT_Layouts_MemoryLayout_Serialize_Args) == 56);
static_assert(offsetof(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, type) == 24);
static_assert(offsetof(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, dims) == 32);
static_assert(offsetof(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args, layout) == 48);
static_assert(sizeof(PJRT_Layouts_PJRT_Client_GetDefaultLayout_Args) == 56);
static_assert(sizeof(PJRT_Layouts_PJRT_Buffer_MemoryLayout_Args) == 32);
static_assert(sizeof(PJRT_Layouts_PJRT_Topology_GetDefaultLayout_Args) == 56);
static_assert(sizeof(PJRT_Layouts_PJRT_Executable_GetOutputLayouts_Args) == 40);
static_assert(sizeof(PJRT_Layouts_PJRT_Executable_GetParameterLayouts_Args) == 40);
static_assert(offsetof(PJRT_Layouts_Extension, PJRT_Layouts_MemoryLayout_Destroy) == 24);
static_assert(offsetof(PJRT_Layouts_Extension,
                       PJRT_Layouts_PJRT_Executable_GetOutputLayouts) == 64);
static_assert(sizeof(PJRT_Layouts_Extension) == 80);
