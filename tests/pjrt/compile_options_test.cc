// CompileOptionsProto reading against bytes built here from the protobuf wire
// format (tag = field << 3 | wire type; varints; length-delimited messages).
#include "pjrt/compile_options.h"

#include <gtest/gtest.h>

#include <string>

namespace jft::pjrt {
namespace {

std::string varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}
std::string tag(int field, int wireType) {
  return varint(static_cast<uint64_t>(field) << 3 | static_cast<uint64_t>(wireType));
}
std::string intField(int field, int64_t value) {
  return tag(field, 0) + varint(static_cast<uint64_t>(value));
}
std::string message(int field, const std::string& body) {
  return tag(field, 2) + varint(body.size()) + body;
}

// DeviceAssignmentProto with computation c holding ids[c] (packed).
std::string assignment(int replicas, int computations,
                       const std::vector<std::vector<int64_t>>& ids, bool packed = true) {
  std::string out = intField(1, replicas) + intField(2, computations);
  for (const auto& computation : ids) {
    std::string body;
    if (packed) {
      std::string values;
      for (int64_t id : computation) values += varint(static_cast<uint64_t>(id));
      body = message(1, values);
    } else {
      for (int64_t id : computation) body += intField(1, id);
    }
    out += message(3, body);
  }
  return out;
}

std::string buildOptions(int replicas, int partitions, const std::string& da) {
  std::string body = intField(4, replicas) + intField(5, partitions);
  if (!da.empty()) body += message(9, da);
  return message(3, body);
}

TEST(CompileOptions, EmptyMeansOneDeviceAnywhere) {
  auto options = parseCompileOptions("");
  ASSERT_TRUE(options.isOk());
  EXPECT_EQ(options->num_replicas, 1);
  EXPECT_EQ(options->num_partitions, 1);
  EXPECT_FALSE(options->portable);
  EXPECT_EQ(options->device_ordinal, -1);
  EXPECT_TRUE(options->device_assignment.empty());
}

TEST(CompileOptions, SingleDeviceAssignment) {
  auto options = parseCompileOptions(buildOptions(1, 1, assignment(1, 1, {{3}})));
  ASSERT_TRUE(options.isOk()) << options.status().toString();
  EXPECT_EQ(options->device_assignment, (std::vector<int64_t>{3}));
}

TEST(CompileOptions, ReplicasByPartitionsInRowMajorOrder) {
  // Computation (partition) 0 runs on 5 and 300, partition 1 on 7 and 8.
  auto packed =
      parseCompileOptions(buildOptions(2, 2, assignment(2, 2, {{5, 300}, {7, 8}})));
  ASSERT_TRUE(packed.isOk()) << packed.status().toString();
  EXPECT_EQ(packed->num_replicas, 2);
  EXPECT_EQ(packed->num_partitions, 2);
  EXPECT_EQ(packed->device_assignment, (std::vector<int64_t>{5, 7, 300, 8}));
  auto unpacked = parseCompileOptions(
      buildOptions(2, 2, assignment(2, 2, {{5, 300}, {7, 8}}, /*packed=*/false)));
  ASSERT_TRUE(unpacked.isOk()) << unpacked.status().toString();
  EXPECT_EQ(unpacked->device_assignment, packed->device_assignment);
}

TEST(CompileOptions, PortableAndOrdinal) {
  std::string bytes = intField(4, 1) + message(3, intField(1, 2));
  auto options = parseCompileOptions(bytes);
  ASSERT_TRUE(options.isOk()) << options.status().toString();
  EXPECT_TRUE(options->portable);
  EXPECT_EQ(options->device_ordinal, 2);
  EXPECT_EQ(options->num_replicas, 1);  // 0 / absent reads as one
}

TEST(CompileOptions, UnknownFieldsOfEveryWireTypeAreSkipped) {
  std::string fixed64 = tag(40, 1) + std::string(8, '\x7f');
  std::string fixed32 = tag(41, 5) + std::string(4, '\x01');
  std::string text = message(42, "anything \x08\x01 goes");
  std::string nested = message(3, intField(99, 12345) + message(3, "debug options") +
                                      fixed32 + intField(4, 1) + intField(5, 1) +
                                      message(9, assignment(1, 1, {{0}})));
  auto options = parseCompileOptions(fixed64 + text + intField(2, 1) + nested + fixed32);
  ASSERT_TRUE(options.isOk()) << options.status().toString();
  EXPECT_EQ(options->device_assignment, (std::vector<int64_t>{0}));
}

TEST(CompileOptions, MalformedBytesAreInvalidArguments) {
  const std::vector<std::string> bad = {
      std::string("\x08", 1),                       // varint cut off
      std::string("\x1a\x05\x20", 3),               // length past the end
      std::string(11, '\xff'),                      // varint over ten bytes
      tag(5, 3),                                    // group start
      tag(0, 0) + varint(1),                        // field number 0
      tag(3, 0) + varint(1),                        // build options as a varint
      buildOptions(2, 1, assignment(1, 1, {{0}})),  // assignment disagrees with counts
      buildOptions(1, 1, assignment(1, 2, {{0}})),  // fewer computations than said
      buildOptions(2, 1, assignment(2, 1, {{0}})),  // fewer replicas than said
      message(3, intField(4, -1)),                  // negative replica count
  };
  for (const std::string& bytes : bad) {
    auto options = parseCompileOptions(bytes);
    EXPECT_EQ(options.status().code(), StatusCode::kInvalidArgument)
        << "accepted " << testing::PrintToString(bytes);
  }
}

TEST(CompileOptions, EveryPrefixEndsInAStatus) {
  std::string full = intField(4, 0) +
                     buildOptions(2, 2, assignment(2, 2, {{5, 300}, {7, 8}})) +
                     message(42, "tail");
  for (size_t n = 0; n <= full.size(); ++n) {
    auto options = parseCompileOptions(std::string_view(full).substr(0, n));
    if (!options.isOk()) {
      EXPECT_EQ(options.status().code(), StatusCode::kInvalidArgument);
    }
  }
  EXPECT_TRUE(parseCompileOptions(full).isOk());
}

}  // namespace
}  // namespace jft::pjrt

namespace jft::pjrt {
namespace {

// One env_option_overrides entry: key (1) and OptionOverrideProto (2) with a
// bool_field (2).
std::string optionOverride(const std::string& key, bool value) {
  return message(7, message(1, key) + message(2, intField(2, value)));
}

TEST(CompileOptions, OverridesKeepXlaOptionNamesInOrder) {
  auto options = parseCompileOptions(optionOverride("xla_embed_ir_in_executable", true) +
                                     optionOverride("xla_gpu_autotune_level", false));
  ASSERT_TRUE(options.isOk()) << options.status().toString();
  EXPECT_EQ(
      options->option_overrides,
      (std::vector<std::string>{"xla_embed_ir_in_executable", "xla_gpu_autotune_level"}));
}

// jax's api_test expects XLA's message for a name that is no option.
TEST(CompileOptions, AnUnknownOverrideIsRejectedWithXlasMessage) {
  auto options = parseCompileOptions(optionOverride("invalid_key", true));
  ASSERT_FALSE(options.isOk());
  EXPECT_EQ(options.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(options.status().message().find("No such compile option: 'invalid_key'"),
            std::string::npos)
      << options.status().message();
}

}  // namespace
}  // namespace jft::pjrt
