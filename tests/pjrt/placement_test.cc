// Where a compile may run: programs over several devices (replicas or
// partitions) are UNIMPLEMENTED, naming what they need; devices the client
// does not have are INVALID_ARGUMENT naming them. Through placeProgram and
// through PJRT_Client_Compile with the serialized options JAX sends.
#include <gtest/gtest.h>

#include "compiler/zoo_fixture.h"
#include "executable_test_support.h"
#include "pjrt/compile.h"

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

TEST_F(PlacementTest, SeveralReplicasOrPartitionsNeedTheCollectiveRoute) {
  for (auto [replicas, partitions] :
       {std::pair{2, 1}, std::pair{1, 2}, std::pair{2, 2}}) {
    CompileOptions options;
    options.numReplicas = replicas;
    options.numPartitions = partitions;
    StatusOr<PJRT_Device*> placed = placeProgram(*client_, options);
    ASSERT_FALSE(placed.isOk());
    EXPECT_EQ(placed.status().code(), StatusCode::kUnimplemented);
    const std::string& text = placed.status().message();
    EXPECT_NE(
        text.find(std::to_string(replicas) + " replicas x " + std::to_string(partitions) +
                  " partitions (" + std::to_string(replicas * partitions) + " devices)"),
        std::string::npos)
        << text;
    EXPECT_NE(text.find("collective route"), std::string::npos) << text;
    // Portable executables are no exception.
    options.portable = true;
    EXPECT_EQ(placeProgram(*client_, options).status().code(),
              StatusCode::kUnimplemented);
  }
}

TEST_F(PlacementTest, DevicesTheClientLacksAreNamed) {
  CompileOptions assigned;
  assigned.deviceAssignment = {7};
  StatusOr<PJRT_Device*> missing = placeProgram(*client_, assigned);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.status().message().find("names device 7"), std::string::npos)
      << missing.status().message();

  CompileOptions ordinal;
  ordinal.deviceOrdinal = 2;  // the client has ordinals 0 and 1
  StatusOr<PJRT_Device*> beyond = placeProgram(*client_, ordinal);
  EXPECT_EQ(beyond.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(beyond.status().message().find("device_ordinal 2"), std::string::npos);

  ordinal.deviceOrdinal = -2;  // -1 alone means "any"
  EXPECT_EQ(placeProgram(*client_, ordinal).status().code(),
            StatusCode::kInvalidArgument);

  CompileOptions second;
  second.deviceAssignment = {1};
  StatusOr<PJRT_Device*> placed = placeProgram(*client_, second);
  ASSERT_TRUE(placed.isOk());
  EXPECT_EQ(*placed, client_->devices[1]);
}

TEST_F(PlacementTest, CompileRefusesSeveralDevicesThroughPlacement) {
  // The compiler compiles the smoke program for several participants (the
  // collective route); placement on several devices is what is missing.
  Status replicas = compile(compileOptions(2, 1, {{0, 1}}));
  EXPECT_EQ(replicas.code(), StatusCode::kUnimplemented);
  EXPECT_NE(replicas.message().find("2 replicas x 1 partitions (2 devices)"),
            std::string::npos)
      << replicas.message();
  EXPECT_NE(replicas.message().find("one device per process"), std::string::npos);

  Status partitions = compile(compileOptions(1, 2, {{0}, {1}}));
  EXPECT_EQ(partitions.code(), StatusCode::kUnimplemented);
  EXPECT_NE(partitions.message().find("1 replicas x 2 partitions (2 devices)"),
            std::string::npos)
      << partitions.message();

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
