// The executable queries against a hand-built compiled program, and placement
// by compile options.
#include <cstring>

#include "executable_test_support.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

class QueriesTest : public ExecutableTest {
 protected:
  PJRT_Executable* view(PJRT_LoadedExecutable* loaded) {
    PJRT_LoadedExecutable_GetExecutable_Args args{};
    args.struct_size = sizeof(args);
    args.loaded_executable = loaded;
    EXPECT_EQ(loadedExecutableGetExecutable(&args), nullptr);
    return args.executable;
  }
  static void destroy(PJRT_Executable* executable) {
    PJRT_Executable_Destroy_Args args{sizeof(args), nullptr, executable};
    EXPECT_EQ(executableDestroy(&args), nullptr);
  }
};

TEST_F(QueriesTest, SignatureAndCounts) {
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(2, {-1, 0}));
  ASSERT_NE(loaded, nullptr);
  PJRT_Executable* executable = view(loaded);
  ASSERT_NE(executable, nullptr);

  PJRT_Executable_Name_Args name{};
  name.struct_size = sizeof(name);
  name.executable = executable;
  ASSERT_EQ(executableName(&name), nullptr);
  EXPECT_EQ(std::string(name.executable_name, name.executable_name_size), "jit_double");

  PJRT_Executable_NumReplicas_Args replicas{};
  replicas.struct_size = sizeof(replicas);
  replicas.executable = executable;
  ASSERT_EQ(executableNumReplicas(&replicas), nullptr);
  EXPECT_EQ(replicas.num_replicas, 1u);
  PJRT_Executable_NumPartitions_Args partitions{};
  partitions.struct_size = sizeof(partitions);
  partitions.executable = executable;
  ASSERT_EQ(executableNumPartitions(&partitions), nullptr);
  EXPECT_EQ(partitions.num_partitions, 1u);

  PJRT_Executable_NumOutputs_Args outputs{};
  outputs.struct_size = sizeof(outputs);
  outputs.executable = executable;
  ASSERT_EQ(executableNumOutputs(&outputs), nullptr);
  EXPECT_EQ(outputs.num_outputs, 2u);

  PJRT_Executable_OutputElementTypes_Args types{};
  types.struct_size = sizeof(types);
  types.executable = executable;
  ASSERT_EQ(executableOutputElementTypes(&types), nullptr);
  ASSERT_EQ(types.num_output_types, 2u);
  EXPECT_EQ(types.output_types[1], PJRT_Buffer_Type_F32);

  PJRT_Executable_OutputDimensions_Args dims{};
  dims.struct_size = sizeof(dims);
  dims.executable = executable;
  ASSERT_EQ(executableOutputDimensions(&dims), nullptr);
  ASSERT_EQ(dims.num_outputs, 2u);
  EXPECT_EQ(dims.dim_sizes[0], 1u);
  EXPECT_EQ(dims.dims[0], 4);
  EXPECT_EQ(dims.dims[1], 4);

  PJRT_Executable_OutputMemoryKinds_Args kinds{};
  kinds.struct_size = sizeof(kinds);
  kinds.executable = executable;
  ASSERT_EQ(executableOutputMemoryKinds(&kinds), nullptr);
  ASSERT_EQ(kinds.num_outputs, 2u);
  EXPECT_EQ(std::string(kinds.memory_kinds[0], kinds.memory_kind_sizes[0]), "device");

  PJRT_Executable_Fingerprint_Args fingerprint{};
  fingerprint.struct_size = sizeof(fingerprint);
  fingerprint.executable = executable;
  ASSERT_EQ(executableFingerprint(&fingerprint), nullptr);
  EXPECT_EQ(std::string(fingerprint.executable_fingerprint,
                        fingerprint.executable_fingerprint_size),
            "f1ngerpr1nt");
  destroy(executable);
}

TEST_F(QueriesTest, SizesAndMemoryStats) {
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(2, {-1, 0}));
  PJRT_Executable* executable = view(loaded);
  PJRT_Executable_SizeOfGeneratedCodeInBytes_Args code{};
  code.struct_size = sizeof(code);
  code.executable = executable;
  ASSERT_EQ(executableSizeOfGeneratedCodeInBytes(&code), nullptr);
  EXPECT_EQ(code.size_in_bytes, 100);

  PJRT_Executable_GetCompiledMemoryStats_Args stats{};
  stats.struct_size = sizeof(stats);
  stats.executable = executable;
  ASSERT_EQ(executableGetCompiledMemoryStats(&stats), nullptr);
  EXPECT_EQ(stats.argument_size_in_bytes, 32);
  EXPECT_EQ(stats.output_size_in_bytes, 32);
  EXPECT_EQ(stats.alias_size_in_bytes, 16);
  EXPECT_EQ(stats.temp_size_in_bytes, 512);
  EXPECT_EQ(stats.generated_code_size_in_bytes, 100);

  // The 0.104 statistics (offsets 120..143) are uninitialised on the framework's
  // side: a 0.114 caller gets 0 in each, a 0.90 caller (struct ends at 120)
  // keeps whatever it had there.
  PJRT_Executable_GetCompiledMemoryStats_Args full;
  std::memset(&full, 0xAB, sizeof(full));
  full.struct_size = 144;
  full.extension_start = nullptr;
  full.executable = executable;
  ASSERT_EQ(executableGetCompiledMemoryStats(&full), nullptr);
  EXPECT_EQ(full.total_allocation_bytes, 0);
  EXPECT_EQ(full.indefinite_allocations, 0);
  EXPECT_EQ(full.peak_unpadded_heap_bytes, 0);
  alignas(8) unsigned char raw[sizeof(PJRT_Executable_GetCompiledMemoryStats_Args)];
  std::memset(raw, 0xAB, sizeof(raw));
  auto* older = reinterpret_cast<PJRT_Executable_GetCompiledMemoryStats_Args*>(raw);
  older->struct_size = 120;
  older->extension_start = nullptr;
  older->executable = executable;
  ASSERT_EQ(executableGetCompiledMemoryStats(older), nullptr);
  for (size_t i = 120; i < sizeof(raw); ++i) EXPECT_EQ(raw[i], 0xAB) << "byte " << i;

  PJRT_Executable_GetCostAnalysis_Args cost{};
  cost.struct_size = sizeof(cost);
  cost.executable = executable;
  ASSERT_EQ(executableGetCostAnalysis(&cost), nullptr);
  // A hand-built program without ops or thunks costs nothing, under XLA's names.
  ASSERT_EQ(cost.num_properties, 3u);
  for (size_t i = 0; i < cost.num_properties; ++i) {
    EXPECT_EQ(cost.properties[i].type, PJRT_NamedValue_kFloat);
    EXPECT_EQ(cost.properties[i].float_value, 0.0f);
  }
  EXPECT_EQ(std::string(cost.properties[0].name, cost.properties[0].name_size), "flops");
  destroy(executable);
}

TEST_F(QueriesTest, OptimizedProgramInTwoCalls) {
  PJRT_Executable* executable = view(load(doublingExecutable(1, {-1})));
  PJRT_Program program{};
  program.struct_size = sizeof(program);
  PJRT_Executable_OptimizedProgram_Args args{};
  args.struct_size = sizeof(args);
  args.executable = executable;
  args.program = &program;
  ASSERT_EQ(executableOptimizedProgram(&args), nullptr);
  EXPECT_EQ(std::string(program.format, program.format_size), "mlir");
  ASSERT_EQ(program.code_size, std::strlen("program bytes"));
  std::string code(program.code_size, '\0');
  program.code = code.data();
  ASSERT_EQ(executableOptimizedProgram(&args), nullptr);
  EXPECT_EQ(code, "program bytes");
  program.code_size = 3;  // too small a buffer
  EXPECT_EQ(errorCode(executableOptimizedProgram(&args)), StatusCode::kInvalidArgument);
  destroy(executable);
}

TEST_F(QueriesTest, CompileOptionsComeBackAsReceived) {
  PJRT_Executable* executable = view(load(doublingExecutable(1, {-1})));
  PJRT_Executable_GetCompileOptions_Args args{};
  args.struct_size = sizeof(args);
  args.executable = executable;
  ASSERT_EQ(executableGetCompileOptions(&args), nullptr);
  EXPECT_EQ(std::string(args.serialized_bytes, args.serialized_bytes_size),
            "options bytes");
  ASSERT_NE(args.serialized_compile_options_deleter, nullptr);
  args.serialized_compile_options_deleter(args.serialized_compile_options);
  destroy(executable);
}

// The bytes themselves are executable_blob_test's subject.
TEST_F(QueriesTest, SerializeHandsOutOurBlobWithADeleter) {
  PJRT_Executable* executable = view(load(doublingExecutable(1, {-1})));
  PJRT_Executable_Serialize_Args args{};
  args.struct_size = sizeof(args);
  args.executable = executable;
  ASSERT_EQ(executableSerialize(&args), nullptr);
  ASSERT_NE(args.serialized_executable_deleter, nullptr);
  EXPECT_EQ(
      std::string(args.serialized_bytes, std::min<size_t>(8, args.serialized_bytes_size)),
      std::string("JFTEXEC\0", 8));
  args.serialized_executable_deleter(args.serialized_executable);
  destroy(executable);
}

TEST_F(QueriesTest, DevicesLogicalIdsAndAssignment) {
  CompileOptions options;
  options.device_assignment = {1};
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(1, {-1}), options);
  ASSERT_NE(loaded, nullptr);
  PJRT_LoadedExecutable_AddressableDevices_Args devices{};
  devices.struct_size = sizeof(devices);
  devices.executable = loaded;
  ASSERT_EQ(loadedExecutableAddressableDevices(&devices), nullptr);
  ASSERT_EQ(devices.num_addressable_devices, 1u);
  EXPECT_EQ(devices.addressable_devices[0], client_->devices[1]);

  PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args ids{};
  ids.struct_size = sizeof(ids);
  ids.executable = loaded;
  ASSERT_EQ(loadedExecutableAddressableDeviceLogicalIds(&ids), nullptr);
  ASSERT_EQ(ids.num_addressable_device_logical_ids, 1u);
  EXPECT_EQ(ids.addressable_device_logical_ids[0].replica, 0);
  EXPECT_EQ(ids.addressable_device_logical_ids[0].partition, 0);

  PJRT_LoadedExecutable_GetDeviceAssignment_Args assignment{};
  assignment.struct_size = sizeof(assignment);
  assignment.executable = loaded;
  ASSERT_EQ(loadedExecutableGetDeviceAssignment(&assignment), nullptr);
  const std::string expected("\x08\x01\x10\x01\x1a\x03\x0a\x01\x01", 9);
  EXPECT_EQ(std::string(assignment.serialized_bytes, assignment.serialized_bytes_size),
            expected);
  assignment.serialized_device_assignment_deleter(
      assignment.serialized_device_assignment);
}

// shard_map-like, 1 replica x 2 partitions assigned to devices 1 then 0.
TEST_F(QueriesTest, SeveralParticipantsAnswerForAll) {
  CompileOptions options;
  options.num_partitions = 2;
  options.device_assignment = {1, 0};
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(1, {-1}), options);
  ASSERT_NE(loaded, nullptr);
  PJRT_Executable* executable = view(loaded);
  PJRT_Executable_NumReplicas_Args replicas{};
  replicas.struct_size = sizeof(replicas);
  replicas.executable = executable;
  ASSERT_EQ(executableNumReplicas(&replicas), nullptr);
  EXPECT_EQ(replicas.num_replicas, 1u);
  PJRT_Executable_NumPartitions_Args partitions{};
  partitions.struct_size = sizeof(partitions);
  partitions.executable = executable;
  ASSERT_EQ(executableNumPartitions(&partitions), nullptr);
  EXPECT_EQ(partitions.num_partitions, 2u);
  destroy(executable);

  PJRT_LoadedExecutable_AddressableDevices_Args devices{};
  devices.struct_size = sizeof(devices);
  devices.executable = loaded;
  ASSERT_EQ(loadedExecutableAddressableDevices(&devices), nullptr);
  ASSERT_EQ(devices.num_addressable_devices, 2u);
  EXPECT_EQ(devices.addressable_devices[0], client_->devices[1]);
  EXPECT_EQ(devices.addressable_devices[1], client_->devices[0]);
  PJRT_LoadedExecutable_AddressableDeviceLogicalIds_Args ids{};
  ids.struct_size = sizeof(ids);
  ids.executable = loaded;
  ASSERT_EQ(loadedExecutableAddressableDeviceLogicalIds(&ids), nullptr);
  ASSERT_EQ(ids.num_addressable_device_logical_ids, 2u);
  EXPECT_EQ(ids.addressable_device_logical_ids[1].replica, 0);
  EXPECT_EQ(ids.addressable_device_logical_ids[1].partition, 1);

  // DeviceAssignmentProto by hand: replica_count 1 (08 01), computation_count
  // 2 (10 02), then one computation_devices per partition holding its
  // replica's device: {1} (1a 03 0a 01 01) and {0} (1a 03 0a 01 00).
  PJRT_LoadedExecutable_GetDeviceAssignment_Args assignment{};
  assignment.struct_size = sizeof(assignment);
  assignment.executable = loaded;
  ASSERT_EQ(loadedExecutableGetDeviceAssignment(&assignment), nullptr);
  const std::string expected("\x08\x01\x10\x02\x1a\x03\x0a\x01\x01\x1a\x03\x0a\x01\x00",
                             14);
  EXPECT_EQ(std::string(assignment.serialized_bytes, assignment.serialized_bytes_size),
            expected);
  assignment.serialized_device_assignment_deleter(
      assignment.serialized_device_assignment);
}

TEST_F(QueriesTest, PortableHasNoDevicesAndAnEmptyAssignment) {
  CompileOptions options;
  options.portable = true;
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(1, {-1}), options);
  PJRT_LoadedExecutable_AddressableDevices_Args devices{};
  devices.struct_size = sizeof(devices);
  devices.executable = loaded;
  ASSERT_EQ(loadedExecutableAddressableDevices(&devices), nullptr);
  EXPECT_EQ(devices.num_addressable_devices, 0u);
  PJRT_LoadedExecutable_GetDeviceAssignment_Args assignment{};
  assignment.struct_size = sizeof(assignment);
  assignment.executable = loaded;
  ASSERT_EQ(loadedExecutableGetDeviceAssignment(&assignment), nullptr);
  EXPECT_EQ(assignment.serialized_bytes_size, 0u);
  ASSERT_NE(assignment.serialized_device_assignment_deleter, nullptr);
  assignment.serialized_device_assignment_deleter(
      assignment.serialized_device_assignment);
}

TEST_F(QueriesTest, DeleteAndIsDeleted) {
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(1, {-1}));
  PJRT_LoadedExecutable_IsDeleted_Args isDeleted{};
  isDeleted.struct_size = sizeof(isDeleted);
  isDeleted.executable = loaded;
  ASSERT_EQ(loadedExecutableIsDeleted(&isDeleted), nullptr);
  EXPECT_FALSE(isDeleted.is_deleted);
  PJRT_LoadedExecutable_Delete_Args del{};
  del.struct_size = sizeof(del);
  del.executable = loaded;
  ASSERT_EQ(loadedExecutableDelete(&del), nullptr);
  ASSERT_EQ(loadedExecutableIsDeleted(&isDeleted), nullptr);
  EXPECT_TRUE(isDeleted.is_deleted);
  // The compiled description outlives the loaded program.
  PJRT_Executable* executable = view(loaded);
  ASSERT_NE(executable, nullptr);
  destroy(executable);
}

TEST_F(QueriesTest, NullAndEmptyHandlesAreInvalidArguments) {
  PJRT_Executable_Name_Args name{};
  name.struct_size = sizeof(name);
  EXPECT_EQ(errorCode(executableName(&name)), StatusCode::kInvalidArgument);
  PJRT_Executable empty;
  name.executable = &empty;
  EXPECT_EQ(errorCode(executableName(&name)), StatusCode::kInvalidArgument);
  name.struct_size = 8;
  EXPECT_EQ(errorCode(executableName(&name)), StatusCode::kInvalidArgument);
  PJRT_LoadedExecutable_AddressableDevices_Args devices{};
  devices.struct_size = sizeof(devices);
  EXPECT_EQ(errorCode(loadedExecutableAddressableDevices(&devices)),
            StatusCode::kInvalidArgument);
  PJRT_LoadedExecutable_GetExecutable_Args get{};
  get.struct_size = sizeof(get);
  EXPECT_EQ(errorCode(loadedExecutableGetExecutable(&get)), StatusCode::kInvalidArgument);
  PJRT_Executable_Destroy_Args destroyNull{sizeof(destroyNull), nullptr, nullptr};
  EXPECT_EQ(executableDestroy(&destroyNull), nullptr);
  PJRT_LoadedExecutable_Destroy_Args destroyLoaded{sizeof(destroyLoaded), nullptr,
                                                   nullptr};
  EXPECT_EQ(loadedExecutableDestroy(&destroyLoaded), nullptr);
}

TEST_F(QueriesTest, PlacementFollowsTheCompileOptions) {
  CompileOptions byOrdinal;
  byOrdinal.device_ordinal = 1;
  PJRT_LoadedExecutable* loaded = load(doublingExecutable(1, {-1}), byOrdinal);
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->addressable_devices[0], client_->devices[1]);
  EXPECT_EQ(loaded->device_ids, (std::vector<int>{1}));

  auto info = describeExecutable(doublingExecutable(1, {-1}), "", "");
  ASSERT_TRUE(info.isOk());
  CompileOptions twoReplicas;
  twoReplicas.num_replicas = 2;
  twoReplicas.device_assignment = {0, 1};
  auto multi = loadExecutable(*client_, *info, twoReplicas, loader_.loader());
  ASSERT_TRUE(multi.isOk()) << multi.status().toString();
  EXPECT_EQ((*multi)->addressable_devices,
            (std::vector<PJRT_Device*>{client_->devices[0], client_->devices[1]}));
  CompileOptions unknownDevice;
  unknownDevice.device_assignment = {7};
  EXPECT_EQ(
      loadExecutable(*client_, *info, unknownDevice, loader_.loader()).status().code(),
      StatusCode::kInvalidArgument);
  loader_.fail = true;
  auto refused = loadExecutable(*client_, *info, CompileOptions{}, loader_.loader());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("loading jit_double on device 0"),
            std::string::npos);
}

TEST(ExecutableInfo, TypesTheAbiCannotNameAreUnimplementedAndFp6IsNamed) {
  compiler::Executable tupled = doublingExecutable(1, {-1});
  tupled.output_types[0] = ir::Type::makeTuple({ir::Type::scalar(ir::ElementType::F32)});
  EXPECT_EQ(describeExecutable(std::move(tupled), "", "").status().code(),
            StatusCode::kUnimplemented);
  // 0.114 gave the FP6 types their PJRT names (32 and 33 in the enum).
  auto f6 = arraySpec(
      compiler::describeEntryValue(ir::Type::tensor(ir::ElementType::F6E3M2FN, {4})));
  ASSERT_TRUE(f6.isOk());
  EXPECT_EQ(static_cast<int>(f6->type), 33);
  EXPECT_EQ(static_cast<int>(bufferType(ir::ElementType::F6E2M3FN)), 32);
  auto bf16 = arraySpec(
      compiler::describeEntryValue(ir::Type::tensor(ir::ElementType::BF16, {2, 3})));
  ASSERT_TRUE(bf16.isOk());
  EXPECT_EQ(bf16->type, PJRT_Buffer_Type_BF16);
  EXPECT_EQ(bf16->bytes, 12u);
  EXPECT_EQ(bf16->text(), "bf16[2,3]");
}

TEST(ExecutableInfo, ProgramThatDisagreesWithItsSignatureIsRefused) {
  compiler::Executable mismatched = doublingExecutable(1, {-1});
  mismatched.program.parameter_bytes.push_back(4);
  EXPECT_EQ(describeExecutable(std::move(mismatched), "", "").status().code(),
            StatusCode::kInternal);
  compiler::Executable badAlias = doublingExecutable(1, {3});
  EXPECT_EQ(describeExecutable(std::move(badAlias), "", "").status().code(),
            StatusCode::kInternal);
}

}  // namespace
}  // namespace jft::pjrt::testing
