// The built plugin as JAX sees it: dlopen, GetPjrtApi, and calls through the
// table. Checks the version, that no slot is null, that unimplemented slots
// name themselves, and that bad arguments never crash.
#include "pjrt/abi.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include "pjrt/abi_executable.h"
#include "pjrt/abi_ffi.h"

namespace {

const PJRT_Api* loadApi() {
  static const PJRT_Api* api = [] {
    void* handle = dlopen(JFT_PJRT_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    EXPECT_NE(handle, nullptr) << dlerror();
    if (handle == nullptr) return static_cast<const PJRT_Api*>(nullptr);
    auto get = reinterpret_cast<const PJRT_Api* (*)()>(dlsym(handle, "GetPjrtApi"));
    EXPECT_NE(get, nullptr);
    return get != nullptr ? get() : nullptr;
  }();
  return api;
}

template <typename Args>
PJRT_Error* call(PJRT_SlotFn slot, Args* args) {
  return reinterpret_cast<PJRT_Error* (*)(Args*)>(slot)(args);
}

struct ErrorInfo {
  PJRT_Error_Code code;
  std::string message;
};

ErrorInfo takeError(const PJRT_Api* api, PJRT_Error* error) {
  EXPECT_NE(error, nullptr);
  if (error == nullptr) return {PJRT_Error_Code_OK, ""};
  PJRT_Error_GetCode_Args code{};
  code.struct_size = sizeof(code);
  code.error = error;
  EXPECT_EQ(call(api->PJRT_Error_GetCode, &code), nullptr);
  PJRT_Error_Message_Args message{};
  message.struct_size = sizeof(message);
  message.error = error;
  reinterpret_cast<void (*)(PJRT_Error_Message_Args*)>(api->PJRT_Error_Message)(&message);
  ErrorInfo info{code.code, std::string(message.message, message.message_size)};
  PJRT_Error_Destroy_Args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.error = error;
  reinterpret_cast<void (*)(PJRT_Error_Destroy_Args*)>(api->PJRT_Error_Destroy)(&destroy);
  return info;
}

TEST(PjrtAbi, VersionAndSize) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->pjrt_api_version.major_version, 0);
  EXPECT_EQ(api->pjrt_api_version.minor_version, 114);
  // 40 bytes of header, then one pointer per slot.
  EXPECT_EQ(api->struct_size, 40u + 8u * 138u);
  EXPECT_EQ(api->pjrt_api_version.struct_size, 24u);
}

// What minors 111..114 changed, as offsets worked out by hand from the field
// lists of the upstream header at jax 0.11's XLA commit (LP64: pointers, size_t
// and int64_t take 8 bytes, bool 1, enums and int 4; each field at the next
// multiple of its size). No slot was added, so the table still ends at 138.
TEST(PjrtAbi, LayoutOfTheMinor111To114Additions) {
  // The table: a 40-byte header (struct_size, extension_start, a 24-byte
  // PJRT_Api_Version), then slots 0..137.
  EXPECT_EQ(sizeof(PJRT_Api), 1144u);
  EXPECT_EQ(offsetof(PJRT_Api, PJRT_Device_ClearMemoryStats), 40u + 8u * 135u);
  EXPECT_EQ(offsetof(PJRT_Api, PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace),
            40u + 8u * 136u);
  EXPECT_EQ(offsetof(PJRT_Api, PJRT_TopologyDescription_GetMemorySpaceKindIds),
            40u + 8u * 137u);

  // 0.111: PJRT_LoadOptions {struct_size, computation_origin,
  // computation_origin_size, multi_slice_config}, and a pointer to it after
  // DeserializeAndLoad's overridden_serialized_compile_options_size (56).
  EXPECT_EQ(offsetof(PJRT_LoadOptions, computation_origin), 8u);
  EXPECT_EQ(offsetof(PJRT_LoadOptions, computation_origin_size), 16u);
  EXPECT_EQ(JFT_ABI_SIZE_UP_TO(PJRT_LoadOptions, multi_slice_config), 32u);
  EXPECT_EQ(offsetof(PJRT_Executable_DeserializeAndLoad_Args, load_options), 64u);
  EXPECT_EQ(JFT_ABI_SIZE_UP_TO(PJRT_Executable_DeserializeAndLoad_Args, load_options),
            72u);

  // 0.112: after incarnation_ids (104) come multi_slice_config (0.97),
  // use_major_to_minor_data_layout_for_callbacks (0.108, a bool), then the
  // callback list, padded up to 128.
  EXPECT_EQ(offsetof(PJRT_ExecuteOptions, multi_slice_config), 112u);
  EXPECT_EQ(offsetof(PJRT_ExecuteOptions, use_major_to_minor_data_layout_for_callbacks),
            120u);
  EXPECT_EQ(offsetof(PJRT_ExecuteOptions, hlo_output_callbacks), 128u);
  EXPECT_EQ(offsetof(PJRT_ExecuteOptions, num_hlo_output_callbacks), 136u);
  EXPECT_EQ(JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, num_hlo_output_callbacks), 144u);
  // {user_arg, callback, callback_id, num_operands}: no struct_size of its own.
  EXPECT_EQ(offsetof(PJRT_HloOutputCallbackInfo, callback), 8u);
  EXPECT_EQ(offsetof(PJRT_HloOutputCallbackInfo, callback_id), 16u);
  EXPECT_EQ(sizeof(PJRT_HloOutputCallbackInfo), 32u);

  // 0.113: after peak_pool_bytes_is_set (184), an int64 at 192 and its flag.
  EXPECT_EQ(offsetof(PJRT_Device_MemoryStats_Args, peak_allocated_bytes), 192u);
  EXPECT_EQ(offsetof(PJRT_Device_MemoryStats_Args, peak_allocated_bytes_is_set), 200u);
  EXPECT_EQ(JFT_ABI_SIZE_UP_TO(PJRT_Device_MemoryStats_Args, peak_allocated_bytes_is_set),
            201u);

  // 0.114: two buffer types after U1 (31); XlaTransform after HostMemoryAllocator.
  EXPECT_EQ(static_cast<int>(PJRT_Buffer_Type_U1), 31);
  EXPECT_EQ(static_cast<int>(PJRT_Buffer_Type_F6E2M3FN), 32);
  EXPECT_EQ(static_cast<int>(PJRT_Buffer_Type_F6E3M2FN), 33);
  EXPECT_EQ(static_cast<int>(PJRT_Extension_Type_HostMemoryAllocator), 23);
  EXPECT_EQ(static_cast<int>(PJRT_Extension_Type_XlaTransform), 24);

  // 0.104, missing from our declarations until now: three int64 statistics
  // after total_size_in_bytes (112).
  EXPECT_EQ(offsetof(PJRT_Executable_GetCompiledMemoryStats_Args, total_allocation_bytes),
            120u);
  EXPECT_EQ(JFT_ABI_SIZE_UP_TO(PJRT_Executable_GetCompiledMemoryStats_Args,
                               peak_unpadded_heap_bytes),
            144u);
}

TEST(PjrtAbi, EverySlotIsFilled) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  const auto* slots = reinterpret_cast<const PJRT_SlotFn*>(
      reinterpret_cast<const char*>(api) + offsetof(PJRT_Api, PJRT_Error_Destroy));
  size_t count =
      (api->struct_size - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void*);
  ASSERT_EQ(count, 138u);
  for (size_t i = 0; i < count; ++i) EXPECT_NE(slots[i], nullptr) << "slot " << i;
}

TEST(PjrtAbi, UnimplementedSlotsNameTheirFunction) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  struct {
    PJRT_SlotFn slot;
    const char* name;
  } cases[] = {
      {api->PJRT_CopyToDeviceStream_TotalBytes, "PJRT_CopyToDeviceStream_TotalBytes"},
      {api->PJRT_CopyToDeviceStream_AddChunk, "PJRT_CopyToDeviceStream_AddChunk"},
      {api->PJRT_TopologyDescription_GetMemorySpaceKindIds,
       "PJRT_TopologyDescription_GetMemorySpaceKindIds"},
  };
  for (const auto& c : cases) {
    char dummy[256] = {};
    ErrorInfo info = takeError(api, call(c.slot, dummy));
    EXPECT_EQ(info.code, PJRT_Error_Code_UNIMPLEMENTED) << c.name;
    EXPECT_NE(info.message.find(c.name), std::string::npos) << info.message;
  }
}

// Slots that were stubs until the buffer kinds, the transfer manager and the
// raw-copy future existed: with empty arguments they now check them (INVALID_ARGUMENT)
// instead of answering UNIMPLEMENTED.
TEST(PjrtAbi, BufferCreationSlotsAreWired) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  struct {
    PJRT_SlotFn slot;
    const char* name;
  } cases[] = {
      {api->PJRT_Client_CreateUninitializedBuffer, "CreateUninitializedBuffer"},
      {api->PJRT_Client_CreateErrorBuffer, "CreateErrorBuffer"},
      {api->PJRT_Client_CreateAliasBuffer, "CreateAliasBuffer"},
      {api->PJRT_Client_FulfillAliasBuffer, "FulfillAliasBuffer"},
      {api->PJRT_Client_CreateBuffersForAsyncHostToDevice, "CreateBuffersForAsync"},
      {api->PJRT_AsyncHostToDeviceTransferManager_TransferData, "TransferData"},
      {api->PJRT_AsyncHostToDeviceTransferManager_TransferLiteral, "TransferLiteral"},
      {api->PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer, "RetrieveBuffer"},
      {api->PJRT_AsyncHostToDeviceTransferManager_Device, "Device"},
      {api->PJRT_AsyncHostToDeviceTransferManager_BufferCount, "BufferCount"},
      {api->PJRT_AsyncHostToDeviceTransferManager_BufferSize, "BufferSize"},
      {api->PJRT_AsyncHostToDeviceTransferManager_SetBufferError, "SetBufferError"},
      {api->PJRT_AsyncHostToDeviceTransferManager_AddMetadata, "AddMetadata"},
      {api->PJRT_Buffer_CopyRawToHostFuture, "CopyRawToHostFuture"},
  };
  for (const auto& c : cases) {
    alignas(8) unsigned char args[512] = {};
    size_t size = sizeof(args);
    std::memcpy(args, &size, sizeof(size));
    ErrorInfo info = takeError(api, call(c.slot, args));
    EXPECT_EQ(info.code, PJRT_Error_Code_INVALID_ARGUMENT)
        << c.name << ": " << info.message;
  }
}

TEST(PjrtAbi, ErrorDestroyAcceptsNull) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  auto destroy =
      reinterpret_cast<void (*)(PJRT_Error_Destroy_Args*)>(api->PJRT_Error_Destroy);
  PJRT_Error_Destroy_Args args{};
  args.struct_size = sizeof(args);
  args.error = nullptr;
  destroy(&args);
  destroy(nullptr);
}

TEST(PjrtAbi, ErrorsCarryTheirOwnFunctionTable) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  PJRT_Error* error = call<PJRT_Client_Create_Args>(api->PJRT_Client_Create, nullptr);
  ASSERT_NE(error, nullptr);
  ASSERT_NE(error->vtable, nullptr);
  EXPECT_EQ(error->vtable->get_code(error), PJRT_Error_Code_INVALID_ARGUMENT);
  const char* text = nullptr;
  size_t size = 0;
  error->vtable->message(error, &text, &size);
  EXPECT_NE(std::string(text, size).find("PJRT_Client_Create"), std::string::npos);
  error->vtable->destroy(error);
}

TEST(PjrtAbi, NullAndShortArgsAreInvalidArgument) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(
      takeError(api, call<PJRT_Client_Create_Args>(api->PJRT_Client_Create, nullptr))
          .code,
      PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(
      takeError(api, call<PJRT_Event_Await_Args>(api->PJRT_Event_Await, nullptr)).code,
      PJRT_Error_Code_INVALID_ARGUMENT);
  PJRT_Buffer_Dimensions_Args dims{};
  dims.struct_size = 8;  // far too short
  EXPECT_EQ(takeError(api, call(api->PJRT_Buffer_Dimensions, &dims)).code,
            PJRT_Error_Code_INVALID_ARGUMENT);
  dims.struct_size = sizeof(dims);
  dims.buffer = nullptr;
  ErrorInfo info = takeError(api, call(api->PJRT_Buffer_Dimensions, &dims));
  EXPECT_EQ(info.code, PJRT_Error_Code_INVALID_ARGUMENT);
  EXPECT_NE(info.message.find("buffer is null"), std::string::npos) << info.message;
  PJRT_Client_Devices_Args devices{};
  devices.struct_size = sizeof(devices);
  EXPECT_EQ(takeError(api, call(api->PJRT_Client_Devices, &devices)).code,
            PJRT_Error_Code_INVALID_ARGUMENT);
  PJRT_Client_BufferFromHostBuffer_Args fromHost{};
  fromHost.struct_size = sizeof(fromHost);
  EXPECT_EQ(takeError(api, call(api->PJRT_Client_BufferFromHostBuffer, &fromHost)).code,
            PJRT_Error_Code_INVALID_ARGUMENT);
}

// Every slot, called with null args, a zero struct_size, and an all-null struct
// of generous size: never a crash, only the answers the C API allows.
TEST(PjrtAbi, EverySlotSurvivesNullAndEmptyArgs) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  static const char* const kNames[] = {
#define JFT_PJRT_SLOT(name, function) #name,
#define JFT_PJRT_VOID_SLOT(name, function) #name,
#define JFT_PJRT_STUB(name) #name,
#include "pjrt/api_slots.def"
#undef JFT_PJRT_STUB
#undef JFT_PJRT_VOID_SLOT
#undef JFT_PJRT_SLOT
  };
  const auto* slots = reinterpret_cast<const PJRT_SlotFn*>(
      reinterpret_cast<const char*>(api) + offsetof(PJRT_Api, PJRT_Error_Destroy));
  // Null pointers are explicitly fine for these (destroy of nothing, queries
  // that need no input).
  const std::set<std::string> okWithNulls = {"Event_Destroy",
                                             "Client_Destroy",
                                             "Buffer_Destroy",
                                             "TopologyDescription_Destroy",
                                             "Plugin_Initialize",
                                             "Plugin_Attributes",
                                             "Event_Create",
                                             "Executable_Destroy",
                                             "LoadedExecutable_Destroy",
                                             "ExecuteContext_Create",
                                             "ExecuteContext_Destroy",
                                             "AsyncHostToDeviceTransferManager_Destroy"};
  for (size_t i = 0; i < 138; ++i) {
    std::string name = kNames[i];
    SCOPED_TRACE(name);
    if (name == "Error_Destroy" || name == "Error_Message") {
      reinterpret_cast<void (*)(void*)>(slots[i])(nullptr);
      alignas(8) unsigned char zeros[512] = {};
      reinterpret_cast<void (*)(void*)>(slots[i])(zeros);
      continue;
    }
    auto fn = reinterpret_cast<PJRT_Error* (*)(void*)>(slots[i]);
    ErrorInfo nullArgs = takeError(api, fn(nullptr));
    EXPECT_TRUE(nullArgs.code == PJRT_Error_Code_INVALID_ARGUMENT ||
                nullArgs.code == PJRT_Error_Code_UNIMPLEMENTED)
        << nullArgs.code << " " << nullArgs.message;

    alignas(8) unsigned char args[512] = {};
    ErrorInfo emptyArgs = takeError(api, fn(args));
    EXPECT_TRUE(emptyArgs.code == PJRT_Error_Code_INVALID_ARGUMENT ||
                emptyArgs.code == PJRT_Error_Code_UNIMPLEMENTED)
        << emptyArgs.code << " " << emptyArgs.message;

    std::memset(args, 0, sizeof(args));
    size_t size = sizeof(args);
    std::memcpy(args, &size, sizeof(size));
    PJRT_Error* error = fn(args);
    if (error == nullptr) {
      EXPECT_TRUE(okWithNulls.count(name) || name == "Client_Create") << "succeeded";
      void* created = nullptr;
      if (name == "Event_Create") {
        std::memcpy(&created, args + offsetof(PJRT_Event_Create_Args, event),
                    sizeof(created));
        PJRT_Event_Destroy_Args destroy{sizeof(destroy), nullptr,
                                        static_cast<PJRT_Event*>(created)};
        EXPECT_EQ(call(api->PJRT_Event_Destroy, &destroy), nullptr);
      } else if (name == "ExecuteContext_Create") {
        std::memcpy(&created, args + offsetof(PJRT_ExecuteContext_Create_Args, context),
                    sizeof(created));
        PJRT_ExecuteContext_Destroy_Args destroy{
            sizeof(destroy), nullptr, static_cast<PJRT_ExecuteContext*>(created)};
        EXPECT_EQ(call(api->PJRT_ExecuteContext_Destroy, &destroy), nullptr);
      } else if (name == "Client_Create") {  // only where a GPU is present
        std::memcpy(&created, args + offsetof(PJRT_Client_Create_Args, client),
                    sizeof(created));
        PJRT_Client_Destroy_Args destroy{sizeof(destroy), nullptr,
                                         static_cast<PJRT_Client*>(created)};
        EXPECT_EQ(call(api->PJRT_Client_Destroy, &destroy), nullptr);
      }
      continue;
    }
    ErrorInfo info = takeError(api, error);
    EXPECT_TRUE(
        info.code == PJRT_Error_Code_INVALID_ARGUMENT ||
        info.code == PJRT_Error_Code_UNIMPLEMENTED ||
        (name == "Client_Create" && info.code == PJRT_Error_Code_FAILED_PRECONDITION))
        << info.code << " " << info.message;
  }
}

TEST(PjrtAbi, PluginAttributesAdvertiseStablehlo) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  PJRT_Plugin_Initialize_Args init{};
  init.struct_size = sizeof(init);
  EXPECT_EQ(call(api->PJRT_Plugin_Initialize, &init), nullptr);
  PJRT_Plugin_Attributes_Args args{};
  args.struct_size = sizeof(args);
  ASSERT_EQ(call(api->PJRT_Plugin_Attributes, &args), nullptr);
  bool sawCurrent = false;
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue& v = args.attributes[i];
    EXPECT_TRUE(v.type == PJRT_NamedValue_kString || v.type == PJRT_NamedValue_kInt64 ||
                v.type == PJRT_NamedValue_kInt64List);
    if (std::string(v.name, v.name_size) == "stablehlo_current_version") {
      sawCurrent = true;
      ASSERT_EQ(v.type, PJRT_NamedValue_kInt64List);
      ASSERT_EQ(v.value_size, 3u);
      EXPECT_EQ(v.int64_array_value[0], 1);
      EXPECT_EQ(v.int64_array_value[1], 20);
      EXPECT_EQ(v.int64_array_value[2], 0);
    }
  }
  EXPECT_TRUE(sawCurrent);
}

TEST(PjrtAbi, ClientCreateWithoutDriverFailsClearly) {
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver != nullptr) {
    dlclose(driver);
    GTEST_SKIP() << "a CUDA driver is installed here";
  }
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  PJRT_Client_Create_Args args{};
  args.struct_size = sizeof(args);
  ErrorInfo info = takeError(api, call(api->PJRT_Client_Create, &args));
  EXPECT_EQ(info.code, PJRT_Error_Code_FAILED_PRECONDITION);
  EXPECT_NE(info.message.find("libcuda.so.1"), std::string::npos) << info.message;
}

TEST(PjrtAbi, CompileSaysTheRouteIsMissingAndDumpsTheInput) {
  const PJRT_Api* api = loadApi();
  ASSERT_NE(api, nullptr);
  auto dir = std::filesystem::temp_directory_path() / "jft_abi_compile_dump";
  std::filesystem::remove_all(dir);
  std::string flags = "--xla_dump_to=" + dir.string();
  setenv("XLA_FLAGS", flags.c_str(), 1);
  char code[] = "ML\xEFR-program";
  PJRT_Program program{};
  program.struct_size = sizeof(program);
  program.code = code;
  program.code_size = sizeof(code) - 1;
  program.format = "mlir";
  program.format_size = 4;
  PJRT_Compile_Args args{};
  args.struct_size = sizeof(args);
  args.program = &program;
  args.compile_options = "opts";
  args.compile_options_size = 4;
  ErrorInfo info = takeError(api, call(api->PJRT_Compile, &args));
  unsetenv("XLA_FLAGS");
  EXPECT_EQ(info.code, PJRT_Error_Code_UNIMPLEMENTED);
  EXPECT_NE(info.message.find("compiler route"), std::string::npos) << info.message;
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 2u);
  std::filesystem::remove_all(dir);
}

}  // namespace
