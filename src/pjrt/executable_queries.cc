// The executable queries: names, counts, output signature, sizes, programs.
#include <cstring>

#include "pjrt/args.h"
#include "pjrt/executable.h"
#include "pjrt/named_values.h"

namespace jft::pjrt {
namespace {

const ExecutableInfo& infoOf(const PJRT_Executable& executable) {
  return *executable.info;
}

Status requireInfo(const PJRT_Executable* executable, const char* function) {
  JFT_RETURN_IF_ERROR(requireNonNull(executable, "executable", function));
  if (executable->info == nullptr)
    return invalidArgument(std::string(function) + ": the executable is empty");
  return Status::ok();
}

Status requireLoaded(const PJRT_LoadedExecutable* executable, const char* function) {
  JFT_RETURN_IF_ERROR(requireNonNull(executable, "executable", function));
  if (executable->info == nullptr)
    return invalidArgument(std::string(function) + ": the executable is empty");
  return Status::ok();
}

// Hands out a copy of `bytes` with a deleter, for the Serialize-style calls.
template <typename Handle>
void handOut(std::string bytes, const char*& data, size_t& size, Handle*& handle,
             void (*&deleter)(Handle*)) {
  auto* owned = new std::string(std::move(bytes));
  data = owned->data();
  size = owned->size();
  handle = reinterpret_cast<Handle*>(owned);
  deleter = [](Handle* h) { delete reinterpret_cast<std::string*>(h); };
}

}  // namespace

#define JFT_EXECUTABLE_ENTRY(Function, Name, lastField, body)                          \
  PJRT_Error* Function(PJRT_##Name##_Args* args) {                                     \
    constexpr const char* kName = "PJRT_" #Name;                                       \
    return boundary(kName, [&]() -> Status {                                           \
      JFT_RETURN_IF_ERROR(                                                             \
          checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_##Name##_Args, lastField), kName)); \
      JFT_RETURN_IF_ERROR(requireInfo(args->executable, kName));                       \
      [[maybe_unused]] const ExecutableInfo& info = infoOf(*args->executable);         \
      body;                                                                            \
      return Status::ok();                                                             \
    });                                                                                \
  }

JFT_EXECUTABLE_ENTRY(executableName, Executable_Name, executable_name_size, {
  args->executable_name = info.name.c_str();
  args->executable_name_size = info.name.size();
})
JFT_EXECUTABLE_ENTRY(executableNumReplicas, Executable_NumReplicas, num_replicas,
                     args->num_replicas = static_cast<size_t>(info.numReplicas))
JFT_EXECUTABLE_ENTRY(executableNumPartitions, Executable_NumPartitions, num_partitions,
                     args->num_partitions = static_cast<size_t>(info.numPartitions))
JFT_EXECUTABLE_ENTRY(executableNumOutputs, Executable_NumOutputs, num_outputs,
                     args->num_outputs = info.outputs.size())
JFT_EXECUTABLE_ENTRY(executableSizeOfGeneratedCodeInBytes,
                     Executable_SizeOfGeneratedCodeInBytes, size_in_bytes,
                     args->size_in_bytes = info.codeBytes)
JFT_EXECUTABLE_ENTRY(executableFingerprint, Executable_Fingerprint,
                     executable_fingerprint_size, {
                       args->executable_fingerprint = info.fingerprint.data();
                       args->executable_fingerprint_size = info.fingerprint.size();
                     })
// No analysis yet: an empty property list is a valid answer.
JFT_EXECUTABLE_ENTRY(executableGetCostAnalysis, Executable_GetCostAnalysis, properties, {
  args->num_properties = info.costProperties->size();
  args->properties = info.costProperties->data();
})
JFT_EXECUTABLE_ENTRY(executableGetCompiledMemoryStats, Executable_GetCompiledMemoryStats,
                     total_size_in_bytes, {
                       args->generated_code_size_in_bytes = info.codeBytes;
                       args->argument_size_in_bytes = info.argumentBytes;
                       args->output_size_in_bytes = info.outputBytes;
                       args->alias_size_in_bytes = info.aliasBytes;
                       args->temp_size_in_bytes = info.tempBytes;
                       args->host_generated_code_size_in_bytes = 0;
                       args->host_argument_size_in_bytes = 0;
                       args->host_output_size_in_bytes = 0;
                       args->host_alias_size_in_bytes = 0;
                       args->host_temp_size_in_bytes = 0;
                       args->total_size_in_bytes = info.argumentBytes + info.outputBytes -
                                                   info.aliasBytes + info.tempBytes;
                       args->peak_memory_in_bytes = args->total_size_in_bytes;
                       // The 0.104 statistics: we compute none of them, and the
                       // framework reads them without initialising them first, so
                       // they get upstream's "not computed" value, 0, whenever the
                       // caller's struct has room for them.
                       using A = PJRT_Executable_GetCompiledMemoryStats_Args;
                       if (args->struct_size >=
                           JFT_PJRT_SIZE_UP_TO(A, peak_unpadded_heap_bytes)) {
                         args->total_allocation_bytes = 0;
                         args->indefinite_allocations = 0;
                         args->peak_unpadded_heap_bytes = 0;
                       }
                     })
JFT_EXECUTABLE_ENTRY(executableOutputElementTypes, Executable_OutputElementTypes,
                     num_output_types, {
                       // The ABI hands out a non-const pointer; nobody writes it.
                       args->output_types =
                           const_cast<PJRT_Buffer_Type*>(info.outputTypes.data());
                       args->num_output_types = info.outputTypes.size();
                     })
JFT_EXECUTABLE_ENTRY(executableOutputDimensions, Executable_OutputDimensions, dim_sizes, {
  args->num_outputs = info.outputRanks.size();
  args->dims = info.outputDims.data();
  args->dim_sizes = info.outputRanks.data();
})
JFT_EXECUTABLE_ENTRY(executableOutputMemoryKinds, Executable_OutputMemoryKinds,
                     memory_kind_sizes, {
                       args->num_outputs = info.outputKinds.size();
                       args->memory_kinds = info.outputKinds.data();
                       args->memory_kind_sizes = info.outputKindSizes.data();
                     })
JFT_EXECUTABLE_ENTRY(executableParameterMemoryKinds, Executable_ParameterMemoryKinds,
                     memory_kind_sizes, {
                       args->num_parameters = info.parameterKinds.size();
                       args->memory_kinds = info.parameterKinds.data();
                       args->memory_kind_sizes = info.parameterKindSizes.data();
                     })
JFT_EXECUTABLE_ENTRY(executableOptimizedProgram, Executable_OptimizedProgram, program, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->program, "program", kName));
  PJRT_Program& program = *args->program;
  JFT_RETURN_IF_ERROR(checkArgs(&program, JFT_PJRT_SIZE_UP_TO(PJRT_Program, format_size),
                                "PJRT_Program"));
  program.format = info.optimizedFormat.c_str();
  program.format_size = info.optimizedFormat.size();
  if (program.code == nullptr) {
    program.code_size = info.optimizedProgram.size();
  } else {
    if (program.code_size < info.optimizedProgram.size())
      return invalidArgument(std::string(kName) + ": code buffer of " +
                             std::to_string(program.code_size) +
                             " bytes is smaller than the " +
                             std::to_string(info.optimizedProgram.size()) + " needed");
    std::memcpy(program.code, info.optimizedProgram.data(), info.optimizedProgram.size());
    program.code_size = info.optimizedProgram.size();
  }
})
JFT_EXECUTABLE_ENTRY(executableGetCompileOptions, Executable_GetCompileOptions,
                     serialized_compile_options_deleter,
                     handOut(info.compileOptions, args->serialized_bytes,
                             args->serialized_bytes_size,
                             args->serialized_compile_options,
                             args->serialized_compile_options_deleter))
#undef JFT_EXECUTABLE_ENTRY

PJRT_Error* executableDestroy(PJRT_Executable_Destroy_Args* args) {
  constexpr const char* kName = "PJRT_Executable_Destroy";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_Executable_Destroy_Args, executable), kName));
    delete args->executable;
    return Status::ok();
  });
}

#define JFT_LOADED_ENTRY(Function, Name, lastField, body)                              \
  PJRT_Error* Function(PJRT_##Name##_Args* args) {                                     \
    constexpr const char* kName = "PJRT_" #Name;                                       \
    return boundary(kName, [&]() -> Status {                                           \
      JFT_RETURN_IF_ERROR(                                                             \
          checkArgs(args, JFT_PJRT_SIZE_UP_TO(PJRT_##Name##_Args, lastField), kName)); \
      JFT_RETURN_IF_ERROR(requireLoaded(args->executable, kName));                     \
      [[maybe_unused]] PJRT_LoadedExecutable& executable = *args->executable;          \
      body;                                                                            \
      return Status::ok();                                                             \
    });                                                                                \
  }

JFT_LOADED_ENTRY(loadedExecutableAddressableDevices, LoadedExecutable_AddressableDevices,
                 num_addressable_devices, {
                   args->addressable_devices = executable.addressableDevices.data();
                   args->num_addressable_devices = executable.addressableDevices.size();
                 })
JFT_LOADED_ENTRY(loadedExecutableAddressableDeviceLogicalIds,
                 LoadedExecutable_AddressableDeviceLogicalIds,
                 num_addressable_device_logical_ids, {
                   args->addressable_device_logical_ids = executable.logicalIds.data();
                   args->num_addressable_device_logical_ids =
                       executable.logicalIds.size();
                 })
JFT_LOADED_ENTRY(loadedExecutableDelete, LoadedExecutable_Delete, executable,
                 executable.markDeleted())
JFT_LOADED_ENTRY(loadedExecutableIsDeleted, LoadedExecutable_IsDeleted, is_deleted,
                 args->is_deleted = executable.isDeleted())
JFT_LOADED_ENTRY(loadedExecutableFingerprint, LoadedExecutable_Fingerprint,
                 executable_fingerprint_size, {
                   args->executable_fingerprint = executable.info->fingerprint.data();
                   args->executable_fingerprint_size =
                       executable.info->fingerprint.size();
                 })
#undef JFT_LOADED_ENTRY

PJRT_Error* loadedExecutableGetExecutable(
    PJRT_LoadedExecutable_GetExecutable_Args* args) {
  constexpr const char* kName = "PJRT_LoadedExecutable_GetExecutable";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_LoadedExecutable_GetExecutable_Args, executable),
        kName));
    JFT_RETURN_IF_ERROR(requireLoaded(args->loaded_executable, kName));
    args->executable = new PJRT_Executable{args->loaded_executable->info};
    return Status::ok();
  });
}

PJRT_Error* loadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args* args) {
  constexpr const char* kName = "PJRT_LoadedExecutable_Destroy";
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args, JFT_PJRT_SIZE_UP_TO(PJRT_LoadedExecutable_Destroy_Args, executable),
        kName));
    delete args->executable;
    return Status::ok();
  });
}

}  // namespace jft::pjrt
