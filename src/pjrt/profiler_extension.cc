#include "pjrt/profiler_extension.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>

#include "pjrt/profiler_session.h"
#include "runtime/gpu_platform.h"
#include "support/status.h"

struct PLUGIN_Profiler {
  jft::pjrt::ProfilerSession session;
};

struct PLUGIN_Profiler_Error {
  jft::Status status;
};

struct PLUGIN_Profiler_ConsumeResult {
  std::string bytes;
};

namespace jft::pjrt {
namespace {

PLUGIN_Profiler_Error* toError(Status status) {
  if (status.isOk()) return nullptr;
  return new (std::nothrow) PLUGIN_Profiler_Error{std::move(status)};
}

// The profiler entry points' fence: no exception crosses the C ABI.
template <typename Body>
PLUGIN_Profiler_Error* guarded(const char* function, Body&& body) noexcept {
  try {
    return toError(body());
  } catch (const std::bad_alloc&) {
    return toError(resourceExhausted(std::string(function) + ": out of host memory"));
  } catch (...) {
    return toError(internalError(std::string(function) + ": unexpected exception"));
  }
}

Status needProfiler(const PLUGIN_Profiler* profiler, const char* function) {
  if (profiler != nullptr) return Status::ok();
  return invalidArgument(std::string(function) + ": no profiler (create one first)");
}

void errorDestroy(PLUGIN_Profiler_Error_Destroy_Args* args) {
  if (args != nullptr) delete args->error;
}

void errorMessage(PLUGIN_Profiler_Error_Message_Args* args) {
  if (args == nullptr || args->error == nullptr) return;
  const std::string& message = args->error->status.message();
  args->message = message.data();
  args->message_size = message.size();
}

PLUGIN_Profiler_Error* errorGetCode(PLUGIN_Profiler_Error_GetCode_Args* args) {
  if (args == nullptr || args->error == nullptr)
    return toError(invalidArgument("PLUGIN_Profiler_Error_GetCode: no error"));
  args->code = static_cast<int>(args->error->status.code());
  return nullptr;
}

PLUGIN_Profiler_Error* create(PLUGIN_Profiler_Create_Args* args) {
  return guarded("PLUGIN_Profiler_Create", [&]() -> Status {
    if (args == nullptr) return invalidArgument("PLUGIN_Profiler_Create: args is null");
    const std::string_view options =
        args->options != nullptr ? std::string_view(args->options, args->options_size)
                                 : std::string_view();
    args->profiler = new PLUGIN_Profiler{
        ProfilerSession(deviceTracingRequested(options), &runtime::openGpuDeviceTracer)};
    return Status::ok();
  });
}

PLUGIN_Profiler_Error* destroy(PLUGIN_Profiler_Destroy_Args* args) {
  return guarded("PLUGIN_Profiler_Destroy", [&]() -> Status {
    if (args != nullptr) delete args->profiler;
    return Status::ok();
  });
}

PLUGIN_Profiler_Error* start(PLUGIN_Profiler_Start_Args* args) {
  return guarded("PLUGIN_Profiler_Start", [&]() -> Status {
    JFT_RETURN_IF_ERROR(needProfiler(args != nullptr ? args->profiler : nullptr,
                                     "PLUGIN_Profiler_Start"));
    args->profiler->session.start();
    return Status::ok();
  });
}

PLUGIN_Profiler_Error* stop(PLUGIN_Profiler_Stop_Args* args) {
  return guarded("PLUGIN_Profiler_Stop", [&]() -> Status {
    JFT_RETURN_IF_ERROR(
        needProfiler(args != nullptr ? args->profiler : nullptr, "PLUGIN_Profiler_Stop"));
    args->profiler->session.stop();
    return Status::ok();
  });
}

PLUGIN_Profiler_Error* collectData(PLUGIN_Profiler_CollectData_Args* args) {
  return guarded("PLUGIN_Profiler_CollectData", [&]() -> Status {
    JFT_RETURN_IF_ERROR(needProfiler(args != nullptr ? args->profiler : nullptr,
                                     "PLUGIN_Profiler_CollectData"));
    const std::string& bytes = args->profiler->session.collect();
    if (args->buffer == nullptr) {
      // jaxlib parses these bytes in place; they live until the next
      // start or the profiler's destruction.
      args->buffer = reinterpret_cast<uint8_t*>(const_cast<char*>(bytes.data()));
    } else if (!bytes.empty()) {
      std::memcpy(args->buffer, bytes.data(), bytes.size());
    }
    args->buffer_size_in_bytes = bytes.size();
    return Status::ok();
  });
}

PLUGIN_Profiler_Error* consume(PLUGIN_Profiler_Consume_Args* args) {
  return guarded("PLUGIN_Profiler_Consume", [&]() -> Status {
    JFT_RETURN_IF_ERROR(needProfiler(args != nullptr ? args->profiler : nullptr,
                                     "PLUGIN_Profiler_Consume"));
    args->result = new PLUGIN_Profiler_ConsumeResult{args->profiler->session.collect()};
    return Status::ok();
  });
}

void consumeResultDestroy(PLUGIN_Profiler_ConsumeResult_Destroy_Args* args) {
  if (args != nullptr) delete args->consume_result;
}

PLUGIN_Profiler_Error* serialize(PLUGIN_Profiler_Serialize_Args* args) {
  return guarded("PLUGIN_Profiler_Serialize", [&]() -> Status {
    if (args == nullptr || args->consume_result == nullptr)
      return invalidArgument("PLUGIN_Profiler_Serialize: no consume result");
    const std::string& bytes = args->consume_result->bytes;
    args->serialized_bytes = reinterpret_cast<const uint8_t*>(bytes.data());
    args->serialized_size = bytes.size();
    return Status::ok();
  });
}

size_t apiStructSize() {
  const char* asked = std::getenv("JFT_PROFILER_API_SIZE");
  if (asked != nullptr && std::string_view(asked) == "80") return abi::kProfilerApiSizeV1;
  return abi::kProfilerApiSizeWithConsume;
}

struct Extension {
  PLUGIN_Profiler_Api api{};
  PJRT_Profiler_Extension extension{};
  Extension() {
    api.struct_size = apiStructSize();
    api.error_destroy = &errorDestroy;
    api.error_message = &errorMessage;
    api.error_get_code = &errorGetCode;
    api.create = &create;
    api.destroy = &destroy;
    api.start = &start;
    api.stop = &stop;
    api.collect_data = &collectData;
    api.consume = &consume;
    api.consume_result_destroy = &consumeResultDestroy;
    api.serialize = &serialize;
    extension.base.struct_size = sizeof(PJRT_Profiler_Extension);
    extension.base.type = PJRT_Extension_Type_Profiler;
    extension.profiler_api = &api;
  }
};

Extension& theExtension() {
  static Extension* extension = new Extension();  // jaxlib keeps pointers into it
  return *extension;
}

}  // namespace

PJRT_Extension_Base* profilerExtension(PJRT_Extension_Base* next) {
  Extension& e = theExtension();
  e.extension.base.next = next;
  return &e.extension.base;
}

const PLUGIN_Profiler_Api& pluginProfilerApi() {
  return theExtension().api;
}

}  // namespace jft::pjrt
