// Shared set-up for the executable tests: a two-device host client, a
// hand-built compiled program (f32[n] -> 2 * x), buffers and error helpers.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "executable_fakes.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/entry_points.h"
#include "pjrt/error.h"
#include "pjrt/event.h"
#include "pjrt/executable.h"

namespace jft::pjrt::testing {

// `aliases[o]` = parameter output o may take over (-1: none).
inline compiler::Executable doublingExecutable(int count, std::vector<int> aliases,
                                               int64_t n = 4) {
  compiler::Executable compiled;
  compiled.name = "jit_double";
  compiled.fingerprint = "f1ngerpr1nt";
  runtime::Program& program = compiled.program;
  program.name = compiled.name;
  const uint64_t bytes = static_cast<uint64_t>(n) * 4;
  for (int i = 0; i < count; ++i) {
    compiled.parameter_types.push_back(ir::Type::tensor(ir::ElementType::F32, {n}));
    runtime::BufferSlot slot;
    slot.kind = runtime::BufferSlot::Kind::kParameter;
    slot.bytes = bytes;
    slot.index = i;
    program.slots.push_back(slot);
    program.parameter_bytes.push_back(bytes);
  }
  for (int o = 0; o < count; ++o) {
    compiled.output_types.push_back(ir::Type::tensor(ir::ElementType::F32, {n}));
    runtime::BufferSlot slot;
    slot.kind = runtime::BufferSlot::Kind::kOutput;
    slot.bytes = bytes;
    slot.index = o;
    program.output_slots.push_back(static_cast<int>(program.slots.size()));
    program.slots.push_back(slot);
  }
  program.output_aliases = std::move(aliases);
  runtime::KernelImage kernel;
  kernel.binary = std::string(100, 'k');
  program.kernels.push_back(kernel);
  program.temp_bytes = 512;
  return compiled;
}

inline std::string errorMessage(PJRT_Error* error) {
  Status status = toStatus(error);
  PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
  errorDestroy(&destroy);
  return status.message();
}

// The status `error` stands for; the error is destroyed (null is OK).
inline Status takeStatus(PJRT_Error* error) {
  Status status = toStatus(error);
  PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
  errorDestroy(&destroy);
  return status;
}

// Awaits and destroys `event`; its status.
inline Status awaitAndDestroy(PJRT_Event* event) {
  PJRT_Event_Await_Args await{sizeof(await), nullptr, event};
  Status status = takeStatus(eventAwait(&await));
  PJRT_Event_Destroy_Args destroy{sizeof(destroy), nullptr, event};
  eventDestroy(&destroy);
  return status;
}

inline StatusCode errorCode(PJRT_Error* error, std::string* message = nullptr) {
  Status status = toStatus(error);
  if (message != nullptr) *message = status.message();
  PJRT_Error_Destroy_Args destroy{sizeof(destroy), nullptr, error};
  errorDestroy(&destroy);
  return status.code();
}

class ExecutableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    client_ = makeClient(std::make_unique<HostPlatform>(2), ClientOptions{}, "");
  }
  void TearDown() override {
    for (PJRT_Buffer* buffer : buffers_) {
      buffer->release();
      delete buffer;
    }
    executables_.clear();
    client_.reset();
  }

  HostDevice& device(int i) {
    return static_cast<HostDevice&>(
        *client_->devices.at(static_cast<size_t>(i))->runtime);
  }

  // A loaded executable from `compiled` placed by `options`.
  PJRT_LoadedExecutable* load(compiler::Executable compiled,
                              CompileOptions options = {}) {
    auto info = describeExecutable(std::move(compiled), "program bytes", "options bytes");
    EXPECT_TRUE(info.isOk()) << info.status().toString();
    if (!info.isOk()) return nullptr;
    // What PJRT_Client_Compile records from the same options.
    (*info)->num_replicas = options.num_replicas;
    (*info)->num_partitions = options.num_partitions;
    auto loaded =
        loadExecutable(*client_, std::move(info).value(), options, loader_.loader());
    EXPECT_TRUE(loaded.isOk()) << loaded.status().toString();
    if (!loaded.isOk()) return nullptr;
    executables_.push_back(std::move(loaded).value());
    return executables_.back().get();
  }

  // A buffer holding `values` (f32) on device `d`, or in `memory` when given
  // (e.g. a device's pinned_host memory); the test owns it.
  PJRT_Buffer* buffer(std::vector<float> values, int d = 0,
                      PJRT_Buffer_Type type = PJRT_Buffer_Type_F32,
                      PJRT_Memory* memory = nullptr) {
    std::vector<int64_t> dims{static_cast<int64_t>(values.size())};
    PJRT_Client_BufferFromHostBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.client = client_.get();
    args.data = values.data();
    args.type = type;
    args.dims = dims.data();
    args.num_dims = dims.size();
    args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    args.device = client_->devices[static_cast<size_t>(d)];
    args.memory = memory;
    EXPECT_EQ(clientBufferFromHostBuffer(&args), nullptr);
    if (args.done_with_host_buffer != nullptr) {
      PJRT_Event_Destroy_Args destroy{sizeof(destroy), nullptr,
                                      args.done_with_host_buffer};
      eventDestroy(&destroy);
    }
    buffers_.push_back(args.buffer);
    return args.buffer;
  }

  // The f32 values of any buffer, device or pinned host, read as JAX reads
  // them (PJRT_Buffer_ToHostBuffer).
  static std::vector<float> readBack(PJRT_Buffer* buffer) {
    std::vector<float> out(buffer->byte_size / sizeof(float));
    PJRT_Buffer_ToHostBuffer_Args args{};
    args.struct_size = sizeof(args);
    args.src = buffer;
    args.dst = out.data();
    args.dst_size = buffer->byte_size;
    EXPECT_EQ(bufferToHostBuffer(&args), nullptr);
    EXPECT_TRUE(awaitAndDestroy(args.event).isOk());
    return out;
  }

  // A device buffer's f32 values straight from its (host stand-in) memory.
  static std::vector<float> contents(PJRT_Buffer* buffer) {
    std::vector<float> out(buffer->byte_size / sizeof(float));
    if (!out.empty())
      std::memcpy(out.data(), reinterpret_cast<void*>(buffer->address),
                  buffer->byte_size);
    return out;
  }

  std::unique_ptr<PJRT_Client> client_;
  RecordingLoader loader_;
  std::vector<std::unique_ptr<PJRT_LoadedExecutable>> executables_;
  std::vector<PJRT_Buffer*> buffers_;  // arguments and outputs, freed in TearDown
};

}  // namespace jft::pjrt::testing
