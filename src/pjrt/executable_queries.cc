// The executable queries: names, counts, output signature, sizes, programs.
#include <cstring>

#include "pjrt/args.h"
#include "pjrt/entry_points.h"
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

#define JFT_EXECUTABLE_ENTRY(Function, Name, lastField, ...)                   \
  JFT_PJRT_ENTRY(                                                              \
      Function, Name, lastField,                                               \
      JFT_RETURN_IF_ERROR(requireInfo(args->executable, kName));               \
      [[maybe_unused]] const ExecutableInfo& info = infoOf(*args->executable); \
      __VA_ARGS__)

JFT_EXECUTABLE_ENTRY(executableName, Executable_Name, executable_name_size,
                     setView(args->executable_name, args->executable_name_size,
                             info.name))
JFT_EXECUTABLE_ENTRY(executableNumReplicas, Executable_NumReplicas, num_replicas,
                     args->num_replicas = static_cast<size_t>(info.num_replicas))
JFT_EXECUTABLE_ENTRY(executableNumPartitions, Executable_NumPartitions, num_partitions,
                     args->num_partitions = static_cast<size_t>(info.num_partitions))
JFT_EXECUTABLE_ENTRY(executableNumOutputs, Executable_NumOutputs, num_outputs,
                     args->num_outputs = info.outputs.size())
JFT_EXECUTABLE_ENTRY(executableSizeOfGeneratedCodeInBytes,
                     Executable_SizeOfGeneratedCodeInBytes, size_in_bytes,
                     args->size_in_bytes = info.code_bytes)
JFT_EXECUTABLE_ENTRY(executableFingerprint, Executable_Fingerprint,
                     executable_fingerprint_size,
                     setView(args->executable_fingerprint,
                             args->executable_fingerprint_size, info.fingerprint))
// No analysis yet: an empty property list is a valid answer.
JFT_EXECUTABLE_ENTRY(executableGetCostAnalysis, Executable_GetCostAnalysis, properties, {
  args->num_properties = info.cost_properties->size();
  args->properties = info.cost_properties->data();
})
JFT_EXECUTABLE_ENTRY(executableGetCompiledMemoryStats, Executable_GetCompiledMemoryStats,
                     total_size_in_bytes, {
                       args->generated_code_size_in_bytes = info.code_bytes;
                       args->argument_size_in_bytes = info.argument_bytes;
                       args->output_size_in_bytes = info.output_bytes;
                       args->alias_size_in_bytes = info.alias_bytes;
                       args->temp_size_in_bytes = info.temp_bytes;
                       args->host_generated_code_size_in_bytes = 0;
                       args->host_argument_size_in_bytes = 0;
                       args->host_output_size_in_bytes = 0;
                       args->host_alias_size_in_bytes = 0;
                       args->host_temp_size_in_bytes = 0;
                       args->total_size_in_bytes = info.argument_bytes +
                                                   info.output_bytes - info.alias_bytes +
                                                   info.temp_bytes;
                       args->peak_memory_in_bytes = args->total_size_in_bytes;
                       // The 0.104 statistics: we compute none of them, and the
                       // framework reads them without initialising them first, so
                       // they get upstream's "not computed" value, 0, whenever the
                       // caller's struct has room for them.
                       using A = PJRT_Executable_GetCompiledMemoryStats_Args;
                       if (args->struct_size >=
                           JFT_ABI_SIZE_UP_TO(A, peak_unpadded_heap_bytes)) {
                         args->total_allocation_bytes = 0;
                         args->indefinite_allocations = 0;
                         args->peak_unpadded_heap_bytes = 0;
                       }
                     })
JFT_EXECUTABLE_ENTRY(executableOutputElementTypes, Executable_OutputElementTypes,
                     num_output_types, {
                       // The ABI hands out a non-const pointer; nobody writes it.
                       args->output_types =
                           const_cast<PJRT_Buffer_Type*>(info.output_types.data());
                       args->num_output_types = info.output_types.size();
                     })
JFT_EXECUTABLE_ENTRY(executableOutputDimensions, Executable_OutputDimensions, dim_sizes, {
  args->num_outputs = info.output_ranks.size();
  args->dims = info.output_dims.data();
  args->dim_sizes = info.output_ranks.data();
})
JFT_EXECUTABLE_ENTRY(executableOutputMemoryKinds, Executable_OutputMemoryKinds,
                     memory_kind_sizes, {
                       args->num_outputs = info.output_kinds.size();
                       args->memory_kinds = info.output_kinds.data();
                       args->memory_kind_sizes = info.output_kind_sizes.data();
                     })
JFT_EXECUTABLE_ENTRY(executableParameterMemoryKinds, Executable_ParameterMemoryKinds,
                     memory_kind_sizes, {
                       args->num_parameters = info.parameter_kinds.size();
                       args->memory_kinds = info.parameter_kinds.data();
                       args->memory_kind_sizes = info.parameter_kind_sizes.data();
                     })
JFT_EXECUTABLE_ENTRY(executableOptimizedProgram, Executable_OptimizedProgram, program, {
  JFT_RETURN_IF_ERROR(requireNonNull(args->program, "program", kName));
  PJRT_Program& program = *args->program;
  JFT_RETURN_IF_ERROR(
      checkArgs(&program, JFT_ABI_SIZE_UP_TO(PJRT_Program, format_size), "PJRT_Program"));
  program.format = info.optimized_format.c_str();
  program.format_size = info.optimized_format.size();
  if (program.code == nullptr) {
    program.code_size = info.optimized_program.size();
  } else {
    if (program.code_size < info.optimized_program.size())
      return invalidArgument(std::string(kName) + ": code buffer of " +
                             std::to_string(program.code_size) +
                             " bytes is smaller than the " +
                             std::to_string(info.optimized_program.size()) + " needed");
    std::memcpy(program.code, info.optimized_program.data(),
                info.optimized_program.size());
    program.code_size = info.optimized_program.size();
  }
})
JFT_EXECUTABLE_ENTRY(executableGetCompileOptions, Executable_GetCompileOptions,
                     serialized_compile_options_deleter,
                     handOut(info.compile_options, args->serialized_bytes,
                             args->serialized_bytes_size,
                             args->serialized_compile_options,
                             args->serialized_compile_options_deleter))
#undef JFT_EXECUTABLE_ENTRY

JFT_PJRT_ENTRY(executableDestroy, Executable_Destroy, executable,
               { delete args->executable; })

#define JFT_LOADED_ENTRY(Function, Name, lastField, ...)                                 \
  JFT_PJRT_ENTRY(Function, Name, lastField,                                              \
                 JFT_RETURN_IF_ERROR(requireLoaded(args->executable, kName));            \
                 [[maybe_unused]] PJRT_LoadedExecutable& executable = *args->executable; \
                 __VA_ARGS__)

JFT_LOADED_ENTRY(loadedExecutableAddressableDevices, LoadedExecutable_AddressableDevices,
                 num_addressable_devices,
                 setView(args->addressable_devices, args->num_addressable_devices,
                         executable.addressable_devices))
JFT_LOADED_ENTRY(loadedExecutableAddressableDeviceLogicalIds,
                 LoadedExecutable_AddressableDeviceLogicalIds,
                 num_addressable_device_logical_ids, {
                   args->addressable_device_logical_ids = executable.logical_ids.data();
                   args->num_addressable_device_logical_ids =
                       executable.logical_ids.size();
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

JFT_PJRT_ENTRY(loadedExecutableGetExecutable, LoadedExecutable_GetExecutable, executable,
               {
                 JFT_RETURN_IF_ERROR(requireLoaded(args->loaded_executable, kName));
                 args->executable = new PJRT_Executable{args->loaded_executable->info};
               })

JFT_PJRT_ENTRY(loadedExecutableDestroy, LoadedExecutable_Destroy, executable,
               { delete args->executable; })

}  // namespace jft::pjrt
