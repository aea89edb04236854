// Our declarations of the PJRT profiler extension (pjrt_c_api_profiler_extension.h,
// extension version 1) and the plugin profiler C API it points at
// (xla/backends/profiler/plugin/profiler_c_api.h, PLUGIN_PROFILER_VERSION 1),
// through which jaxlib's PluginTracer creates, starts, stops and collects a
// profiler of ours at every jax.profiler trace. Layouts as the XLA commit
// jaxlib 0.11 pins; offsets checked below.
//
// PluginTracer refuses a PLUGIN_Profiler_Api whose struct_size differs from
// the one it was built with. Later headers append three entry points
// (consume, consume_result_destroy, serialize) after collect_data; we declare
// and implement them and answer the size of the table that holds them (104),
// unless JFT_PROFILER_API_SIZE=80 asks for the original eight-entry table.
// The three appended argument structs are read from their uses in XLA's
// plugin_tracer_impl.cc, not from a header: jaxlib 0.11 only calls
// create/start/stop/collect_data/destroy and the error helpers.
//
// jaxlib fills only the fields it uses of the lifecycle arguments and leaves
// struct_size unset: those entry points must not check it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pjrt/abi.h"

extern "C" {

struct PLUGIN_Profiler;
struct PLUGIN_Profiler_Error;
struct PLUGIN_Profiler_ConsumeResult;

struct PLUGIN_Profiler_Error_Destroy_Args {
  size_t struct_size;
  void* priv;
  PLUGIN_Profiler_Error* error;
};

struct PLUGIN_Profiler_Error_Message_Args {
  size_t struct_size;
  void* priv;
  const PLUGIN_Profiler_Error* error;
  const char* message;  // out, lives as long as `error`
  size_t message_size;  // out
};

struct PLUGIN_Profiler_Error_GetCode_Args {
  size_t struct_size;
  void* priv;
  const PLUGIN_Profiler_Error* error;
  int code;  // out: absl::StatusCode, numbered as PJRT_Error_Code
};

struct PLUGIN_Profiler_Create_Args {
  size_t struct_size;
  const char* options;  // a serialized tensorflow.ProfileOptions
  size_t options_size;
  PLUGIN_Profiler* profiler;  // out
};

struct PLUGIN_Profiler_Destroy_Args {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
};

struct PLUGIN_Profiler_Start_Args {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
};

struct PLUGIN_Profiler_Stop_Args {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
};

// With buffer == null: answers the size and, as jaxlib reads it, a pointer to
// bytes the profiler owns. With a buffer: copies the bytes into it.
struct PLUGIN_Profiler_CollectData_Args {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
  uint8_t* buffer;              // in/out
  size_t buffer_size_in_bytes;  // out
};

struct PLUGIN_Profiler_Consume_Args {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
  PLUGIN_Profiler_ConsumeResult* result;  // out
};

struct PLUGIN_Profiler_ConsumeResult_Destroy_Args {
  size_t struct_size;
  PLUGIN_Profiler_ConsumeResult* consume_result;
};

struct PLUGIN_Profiler_Serialize_Args {
  size_t struct_size;
  PLUGIN_Profiler* profiler;
  PLUGIN_Profiler_ConsumeResult* consume_result;
  const uint8_t* serialized_bytes;  // out, lives as long as consume_result
  size_t serialized_size;           // out
};

struct PLUGIN_Profiler_Api {
  size_t struct_size;
  void* priv;
  void (*error_destroy)(PLUGIN_Profiler_Error_Destroy_Args* args);
  void (*error_message)(PLUGIN_Profiler_Error_Message_Args* args);
  PLUGIN_Profiler_Error* (*error_get_code)(PLUGIN_Profiler_Error_GetCode_Args* args);
  PLUGIN_Profiler_Error* (*create)(PLUGIN_Profiler_Create_Args* args);
  PLUGIN_Profiler_Error* (*destroy)(PLUGIN_Profiler_Destroy_Args* args);
  PLUGIN_Profiler_Error* (*start)(PLUGIN_Profiler_Start_Args* args);
  PLUGIN_Profiler_Error* (*stop)(PLUGIN_Profiler_Stop_Args* args);
  PLUGIN_Profiler_Error* (*collect_data)(PLUGIN_Profiler_CollectData_Args* args);
  // Appended by later headers (see above).
  PLUGIN_Profiler_Error* (*consume)(PLUGIN_Profiler_Consume_Args* args);
  void (*consume_result_destroy)(PLUGIN_Profiler_ConsumeResult_Destroy_Args* args);
  PLUGIN_Profiler_Error* (*serialize)(PLUGIN_Profiler_Serialize_Args* args);
};

// `profiler_api` may be null when the struct is used as an argument
// extension (then traceme_context_id is meaningful); ours always sets it.
struct PJRT_Profiler_Extension {
  PJRT_Extension_Base base;
  PLUGIN_Profiler_Api* profiler_api;
  int64_t traceme_context_id;
};

}  // extern "C"

namespace jft::pjrt::abi {
// PLUGIN_Profiler_Api_STRUCT_SIZE through collect_data, and through serialize.
inline constexpr size_t kProfilerApiSizeV1 = 80;
inline constexpr size_t kProfilerApiSizeWithConsume = 104;
}  // namespace jft::pjrt::abi

static_assert(sizeof(PLUGIN_Profiler_Error_Destroy_Args) == 24);
static_assert(offsetof(PLUGIN_Profiler_Error_Message_Args, message_size) == 32);
static_assert(offsetof(PLUGIN_Profiler_Error_GetCode_Args, code) == 24);
static_assert(offsetof(PLUGIN_Profiler_Create_Args, options_size) == 16);
static_assert(offsetof(PLUGIN_Profiler_Create_Args, profiler) == 24);
static_assert(sizeof(PLUGIN_Profiler_Destroy_Args) == 16);
static_assert(sizeof(PLUGIN_Profiler_Start_Args) == 16);
static_assert(sizeof(PLUGIN_Profiler_Stop_Args) == 16);
static_assert(offsetof(PLUGIN_Profiler_CollectData_Args, buffer) == 16);
static_assert(offsetof(PLUGIN_Profiler_CollectData_Args, buffer_size_in_bytes) == 24);
static_assert(offsetof(PLUGIN_Profiler_Api, error_destroy) == 16);
static_assert(offsetof(PLUGIN_Profiler_Api, create) == 40);
static_assert(offsetof(PLUGIN_Profiler_Api, collect_data) == 72);
static_assert(offsetof(PLUGIN_Profiler_Api, collect_data) + 8 ==
              jft::pjrt::abi::kProfilerApiSizeV1);
static_assert(sizeof(PLUGIN_Profiler_Api) == jft::pjrt::abi::kProfilerApiSizeWithConsume);
static_assert(offsetof(PJRT_Profiler_Extension, profiler_api) == 24);
static_assert(sizeof(PJRT_Profiler_Extension) == 40);
