// The profiler extension as jaxlib's plugin tracer drives it: found in the
// extension chain by type, create/start/stop/collect_data/destroy through the
// PLUGIN_Profiler_Api table (lifecycle arguments with struct_size unset, as
// jaxlib sends them), the bytes parse as an XSpace; errors carry a message and
// a code; without CUPTI (this machine) a trace still works, with the reason as
// an XSpace warning and a one-time warning on stderr. ProfilerSession over a
// fake tracer: its activities become GPU planes.
#include "pjrt/profiler_extension.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "../runtime/xplane_reader.h"
#include "pjrt/ffi_extension.h"
#include "pjrt/profiler_session.h"
#include "support/proto_wire.h"

namespace jft::pjrt {
namespace {

using jft::testing::readXSpace;

const PJRT_Profiler_Extension* findProfiler() {
  for (const PJRT_Extension_Base* e = extensionChain(); e != nullptr; e = e->next)
    if (e->type == PJRT_Extension_Type_Profiler)
      return reinterpret_cast<const PJRT_Profiler_Extension*>(e);
  return nullptr;
}

std::string messageOf(const PLUGIN_Profiler_Api& api, PLUGIN_Profiler_Error* error,
                      int* code) {
  PLUGIN_Profiler_Error_Message_Args message{};
  message.struct_size = sizeof(message);
  message.error = error;
  api.error_message(&message);
  PLUGIN_Profiler_Error_GetCode_Args get{};
  get.struct_size = sizeof(get);
  get.error = error;
  EXPECT_EQ(api.error_get_code(&get), nullptr);
  *code = get.code;
  std::string text(message.message, message.message_size);
  PLUGIN_Profiler_Error_Destroy_Args destroy{};
  destroy.struct_size = sizeof(destroy);
  destroy.error = error;
  api.error_destroy(&destroy);
  return text;
}

TEST(PjrtProfilerExtension, IsInTheChainWithEveryEntryPoint) {
  const PJRT_Profiler_Extension* extension = findProfiler();
  ASSERT_NE(extension, nullptr);
  EXPECT_EQ(extension->base.struct_size, sizeof(PJRT_Profiler_Extension));
  ASSERT_NE(extension->profiler_api, nullptr);
  const PLUGIN_Profiler_Api& api = *extension->profiler_api;
  EXPECT_EQ(&api, &pluginProfilerApi());
  EXPECT_EQ(api.struct_size, abi::kProfilerApiSizeWithConsume);
  for (const void* entry :
       {reinterpret_cast<const void*>(api.error_destroy),
        reinterpret_cast<const void*>(api.error_message),
        reinterpret_cast<const void*>(api.error_get_code),
        reinterpret_cast<const void*>(api.create),
        reinterpret_cast<const void*>(api.destroy),
        reinterpret_cast<const void*>(api.start), reinterpret_cast<const void*>(api.stop),
        reinterpret_cast<const void*>(api.collect_data),
        reinterpret_cast<const void*>(api.consume),
        reinterpret_cast<const void*>(api.consume_result_destroy),
        reinterpret_cast<const void*>(api.serialize)})
    EXPECT_NE(entry, nullptr);
}

// Without a GPU, CUPTI is either missing or refuses (no driver): both leave
// host events only.
TEST(PjrtProfilerExtension, ATraceWithoutGpuActivityStillCollectsAnXSpace) {
  const PLUGIN_Profiler_Api& api = pluginProfilerApi();
  // jaxlib's own options: device_tracer_level (3) = 1.
  proto::Writer options;
  options.varintField(3, 1);
  PLUGIN_Profiler_Create_Args create;  // struct_size left unset, as jaxlib does
  create.options = options.data().data();
  create.options_size = options.data().size();
  ASSERT_EQ(api.create(&create), nullptr);
  ASSERT_NE(create.profiler, nullptr);
  PLUGIN_Profiler_Start_Args start;
  start.profiler = create.profiler;
  ASSERT_EQ(api.start(&start), nullptr);
  EXPECT_TRUE(warnedAboutMissingGpuActivity());
  PLUGIN_Profiler_Stop_Args stop;
  stop.profiler = create.profiler;
  ASSERT_EQ(api.stop(&stop), nullptr);

  // jaxlib: one call with a null buffer, then parses the bytes it points at.
  PLUGIN_Profiler_CollectData_Args collect;
  collect.profiler = create.profiler;
  collect.buffer = nullptr;
  ASSERT_EQ(api.collect_data(&collect), nullptr);
  ASSERT_NE(collect.buffer, nullptr);
  const std::string bytes(reinterpret_cast<const char*>(collect.buffer),
                          collect.buffer_size_in_bytes);
  auto space = readXSpace(bytes);
  EXPECT_TRUE(space.planes.empty());
  ASSERT_FALSE(space.warnings.empty());
  EXPECT_NE(space.warnings[0].find("CUPTI"), std::string::npos) << space.warnings[0];

  // The header's two-call form copies into the caller's buffer.
  std::vector<uint8_t> copy(collect.buffer_size_in_bytes);
  collect.buffer = copy.data();
  ASSERT_EQ(api.collect_data(&collect), nullptr);
  EXPECT_EQ(std::string(copy.begin(), copy.end()), bytes);

  PLUGIN_Profiler_Consume_Args consume{};
  consume.profiler = create.profiler;
  ASSERT_EQ(api.consume(&consume), nullptr);
  PLUGIN_Profiler_Serialize_Args serialize{};
  serialize.profiler = create.profiler;
  serialize.consume_result = consume.result;
  ASSERT_EQ(api.serialize(&serialize), nullptr);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(serialize.serialized_bytes),
                        serialize.serialized_size),
            bytes);
  PLUGIN_Profiler_ConsumeResult_Destroy_Args done{};
  done.consume_result = consume.result;
  api.consume_result_destroy(&done);

  PLUGIN_Profiler_Destroy_Args destroy;
  destroy.profiler = create.profiler;
  EXPECT_EQ(api.destroy(&destroy), nullptr);
}

TEST(PjrtProfilerExtension, BadArgumentsAreErrorsNotCrashes) {
  const PLUGIN_Profiler_Api& api = pluginProfilerApi();
  PLUGIN_Profiler_Start_Args start{};
  int code = 0;
  std::string message = messageOf(api, api.start(&start), &code);
  EXPECT_EQ(code, static_cast<int>(StatusCode::kInvalidArgument));
  EXPECT_NE(message.find("no profiler"), std::string::npos) << message;
  messageOf(api, api.collect_data(nullptr), &code);
  EXPECT_EQ(code, static_cast<int>(StatusCode::kInvalidArgument));
  messageOf(api, api.create(nullptr), &code);
  EXPECT_EQ(code, static_cast<int>(StatusCode::kInvalidArgument));
  PLUGIN_Profiler_Destroy_Args destroy{};
  EXPECT_EQ(api.destroy(&destroy), nullptr);  // destroying nothing is fine
  PLUGIN_Profiler_Error_Destroy_Args none{};
  api.error_destroy(&none);
}

TEST(PjrtProfilerOptions, DeviceTracerLevelZeroTurnsDeviceTracingOff) {
  EXPECT_TRUE(deviceTracingRequested(""));
  proto::Writer on;
  on.varintField(2, 2);  // host_tracer_level
  on.varintField(3, 1);
  EXPECT_TRUE(deviceTracingRequested(on.data()));
  proto::Writer off;
  off.varintField(2, 2);
  EXPECT_FALSE(deviceTracingRequested(off.data()));
  EXPECT_TRUE(deviceTracingRequested(std::string("\x1a\x05", 2)));  // malformed
}

class FakeTracer : public runtime::DeviceTracer {
 public:
  Status start() override { return Status::ok(); }
  Status stop() override { return Status::ok(); }
  runtime::DeviceTrace collect() override {
    runtime::DeviceTrace trace;
    trace.start_ns = 1000;
    trace.end_ns = 5000;
    trace.devices = {0};
    runtime::DeviceActivity kernel;
    kernel.name = "fusion_tanh";
    kernel.stream = 3;
    kernel.start_ns = 2000;
    kernel.end_ns = 2500;
    trace.activities.push_back(kernel);
    return trace;
  }
};

TEST(PjrtProfilerSession, ATracersActivityBecomesAGpuPlane) {
  ProfilerSession session(true, [] {
    return StatusOr<std::unique_ptr<runtime::DeviceTracer>>(
        std::unique_ptr<runtime::DeviceTracer>(new FakeTracer()));
  });
  EXPECT_TRUE(readXSpace(session.collect()).planes.empty());  // nothing traced yet
  session.start();
  session.start();  // ignored
  session.stop();
  EXPECT_EQ(session.missingReason(), "");
  auto space = readXSpace(session.collect());
  ASSERT_EQ(space.planes.size(), 1u);
  EXPECT_EQ(space.planes[0].name, "/device:GPU:0");
  ASSERT_EQ(space.planes[0].lines.size(), 1u);
  EXPECT_EQ(space.planes[0].lines[0].name, "Stream #3");
  EXPECT_EQ(space.planes[0].lines[0].events[0].duration_ps, 500'000);
}

TEST(PjrtProfilerSession, ARefusingTracerLeavesHostEventsOnly) {
  class Refusing : public FakeTracer {
    Status start() override {
      return unavailable("cuptiActivityEnable failed: CUPTI_ERROR_NOT_INITIALIZED");
    }
  };
  ProfilerSession session(true, [] {
    return StatusOr<std::unique_ptr<runtime::DeviceTracer>>(
        std::unique_ptr<runtime::DeviceTracer>(new Refusing()));
  });
  session.start();
  session.stop();
  EXPECT_NE(session.missingReason().find("NOT_INITIALIZED"), std::string::npos);
  auto space = readXSpace(session.collect());
  EXPECT_TRUE(space.planes.empty());
  ASSERT_EQ(space.warnings.size(), 1u);
}

}  // namespace
}  // namespace jft::pjrt
