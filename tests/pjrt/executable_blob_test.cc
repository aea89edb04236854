// Serialized executables: programs compiled from the zoo (kernel binaries from
// the fake worker) survive serialize -> deserialize field by field; foreign,
// stale, truncated and corrupt bytes are refused naming why; and
// PJRT_Executable_Serialize / DeserializeAndLoad round-trip a loaded
// executable on the host client.
#include "pjrt/executable_blob.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "compiler/compiler.h"
#include "compiler/fingerprint.h"
#include "compiler/zoo_fixture.h"
#include "executable_test_support.h"
#include "pjrt/build_identity.h"
#include "pjrt/compile.h"
#include "pjrt/executable_serialize.h"
#include "runtime/program_codec.h"

#ifdef JFT_FAKE_WORKER
#include "kernel_compiler/fake_compiler_fixture.h"
#include "kernel_compiler/kernel_compiler.h"
#include "pjrt/entry_points.h"
#endif

namespace jft::pjrt::testing {
namespace {

constexpr std::string_view kIdentity = "test build 1";
constexpr std::string_view kTarget = "cuda 90 warp 32";

std::string programBytes(const runtime::Program& program) {
  ByteWriter out;
  runtime::encodeProgram(out, program);
  return out.take();
}

void expectSameSpecs(const std::vector<ArraySpec>& a, const std::vector<ArraySpec>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].type, b[i].type) << i;
    EXPECT_EQ(a[i].dims, b[i].dims) << i;
    EXPECT_EQ(a[i].bytes, b[i].bytes) << i;
    EXPECT_EQ(a[i].memory_kind, b[i].memory_kind) << i;
  }
}

// Every field of the info and of its program, the thunks by kind and slots.
void expectSameInfo(const ExecutableInfo& a, const ExecutableInfo& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.fingerprint, b.fingerprint);
  expectSameSpecs(a.parameters, b.parameters);
  expectSameSpecs(a.outputs, b.outputs);
  EXPECT_EQ(a.num_replicas, b.num_replicas);
  EXPECT_EQ(a.num_partitions, b.num_partitions);
  EXPECT_EQ(a.optimized_program, b.optimized_program);
  EXPECT_EQ(a.optimized_format, b.optimized_format);
  EXPECT_EQ(a.compile_options, b.compile_options);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.code_bytes, b.code_bytes);
  EXPECT_EQ(a.temp_bytes, b.temp_bytes);
  EXPECT_EQ(a.alias_bytes, b.alias_bytes);
  const runtime::Program& p = a.program;
  const runtime::Program& q = b.program;
  EXPECT_EQ(p.name, q.name);
  ASSERT_EQ(p.kernels.size(), q.kernels.size());
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    EXPECT_EQ(p.kernels[k].binary, q.kernels[k].binary) << k;
    EXPECT_EQ(p.kernels[k].name, q.kernels[k].name) << k;
    EXPECT_EQ(p.kernels[k].shared_mem, q.kernels[k].shared_mem) << k;
    EXPECT_EQ(p.kernels[k].num_warps, q.kernels[k].num_warps) << k;
    EXPECT_EQ(p.kernels[k].params, q.kernels[k].params) << k;
    EXPECT_EQ(p.kernels[k].global_scratch_size, q.kernels[k].global_scratch_size) << k;
    EXPECT_EQ(p.kernels[k].profile_scratch_size, q.kernels[k].profile_scratch_size) << k;
  }
  ASSERT_EQ(p.slots.size(), q.slots.size());
  for (size_t s = 0; s < p.slots.size(); ++s) {
    EXPECT_EQ(p.slots[s].kind, q.slots[s].kind) << s;
    EXPECT_EQ(p.slots[s].bytes, q.slots[s].bytes) << s;
    EXPECT_EQ(p.slots[s].index, q.slots[s].index) << s;
    EXPECT_EQ(p.slots[s].offset, q.slots[s].offset) << s;
    EXPECT_EQ(p.slots[s].data, q.slots[s].data) << s;
  }
  ASSERT_EQ(p.thunks.size(), q.thunks.size());
  for (size_t t = 0; t < p.thunks.size(); ++t) {
    EXPECT_EQ(p.thunks[t].index(), q.thunks[t].index()) << t;
    const auto* launch = std::get_if<runtime::LaunchThunk>(&p.thunks[t]);
    const auto* other = std::get_if<runtime::LaunchThunk>(&q.thunks[t]);
    if (launch != nullptr && other != nullptr) {
      EXPECT_EQ(launch->kernel, other->kernel);
      EXPECT_EQ(launch->grid, other->grid);
      EXPECT_EQ(launch->buffers, other->buffers);
    }
    const auto* gemm = std::get_if<runtime::GemmThunk>(&p.thunks[t]);
    const auto* gemm2 = std::get_if<runtime::GemmThunk>(&q.thunks[t]);
    if (gemm != nullptr && gemm2 != nullptr) {
      EXPECT_EQ(gemm->gemm, gemm2->gemm);
      EXPECT_EQ(gemm->d, gemm2->d);
    }
    const auto* library = std::get_if<runtime::LibraryThunk>(&p.thunks[t]);
    const auto* library2 = std::get_if<runtime::LibraryThunk>(&q.thunks[t]);
    if (library != nullptr && library2 != nullptr) {
      EXPECT_EQ(library->op, library2->op);
      EXPECT_EQ(library->buffers, library2->buffers);
    }
  }
  EXPECT_EQ(p.lists.size(), q.lists.size());
  EXPECT_EQ(p.temp_bytes, q.temp_bytes);
  EXPECT_EQ(p.parameter_bytes, q.parameter_bytes);
  EXPECT_EQ(p.output_slots, q.output_slots);
  EXPECT_EQ(p.output_aliases, q.output_aliases);
  EXPECT_EQ(p.donated_parameters, q.donated_parameters);
  // Whatever the checks above do not name (nested lists, loop and branch
  // fields, collective groups) is covered by the encodings agreeing.
  EXPECT_EQ(programBytes(p), programBytes(q));
}

#ifdef JFT_FAKE_WORKER


using ZooRoundTrip =
    kernel_compiler::testing::FakeCompilerFixture<::testing::TestWithParam<std::string>>;

TEST_P(ZooRoundTrip, EveryFieldSurvives) {
  std::string artifact = compiler::testing::zooArtifact(GetParam());
  ASSERT_FALSE(artifact.empty());
  compiler::Options options;
  auto compiled = compiler::compile(artifact, options, compiler_.get());
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  auto described = describeExecutable(std::move(compiled).value(), artifact, "");
  ASSERT_TRUE(described.isOk()) << described.status().toString();
  ExecutableInfo& info = **described;
  info.target = targetText(options.target);
  ASSERT_EQ(info.target, kTarget);

  std::string bytes = serializeExecutable(info, kIdentity);
  auto back = deserializeExecutable(bytes, kIdentity, kTarget);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  expectSameInfo(info, **back);
  EXPECT_FALSE((*back)->program.kernels.empty() && !info.program.kernels.empty());
  // The views the queries hand out are rebuilt.
  EXPECT_EQ((*back)->output_types, info.output_types);
  EXPECT_EQ((*back)->output_dims, info.output_dims);
  // Deterministic: the same executable gives the same bytes.
  EXPECT_EQ(serializeExecutable(**back, kIdentity), bytes);
}

// Kernels of every family, GEMMs, FFT, solvers, loops and branches.
INSTANTIATE_TEST_SUITE_P(Zoo, ZooRoundTrip,
                         ::testing::Values("smoke", "sort_topk", "mlp", "linalg", "fft",
                                           "cond", "while_dyn", "conv2d", "attention",
                                           "random_normal"));

#endif  // JFT_FAKE_WORKER

// A small valid executable: one kernel, a constant, a launch, a copy and an
// FFI call with attributes.
std::shared_ptr<ExecutableInfo> smallInfo() {
  auto info = std::make_shared<ExecutableInfo>();
  info->name = "jit_small";
  info->fingerprint = "0123abcd";
  info->parameters.push_back({PJRT_Buffer_Type_F32, {4}, 16});
  info->outputs.push_back({PJRT_Buffer_Type_F32, {4}, 16, "pinned_host"});
  info->target = std::string(kTarget);
  runtime::Program& p = info->program;
  p.name = "jit_small";
  runtime::KernelImage kernel;
  kernel.binary = std::string(
      "\x7f"
      "ELF cubin bytes",
      16);
  kernel.name = "fusion_0";
  kernel.num_warps = 4;
  kernel.params = {runtime::KernelImage::Param::kBuffer,
                   runtime::KernelImage::Param::kBuffer,
                   runtime::KernelImage::Param::kGlobalScratch};
  p.kernels.push_back(kernel);
  p.slots.push_back({runtime::BufferSlot::Kind::kParameter, 16, 0, 0, ""});
  p.slots.push_back({runtime::BufferSlot::Kind::kOutput, 16, 0, 0, ""});
  p.slots.push_back(
      {runtime::BufferSlot::Kind::kConstant, 4, -1, 0, std::string("\1\2\3\4", 4)});
  p.slots.push_back({runtime::BufferSlot::Kind::kTemp, 16, -1, 0, ""});
  runtime::LaunchThunk launch;
  launch.kernel = 0;
  launch.grid = {2, 1, 1};
  launch.buffers = {0, 3};
  p.thunks.push_back(launch);
  p.thunks.push_back(runtime::CopyThunk{3, 1, 16});
  runtime::FfiThunk ffi;
  ffi.target = "my_handler";
  ffi.argument_shapes = {{XLA_FFI_DataType_F32, {4}}};
  ffi.arguments = {1};
  ffi.result_shapes = {{XLA_FFI_DataType_F32, {4}}};
  ffi.results = {3};
  float scale = 2.5f;
  ffi.attributes = ffi::Attribute::dictionary(
      {"scale"}, {ffi::Attribute::scalar(XLA_FFI_DataType_F32, &scale, sizeof(scale))});
  ffi.location = "test.py:3";
  p.thunks.push_back(ffi);
  p.temp_bytes = 256;
  p.parameter_bytes = {16};
  p.output_slots = {1};
  p.output_aliases = {0};
  p.donated_parameters = {true};
  info->compile_options = "";
  EXPECT_TRUE(info->finish().isOk());
  return info;
}

Status refusal(std::string_view bytes, std::string_view target = kTarget) {
  auto back = deserializeExecutable(bytes, kIdentity, target);
  return back.isOk() ? Status::ok() : back.status();
}

TEST(ExecutableBlob, SmallExecutableRoundTrips) {
  auto info = smallInfo();
  std::string bytes = serializeExecutable(*info, kIdentity);
  EXPECT_EQ(bytes.substr(0, 8), std::string("JFTEXEC\0", 8));
  auto back = deserializeExecutable(bytes, kIdentity, kTarget);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  expectSameInfo(*info, **back);
  const auto* ffi = std::get_if<runtime::FfiThunk>(&(*back)->program.thunks[2]);
  ASSERT_NE(ffi, nullptr);
  EXPECT_EQ(ffi->target, "my_handler");
  EXPECT_EQ(ffi->location, "test.py:3");
  ASSERT_EQ(ffi->attributes.names, std::vector<std::string>{"scale"});
  float scale = 0;
  std::memcpy(&scale, ffi->attributes.values[0].bytes.data(), sizeof(scale));
  EXPECT_EQ(scale, 2.5f);
}

TEST(ExecutableBlob, ForeignBytesAreRefused) {
  Status status = refusal("PK\3\4 a zip file, not ours");
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("not a jax-flagtree executable"), std::string::npos);
  EXPECT_NE(status.message().find("compiled again"), std::string::npos);
  EXPECT_EQ(refusal("").code(), StatusCode::kInvalidArgument);
}

TEST(ExecutableBlob, EveryTruncationIsRefused) {
  std::string bytes = serializeExecutable(*smallInfo(), kIdentity);
  for (size_t n = 0; n < bytes.size(); ++n) {
    Status status = refusal(std::string_view(bytes).substr(0, n));
    ASSERT_EQ(status.code(), StatusCode::kInvalidArgument)
        << n << ": " << status.message();
    EXPECT_NE(status.message().find("compiled again"), std::string::npos) << n;
  }
  // And bytes after the end.
  EXPECT_EQ(refusal(bytes + "x").code(), StatusCode::kInvalidArgument);
}

TEST(ExecutableBlob, AnotherFormatVersionIsStale) {
  std::string bytes = serializeExecutable(*smallInfo(), kIdentity);
  bytes[8] = static_cast<char>(kFormatVersion + 1);
  Status status = refusal(bytes);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("format version " + std::to_string(kFormatVersion + 1)),
            std::string::npos)
      << status.message();
}

TEST(ExecutableBlob, AnotherBuildIsRefused) {
  std::string bytes = serializeExecutable(*smallInfo(), "an older build");
  Status status = refusal(bytes);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("another build (an older build)"), std::string::npos)
      << status.message();
}

TEST(ExecutableBlob, AnotherTargetIsRefused) {
  std::string bytes = serializeExecutable(*smallInfo(), kIdentity);
  Status status = refusal(bytes, "cuda 80 warp 32");
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("built for target 'cuda 90 warp 32'"),
            std::string::npos)
      << status.message();
  EXPECT_TRUE(refusal(bytes, "").isOk());
}

TEST(ExecutableBlob, EveryCorruptPayloadByteFailsTheChecksum) {
  std::string bytes = serializeExecutable(*smallInfo(), kIdentity);
  const size_t payload = bytes.size() - executablePayload(*smallInfo()).size();
  for (size_t i = payload; i < bytes.size(); ++i) {
    std::string corrupt = bytes;
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x20);
    Status status = refusal(corrupt);
    ASSERT_EQ(status.code(), StatusCode::kInvalidArgument) << i;
    EXPECT_NE(status.message().find("checksum"), std::string::npos) << status.message();
  }
}

TEST(ExecutableBlob, ASealedPayloadThatDoesNotCheckIsRefused) {
  // Past the checksum: a launch naming a slot the program does not have.
  auto info = smallInfo();
  std::get<runtime::LaunchThunk>(info->program.thunks[0]).buffers = {0, 9};
  std::string bytes =
      sealExecutablePayload(executablePayload(*info), kIdentity, info->target);
  Status status = refusal(bytes);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("does not check"), std::string::npos)
      << status.message();
}

// A chain of n loops, each body the next list (list n, empty, is every
// loop's condition); `twice`: each list holds two such loops, so checking
// them recursively would visit 2^n lists.
runtime::Program nestedProgram(int n, bool twice) {
  runtime::Program p;
  p.name = "nested";
  p.slots.push_back({runtime::BufferSlot::Kind::kOutput, 4, 0, 0, ""});
  p.output_slots = {0};
  p.thunks.push_back(runtime::WhileThunk{n, -1, 0, 1});
  for (int i = 0; i < n; ++i) {
    std::vector<runtime::Thunk> list;
    if (i + 1 < n) list.push_back(runtime::WhileThunk{n, -1, i + 1, 1});
    if (twice && i + 1 < n) list.push_back(runtime::WhileThunk{n, -1, i + 1, 1});
    p.lists.push_back(std::move(list));
  }
  p.lists.emplace_back();
  return p;
}

Status decodeStatus(const runtime::Program& p) {
  ByteWriter out;
  runtime::encodeProgram(out, p);
  ByteReader in(out.data());
  auto back = runtime::decodeProgram(in, 32);
  return back.isOk() ? Status::ok() : back.status();
}

TEST(ProgramCodec, NestingWithinBoundsDecodes) {
  EXPECT_TRUE(decodeStatus(nestedProgram(20, false)).isOk());
  EXPECT_TRUE(decodeStatus(nestedProgram(8, true)).isOk());
}

TEST(ProgramCodec, DeepNestingIsRefused) {
  Status status = decodeStatus(nestedProgram(300, false));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("nest deeper"), std::string::npos) << status.message();
}

TEST(ProgramCodec, ExponentialListReferencesAreRefusedNotWalked) {
  Status status = decodeStatus(nestedProgram(60, true));  // 2^60 visits if walked
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("named"), std::string::npos) << status.message();
}

TEST(BuildIdentity, NamesTheVersionsAndTheBinary) {
  const std::string& identity = buildIdentity();
  EXPECT_EQ(identity.rfind("jax-flagtree ", 0), 0u) << identity;
  EXPECT_NE(identity.find(std::string(compiler::kPipelineVersion)), std::string::npos);
  EXPECT_EQ(identity.find("binary unknown"), std::string::npos) << identity;
  // The linker's build id (as `readelf -n` shows it) or the file's hash.
  EXPECT_TRUE(identity.find("binary build-id ") != std::string::npos ||
              identity.find("binary file ") != std::string::npos)
      << identity;
  EXPECT_EQ(&identity, &buildIdentity());
}

class SerializeAbi : public ExecutableTest {};

TEST_F(SerializeAbi, LoadedExecutableRoundTripsThroughTheAbi) {
  compiler::Executable compiled = doublingExecutable(1, {-1});
  compiled.program.kernels[0].name = "double";
  auto described = describeExecutable(std::move(compiled), "program bytes", "");
  ASSERT_TRUE(described.isOk()) << described.status().toString();
  (*described)->target = targetText(deviceTarget(*client_, *client_->devices[0]));
  auto loaded = loadExecutable(*client_, *described, CompileOptions{}, loader_.loader());
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();

  PJRT_Executable view{(*loaded)->info};
  PJRT_Executable_Serialize_Args serialize{};
  serialize.struct_size = sizeof(serialize);
  serialize.executable = &view;
  ASSERT_EQ(executableSerialize(&serialize), nullptr);
  ASSERT_NE(serialize.serialized_executable_deleter, nullptr);
  std::string bytes(serialize.serialized_bytes, serialize.serialized_bytes_size);
  serialize.serialized_executable_deleter(serialize.serialized_executable);

  const size_t loadsBefore = loader_.loaded.size();
  auto back = deserializeAndLoad(*client_, bytes, std::nullopt, loader_.loader());
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  EXPECT_EQ((*back)->info->name, "jit_double");
  EXPECT_EQ((*back)->info->fingerprint, "f1ngerpr1nt");
  ASSERT_EQ((*back)->addressable_devices.size(), 1u);
  EXPECT_EQ((*back)->addressable_devices[0], client_->devices[0]);
  EXPECT_EQ(loader_.loaded.size(), loadsBefore + 1);  // loaded, nothing compiled
  expectSameInfo(*(*loaded)->info, *(*back)->info);

  // Through the ABI entry point, bad bytes are an error naming the entry.
  PJRT_Executable_DeserializeAndLoad_Args load{};
  load.struct_size = sizeof(load);
  load.client = client_.get();
  std::string corrupt = bytes;
  corrupt.back() = static_cast<char>(corrupt.back() ^ 1);
  load.serialized_executable = corrupt.data();
  load.serialized_executable_size = corrupt.size();
  std::string message;
  EXPECT_EQ(errorCode(executableDeserializeAndLoad(&load), &message),
            StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("PJRT_Executable_DeserializeAndLoad"), std::string::npos);
  EXPECT_NE(message.find("checksum"), std::string::npos) << message;
  EXPECT_EQ(load.loaded_executable, nullptr);
}

TEST_F(SerializeAbi, ADeviceOfAnotherTargetRecompiles) {
  auto info = smallInfo();
  info->target = "cuda 80 warp 32";
  std::string bytes = serializeExecutable(*info, buildIdentity());
  auto back = deserializeAndLoad(*client_, bytes, std::nullopt, loader_.loader());
  ASSERT_FALSE(back.isOk());
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(back.status().message().find("built for target 'cuda 80 warp 32'"),
            std::string::npos)
      << back.status().message();
}

TEST_F(SerializeAbi, AnotherBuildsBytesAreRefusedAtTheAbi) {
  std::string bytes = serializeExecutable(*smallInfo(), "jax-flagtree 0.0.1");
  auto back = deserializeAndLoad(*client_, bytes, std::nullopt, loader_.loader());
  ASSERT_FALSE(back.isOk());
  EXPECT_EQ(back.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace jft::pjrt::testing
