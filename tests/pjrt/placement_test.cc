// Where a compile runs: one device, or replicas x partitions devices from the
// device assignment (else the first devices in id order, as XLA assigns
// them); devices the client does not have, or named twice, are
// INVALID_ARGUMENT naming them. Through placeProgram, loadExecutable and the
// executable queries, and through PJRT_Client_Compile with the serialized
// options JAX sends.
#include <gtest/gtest.h>

#include "compiler/zoo_fixture.h"
#include "executable_test_support.h"
#include "pjrt/compile.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

// CompileOptionsProto in wire format: field 3 (ExecutableBuildOptionsProto)
// with num_replicas (4), num_partitions (5), device_ordinal (1) and a
// DeviceAssignmentProto (9) of one computation per partition.
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string intField(int field, int64_t value) {
  return varint(static_cast<uint64_t>(field) << 3) + varint(static_cast<uint64_t>(value));
}
std::string message(int field, const std::string& body) {
  return varint(static_cast<uint64_t>(field) << 3 | 2) + varint(body.size()) + body;
}
std::string compileOptions(int replicas, int partitions,
                           const std::vector<std::vector<int64_t>>& devices = {}) {
  std::string build = intField(4, replicas) + intField(5, partitions);
  if (!devices.empty()) {
    std::string assignment = intField(1, replicas) + intField(2, partitions);
    for (const std::vector<int64_t>& computation : devices) {
      std::string ids;
      for (int64_t id : computation) ids += varint(static_cast<uint64_t>(id));
      assignment += message(3, message(1, ids));
    }
    build += message(9, assignment);
  }
  return message(3, build);
}

class PlacementTest : public ExecutableTest {
 protected:
  // PJRT_Client_Compile of the zoo's smoke program with `options`.
  Status compile(const std::string& options) {
    const std::string code = compiler::testing::zooArtifact("smoke");
    PJRT_Program program{};
    program.struct_size = sizeof(program);
    program.code = const_cast<char*>(code.data());
    program.code_size = code.size();
    program.format = "mlir";
    program.format_size = 4;
    PJRT_Client_Compile_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.program = &program;
    args.compile_options = options.data();
    args.compile_options_size = options.size();
    PJRT_Error* error = clientCompile(&args);
    EXPECT_EQ(args.executable, nullptr);  // every case here is refused
    std::string text;
    StatusCode code_of = errorCode(error, &text);
    return Status(code_of, text);
  }
};

std::vector<int> idsOf(const std::vector<PJRT_Device*>& devices) {
  std::vector<int> ids;
  for (const PJRT_Device* device : devices) ids.push_back(device->description.id);
  return ids;
}

CompileOptions shape(int replicas, int partitions, std::vector<int64_t> assignment = {}) {
  CompileOptions options;
  options.num_replicas = replicas;
  options.num_partitions = partitions;
  options.device_assignment = std::move(assignment);
  return options;
}

TEST_F(PlacementTest, SeveralParticipantsTakeTheAssignmentOrTheFirstDevices) {
  // pmap-like, 2 replicas x 1 partition, no assignment: devices 0 and 1.
  StatusOr<std::vector<PJRT_Device*>> pmap = placeProgram(*client_, shape(2, 1));
  ASSERT_TRUE(pmap.isOk()) << pmap.status().toString();
  EXPECT_EQ(idsOf(*pmap), (std::vector<int>{0, 1}));
  // shard_map-like, 1 x 2, assigned in reverse: (r0, p0) -> 1, (r0, p1) -> 0.
  StatusOr<std::vector<PJRT_Device*>> partitions =
      placeProgram(*client_, shape(1, 2, {1, 0}));
  ASSERT_TRUE(partitions.isOk()) << partitions.status().toString();
  EXPECT_EQ(idsOf(*partitions), (std::vector<int>{1, 0}));
}

TEST_F(PlacementTest, BadAssignmentsAreNamed) {
  Status missing = placeProgram(*client_, shape(2, 1, {0, 5})).status();
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("names device 5 for replica 1, partition 0"),
            std::string::npos)
      << missing.message();
  Status twice = placeProgram(*client_, shape(1, 2, {1, 1})).status();
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.message().find("names device 1 twice"), std::string::npos)
      << twice.message();
  Status tooMany = placeProgram(*client_, shape(3, 1)).status();
  EXPECT_EQ(tooMany.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tooMany.message().find("need 3 devices but the job has 2"), std::string::npos)
      << tooMany.message();
  Status counts = placeProgram(*client_, shape(2, 1, {0})).status();
  EXPECT_EQ(counts.code(), StatusCode::kInvalidArgument);
  CompileOptions portable = shape(2, 1);
  portable.portable = true;
  EXPECT_EQ(placeProgram(*client_, portable).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(placeProgram(*client_, shape(0, 1)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_F(PlacementTest, LoadedOnEveryParticipantWithItsLogicalIds) {
  compiler::Executable compiled = doublingExecutable(1, {-1});
  PJRT_LoadedExecutable* e = load(compiled, shape(1, 2, {1, 0}));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->participants(), 2);
  EXPECT_EQ(e->device_ids, (std::vector<int>{1, 0}));
  EXPECT_EQ(e->layout.replicas, 1);
  EXPECT_EQ(e->layout.partitions, 2);
  EXPECT_EQ(e->layout.device_ids, (std::vector<int64_t>{1, 0}));
  ASSERT_EQ(e->addressable_devices.size(), 2u);
  EXPECT_EQ(e->addressable_devices[0], client_->devices[1]);
  EXPECT_EQ(e->addressable_devices[1], client_->devices[0]);
  EXPECT_EQ(e->logical_ids[0].replica, 0);
  EXPECT_EQ(e->logical_ids[0].partition, 0);
  EXPECT_EQ(e->logical_ids[1].replica, 0);
  EXPECT_EQ(e->logical_ids[1].partition, 1);
  EXPECT_EQ(loader_.loaded.size(), 2u);  // loaded on both at once

  PJRT_LoadedExecutable* replicas = load(compiled, shape(2, 1));
  ASSERT_NE(replicas, nullptr);
  EXPECT_EQ(replicas->logical_ids[1].replica, 1);
  EXPECT_EQ(replicas->logical_ids[1].partition, 0);
}

TEST_F(PlacementTest, DevicesTheClientLacksAreNamed) {
  CompileOptions assigned;
  assigned.device_assignment = {7};
  StatusOr<std::vector<PJRT_Device*>> missing = placeProgram(*client_, assigned);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("names device 7"), std::string::npos)
      << missing.status().message();

  CompileOptions ordinal;
  ordinal.device_ordinal = 2;  // the client has ordinals 0 and 1
  StatusOr<std::vector<PJRT_Device*>> beyond = placeProgram(*client_, ordinal);
  EXPECT_EQ(beyond.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(beyond.status().message().find("device_ordinal 2"), std::string::npos);

  ordinal.device_ordinal = -2;  // -1 alone means "any"
  EXPECT_EQ(placeProgram(*client_, ordinal).status().code(),
            StatusCode::kInvalidArgument);

  CompileOptions second;
  second.device_assignment = {1};
  StatusOr<std::vector<PJRT_Device*>> placed = placeProgram(*client_, second);
  ASSERT_TRUE(placed.isOk());
  EXPECT_EQ(*placed, std::vector<PJRT_Device*>{client_->devices[1]});
}

TEST_F(PlacementTest, CompileRefusesBadAssignmentsOverSeveralDevices) {
  Status missing = compile(compileOptions(2, 1, {{0, 5}}));
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("names device 5"), std::string::npos)
      << missing.message();
  Status twice = compile(compileOptions(1, 2, {{1}, {1}}));
  EXPECT_EQ(twice.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.message().find("twice"), std::string::npos) << twice.message();
  // Options whose assignment disagrees with the counts are malformed.
  EXPECT_EQ(compile(compileOptions(2, 1, {{0}})).code(), StatusCode::kInvalidArgument);
}

TEST_F(PlacementTest, CompileNamesAnAssignedDeviceTheClientLacks) {
  Status missing = compile(compileOptions(1, 1, {{5}}));
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("names device 5"), std::string::npos)
      << missing.message();
  Status ordinal = compile(message(3, intField(1, 3)));
  EXPECT_EQ(ordinal.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(ordinal.message().find("device_ordinal 3"), std::string::npos)
      << ordinal.message();
}

}  // namespace
}  // namespace jft::pjrt::testing
