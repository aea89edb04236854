// GetPjrtApi: the one exported symbol. Builds the function table once: every
// slot first gets a stub that answers UNIMPLEMENTED naming its function, then
// the entry points we implement replace their stubs.
#include <string>

#include "pjrt/abi.h"
#include "pjrt/args.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/compile.h"
#include "pjrt/device.h"
#include "pjrt/dlpack.h"
#include "pjrt/error.h"
#include "pjrt/event.h"
#include "pjrt/executable.h"
#include "pjrt/execute.h"
#include "pjrt/ffi_extension.h"
#include "pjrt/memory.h"
#include "pjrt/plugin.h"
#include "pjrt/topology.h"
#include "pjrt/transfer_manager.h"

namespace jft::pjrt {
namespace {

PJRT_Error* notImplemented(const char* function) {
  if (traceCalls()) traceCall(function);
  return toPjrtError(
      unimplemented(std::string(function) + " is not implemented by jax-flagtree"));
}

#define JFT_PJRT_SLOT(name)               \
  PJRT_Error* stub_##name(void*) {        \
    return notImplemented("PJRT_" #name); \
  }
#include "pjrt/api_slots.def"
#undef JFT_PJRT_SLOT

template <typename Function>
PJRT_SlotFn slot(Function* function) {
  return reinterpret_cast<PJRT_SlotFn>(function);
}

PJRT_Api buildApi() {
  PJRT_Api api{};
  api.struct_size = abi::kApiSize;
  api.extension_start = extensionChain();  // FFI and GPU custom-call extensions
  api.pjrt_api_version.struct_size = JFT_PJRT_SIZE_UP_TO(PJRT_Api_Version, minor_version);
  api.pjrt_api_version.major_version = abi::kMajorVersion;
  api.pjrt_api_version.minor_version = abi::kMinorVersion;
#define JFT_PJRT_SLOT(name) api.PJRT_##name = slot(&stub_##name);
#include "pjrt/api_slots.def"
#undef JFT_PJRT_SLOT

  api.PJRT_Error_Destroy = slot(&errorDestroy);
  api.PJRT_Error_Message = slot(&errorMessage);
  api.PJRT_Error_GetCode = slot(&errorGetCode);
  api.PJRT_Error_ForEachPayload = slot(&errorForEachPayload);
  api.PJRT_Plugin_Initialize = slot(&pluginInitialize);
  api.PJRT_Plugin_Attributes = slot(&pluginAttributes);

  api.PJRT_Event_Destroy = slot(&eventDestroy);
  api.PJRT_Event_IsReady = slot(&eventIsReady);
  api.PJRT_Event_Error = slot(&eventError);
  api.PJRT_Event_Await = slot(&eventAwait);
  api.PJRT_Event_OnReady = slot(&eventOnReady);
  api.PJRT_Event_Create = slot(&eventCreate);
  api.PJRT_Event_Set = slot(&eventSet);

  api.PJRT_ExecuteContext_Create = slot(&executeContextCreate);
  api.PJRT_ExecuteContext_Destroy = slot(&executeContextDestroy);

  api.PJRT_Client_Create = slot(&clientCreate);
  api.PJRT_Client_Destroy = slot(&clientDestroy);
  api.PJRT_Client_PlatformName = slot(&clientPlatformName);
  api.PJRT_Client_ProcessIndex = slot(&clientProcessIndex);
  api.PJRT_Client_PlatformVersion = slot(&clientPlatformVersion);
  api.PJRT_Client_Devices = slot(&clientDevices);
  api.PJRT_Client_AddressableDevices = slot(&clientAddressableDevices);
  api.PJRT_Client_LookupDevice = slot(&clientLookupDevice);
  api.PJRT_Client_LookupAddressableDevice = slot(&clientLookupAddressableDevice);
  api.PJRT_Client_AddressableMemories = slot(&clientAddressableMemories);
  api.PJRT_Client_Compile = slot(&clientCompile);
  api.PJRT_Client_DefaultDeviceAssignment = slot(&clientDefaultDeviceAssignment);
  api.PJRT_Client_BufferFromHostBuffer = slot(&clientBufferFromHostBuffer);
  api.PJRT_Client_CreateViewOfDeviceBuffer = slot(&clientCreateViewOfDeviceBuffer);
  api.PJRT_Client_TopologyDescription = slot(&clientTopologyDescription);
  api.PJRT_Client_CreateUninitializedBuffer = slot(&clientCreateUninitializedBuffer);
  api.PJRT_Client_CreateErrorBuffer = slot(&clientCreateErrorBuffer);
  api.PJRT_Client_CreateAliasBuffer = slot(&clientCreateAliasBuffer);
  api.PJRT_Client_FulfillAliasBuffer = slot(&clientFulfillAliasBuffer);
  api.PJRT_Client_CreateBuffersForAsyncHostToDevice =
      slot(&clientCreateBuffersForAsyncHostToDevice);
  api.PJRT_AsyncHostToDeviceTransferManager_Destroy = slot(&transferManagerDestroy);
  api.PJRT_AsyncHostToDeviceTransferManager_TransferData =
      slot(&transferManagerTransferData);
  api.PJRT_AsyncHostToDeviceTransferManager_TransferLiteral =
      slot(&transferManagerTransferLiteral);
  api.PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer =
      slot(&transferManagerRetrieveBuffer);
  api.PJRT_AsyncHostToDeviceTransferManager_Device = slot(&transferManagerDevice);
  api.PJRT_AsyncHostToDeviceTransferManager_BufferCount =
      slot(&transferManagerBufferCount);
  api.PJRT_AsyncHostToDeviceTransferManager_BufferSize = slot(&transferManagerBufferSize);
  api.PJRT_AsyncHostToDeviceTransferManager_SetBufferError =
      slot(&transferManagerSetBufferError);
  api.PJRT_AsyncHostToDeviceTransferManager_AddMetadata =
      slot(&transferManagerAddMetadata);

  api.PJRT_DeviceDescription_Id = slot(&deviceDescriptionId);
  api.PJRT_DeviceDescription_ProcessIndex = slot(&deviceDescriptionProcessIndex);
  api.PJRT_DeviceDescription_Attributes = slot(&deviceDescriptionAttributes);
  api.PJRT_DeviceDescription_Kind = slot(&deviceDescriptionKind);
  api.PJRT_DeviceDescription_DebugString = slot(&deviceDescriptionDebugString);
  api.PJRT_DeviceDescription_ToString = slot(&deviceDescriptionToString);
  api.PJRT_Device_GetDescription = slot(&deviceGetDescription);
  api.PJRT_Device_IsAddressable = slot(&deviceIsAddressable);
  api.PJRT_Device_LocalHardwareId = slot(&deviceLocalHardwareId);
  api.PJRT_Device_AddressableMemories = slot(&deviceAddressableMemories);
  api.PJRT_Device_DefaultMemory = slot(&deviceDefaultMemory);
  api.PJRT_Device_MemoryStats = slot(&deviceMemoryStats);
  api.PJRT_Device_ClearMemoryStats = slot(&deviceClearMemoryStats);
  api.PJRT_Device_GetAttributes = slot(&deviceGetAttributes);

  api.PJRT_Memory_Id = slot(&memoryId);
  api.PJRT_Memory_Kind = slot(&memoryKind);
  api.PJRT_Memory_Kind_Id = slot(&memoryKindId);
  api.PJRT_Memory_DebugString = slot(&memoryDebugString);
  api.PJRT_Memory_ToString = slot(&memoryToString);
  api.PJRT_Memory_AddressableByDevices = slot(&memoryAddressableByDevices);

  api.PJRT_Buffer_Destroy = slot(&bufferDestroy);
  api.PJRT_Buffer_ElementType = slot(&bufferElementType);
  api.PJRT_Buffer_Dimensions = slot(&bufferDimensions);
  api.PJRT_Buffer_UnpaddedDimensions = slot(&bufferUnpaddedDimensions);
  api.PJRT_Buffer_DynamicDimensionIndices = slot(&bufferDynamicDimensionIndices);
  api.PJRT_Buffer_OnDeviceSizeInBytes = slot(&bufferOnDeviceSizeInBytes);
  api.PJRT_Buffer_Device = slot(&bufferDevice);
  api.PJRT_Buffer_Memory = slot(&bufferMemory);
  api.PJRT_Buffer_Delete = slot(&bufferDelete);
  api.PJRT_Buffer_IsDeleted = slot(&bufferIsDeleted);
  api.PJRT_Buffer_IsOnCpu = slot(&bufferIsOnCpu);
  api.PJRT_Buffer_GetMemoryLayout = slot(&bufferGetMemoryLayout);
  api.PJRT_Buffer_ReadyEvent = slot(&bufferReadyEvent);
  api.PJRT_Buffer_UnsafePointer = slot(&bufferUnsafePointer);
  api.PJRT_Buffer_OpaqueDeviceMemoryDataPointer =
      slot(&bufferOpaqueDeviceMemoryDataPointer);
  api.PJRT_Buffer_IncreaseExternalReferenceCount =
      slot(&bufferIncreaseExternalReferenceCount);
  api.PJRT_Buffer_DecreaseExternalReferenceCount =
      slot(&bufferDecreaseExternalReferenceCount);
  api.PJRT_Buffer_ToHostBuffer = slot(&bufferToHostBuffer);
  api.PJRT_Buffer_CopyRawToHost = slot(&bufferCopyRawToHost);
  api.PJRT_Buffer_CopyRawToHostFuture = slot(&bufferCopyRawToHostFuture);
  api.PJRT_Buffer_CopyToDevice = slot(&bufferCopyToDevice);
  api.PJRT_Buffer_CopyToMemory = slot(&bufferCopyToMemory);

  api.PJRT_TopologyDescription_Destroy = slot(&topologyDestroy);
  api.PJRT_TopologyDescription_PlatformName = slot(&topologyPlatformName);
  api.PJRT_TopologyDescription_PlatformVersion = slot(&topologyPlatformVersion);
  api.PJRT_TopologyDescription_GetDeviceDescriptions =
      slot(&topologyGetDeviceDescriptions);
  api.PJRT_TopologyDescription_Attributes = slot(&topologyAttributes);
  api.PJRT_Compile = slot(&compileForTopology);

  api.PJRT_Executable_Destroy = slot(&executableDestroy);
  api.PJRT_Executable_Name = slot(&executableName);
  api.PJRT_Executable_NumReplicas = slot(&executableNumReplicas);
  api.PJRT_Executable_NumPartitions = slot(&executableNumPartitions);
  api.PJRT_Executable_NumOutputs = slot(&executableNumOutputs);
  api.PJRT_Executable_SizeOfGeneratedCodeInBytes =
      slot(&executableSizeOfGeneratedCodeInBytes);
  api.PJRT_Executable_GetCostAnalysis = slot(&executableGetCostAnalysis);
  api.PJRT_Executable_OutputMemoryKinds = slot(&executableOutputMemoryKinds);
  api.PJRT_Executable_ParameterMemoryKinds = slot(&executableParameterMemoryKinds);
  api.PJRT_Executable_OptimizedProgram = slot(&executableOptimizedProgram);
  api.PJRT_Executable_Serialize = slot(&executableSerialize);
  api.PJRT_Executable_DeserializeAndLoad = slot(&executableDeserializeAndLoad);
  api.PJRT_Executable_OutputElementTypes = slot(&executableOutputElementTypes);
  api.PJRT_Executable_OutputDimensions = slot(&executableOutputDimensions);
  api.PJRT_Executable_Fingerprint = slot(&executableFingerprint);
  api.PJRT_Executable_GetCompiledMemoryStats = slot(&executableGetCompiledMemoryStats);
  api.PJRT_Executable_GetCompileOptions = slot(&executableGetCompileOptions);
  api.PJRT_LoadedExecutable_Destroy = slot(&loadedExecutableDestroy);
  api.PJRT_LoadedExecutable_GetExecutable = slot(&loadedExecutableGetExecutable);
  api.PJRT_LoadedExecutable_AddressableDevices =
      slot(&loadedExecutableAddressableDevices);
  api.PJRT_LoadedExecutable_AddressableDeviceLogicalIds =
      slot(&loadedExecutableAddressableDeviceLogicalIds);
  api.PJRT_LoadedExecutable_Delete = slot(&loadedExecutableDelete);
  api.PJRT_LoadedExecutable_IsDeleted = slot(&loadedExecutableIsDeleted);
  api.PJRT_LoadedExecutable_Execute = slot(&loadedExecutableExecute);
  api.PJRT_LoadedExecutable_Fingerprint = slot(&loadedExecutableFingerprint);
  api.PJRT_LoadedExecutable_GetDeviceAssignment =
      slot(&loadedExecutableGetDeviceAssignment);
  return api;
}

}  // namespace
}  // namespace jft::pjrt

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
  static const PJRT_Api api = jft::pjrt::buildApi();
  return &api;
}
