// Create-option parsing.
#include "pjrt/create_options.h"

#include <gtest/gtest.h>

#include <cstring>

namespace jft::pjrt {
namespace {

PJRT_NamedValue stringOption(const char* name, const char* value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(v);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kString;
  v.string_value = value;
  v.value_size = std::strlen(value);
  return v;
}

TEST(CreateOptions, ParsesKnownAndCollectsUnknown) {
  int64_t devices[] = {0, 2};
  PJRT_NamedValue options[4] = {stringOption("python_executable", "/usr/bin/python3"),
                                stringOption("worker_module", "jax_flagtree.worker"),
                                stringOption("enable_mock_nccl_name", "x"),
                                {}};
  options[3].struct_size = sizeof(PJRT_NamedValue);
  options[3].name = "visible_devices";
  options[3].name_size = std::strlen("visible_devices");
  options[3].type = PJRT_NamedValue_kInt64List;
  options[3].int64_array_value = devices;
  options[3].value_size = 2;
  auto parsed = parseClientOptions(options, 4);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->python_executable, "/usr/bin/python3");
  EXPECT_EQ(parsed->worker_module, "jax_flagtree.worker");
  EXPECT_EQ(parsed->visible_devices, (std::vector<int>{0, 2}));
  EXPECT_EQ(parsed->ignored, (std::vector<std::string>{"enable_mock_nccl_name"}));
  // Without allocator settings, upstream's defaults: a pool limited to 75 %,
  // reserved up front.
  EXPECT_EQ(parsed->memory.allocator, runtime::MemoryOptions::Allocator::kPool);
  EXPECT_DOUBLE_EQ(parsed->memory.fraction, 0.75);
  EXPECT_TRUE(parsed->memory.preallocate);
}

TEST(CreateOptions, CompilerFingerprintIsAStringOption) {
  PJRT_NamedValue given = stringOption("compiler_fingerprint", "0123456789abcdef");
  auto parsed = parseClientOptions(&given, 1);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->compiler_fingerprint, "0123456789abcdef");
  EXPECT_TRUE(parsed->ignored.empty());
  given.type = PJRT_NamedValue_kInt64;
  EXPECT_FALSE(parseClientOptions(&given, 1).isOk());
}

PJRT_NamedValue floatOption(const char* name, float value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(v);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kFloat;
  v.float_value = value;
  v.value_size = 1;
  return v;
}

PJRT_NamedValue boolOption(const char* name, bool value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(v);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kBool;
  v.bool_value = value;
  v.value_size = 1;
  return v;
}

TEST(CreateOptions, AllocatorSettingsAsJaxPassesThem) {
  // What XLA_PYTHON_CLIENT_ALLOCATOR=platform, _MEM_FRACTION=.25 and
  // _PREALLOCATE=false become (jax's CUDA plugin options).
  PJRT_NamedValue options[] = {stringOption("allocator", "platform"),
                               floatOption("memory_fraction", 0.25f),
                               boolOption("preallocate", false)};
  auto parsed = parseClientOptions(options, 3);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->memory.allocator, runtime::MemoryOptions::Allocator::kPlatform);
  EXPECT_DOUBLE_EQ(parsed->memory.fraction, 0.25);
  EXPECT_FALSE(parsed->memory.preallocate);
  EXPECT_TRUE(parsed->ignored.empty());

  for (const char* pooled : {"default", "bfc", "cuda_async"}) {
    PJRT_NamedValue one[] = {stringOption("allocator", pooled)};
    auto pool = parseClientOptions(one, 1);
    ASSERT_TRUE(pool.isOk()) << pooled;
    EXPECT_EQ(pool->memory.allocator, runtime::MemoryOptions::Allocator::kPool) << pooled;
  }
}

TEST(CreateOptions, RejectsBadAllocatorSettings) {
  PJRT_NamedValue unknown[] = {stringOption("allocator", "vmm2")};
  EXPECT_EQ(parseClientOptions(unknown, 1).status().code(), StatusCode::kInvalidArgument);
  for (float bad : {0.0f, -0.5f, 1.5f}) {
    PJRT_NamedValue fraction[] = {floatOption("memory_fraction", bad)};
    EXPECT_EQ(parseClientOptions(fraction, 1).status().code(),
              StatusCode::kInvalidArgument)
        << bad;
  }
  PJRT_NamedValue wrongType[] = {stringOption("preallocate", "false")};
  EXPECT_EQ(parseClientOptions(wrongType, 1).status().code(),
            StatusCode::kInvalidArgument);
  PJRT_NamedValue fractionAsString[] = {stringOption("memory_fraction", "0.5")};
  EXPECT_EQ(parseClientOptions(fractionAsString, 1).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(CreateOptions, RejectsWrongTypesAndNulls) {
  PJRT_NamedValue wrongType = stringOption("visible_devices", "0,1");
  EXPECT_EQ(parseClientOptions(&wrongType, 1).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(parseClientOptions(nullptr, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(parseClientOptions(nullptr, 0).isOk());
  PJRT_NamedValue negative{};
  int64_t bad[] = {-1};
  negative.name = "visible_devices";
  negative.name_size = std::strlen("visible_devices");
  negative.type = PJRT_NamedValue_kInt64List;
  negative.int64_array_value = bad;
  negative.value_size = 1;
  EXPECT_EQ(parseClientOptions(&negative, 1).status().code(),
            StatusCode::kInvalidArgument);
}

PJRT_NamedValue intOption(const char* name, int64_t value) {
  PJRT_NamedValue v{};
  v.struct_size = sizeof(v);
  v.name = name;
  v.name_size = std::strlen(name);
  v.type = PJRT_NamedValue_kInt64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

// What jax.distributed adds (xla_bridge.make_pjrt_c_api_client).
TEST(CreateOptions, NodeIdAndNumNodes) {
  auto alone = parseClientOptions(nullptr, 0);
  ASSERT_TRUE(alone.isOk());
  EXPECT_EQ(alone->node_id, 0);
  EXPECT_EQ(alone->num_nodes, 1);

  PJRT_NamedValue job[] = {intOption("node_id", 1), intOption("num_nodes", 2),
                           intOption("partition_index", 0)};
  auto parsed = parseClientOptions(job, 3);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->node_id, 1);
  EXPECT_EQ(parsed->num_nodes, 2);
  EXPECT_EQ(parsed->ignored, (std::vector<std::string>{"partition_index"}));

  PJRT_NamedValue beyond[] = {intOption("node_id", 2), intOption("num_nodes", 2)};
  auto outside = parseClientOptions(beyond, 2);
  EXPECT_EQ(outside.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(outside.status().message().find("node_id' 2 is not below num_nodes 2"),
            std::string::npos)
      << outside.status().message();
  PJRT_NamedValue none[] = {intOption("num_nodes", 0)};
  EXPECT_EQ(parseClientOptions(none, 1).status().code(), StatusCode::kInvalidArgument);
  PJRT_NamedValue negative[] = {intOption("node_id", -1)};
  EXPECT_EQ(parseClientOptions(negative, 1).status().code(),
            StatusCode::kInvalidArgument);
  PJRT_NamedValue text = stringOption("num_nodes", "2");
  EXPECT_EQ(parseClientOptions(&text, 1).status().code(), StatusCode::kInvalidArgument);
}

// XLA_FLAGTREE_COMPILE_WORKERS reaches the client as compile_workers.
TEST(CreateOptions, CompileWorkers) {
  auto unset = parseClientOptions(nullptr, 0);
  ASSERT_TRUE(unset.isOk());
  EXPECT_EQ(unset->compile_workers, 0);
  PJRT_NamedValue four = intOption("compile_workers", 4);
  auto parsed = parseClientOptions(&four, 1);
  ASSERT_TRUE(parsed.isOk()) << parsed.status().toString();
  EXPECT_EQ(parsed->compile_workers, 4);
  for (int64_t bad : {int64_t{0}, int64_t{-3}, int64_t{1} << 40}) {
    PJRT_NamedValue v = intOption("compile_workers", bad);
    EXPECT_EQ(parseClientOptions(&v, 1).status().code(), StatusCode::kInvalidArgument)
        << bad;
  }
  PJRT_NamedValue text = stringOption("compile_workers", "4");
  EXPECT_EQ(parseClientOptions(&text, 1).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::pjrt
