// Driver loading: dlopen + dlsym of each entry point, then cuInit.
#include "runtime/gpu/driver.h"

#include <string>

namespace jft::runtime::gpu {
namespace {

StatusOr<Driver*> openDriver() {
  void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return failedPrecondition(
        std::string("cannot load the CUDA driver (libcuda.so.1): ") +
        (reason != nullptr ? reason : "unknown reason") +
        "; is an NVIDIA driver installed on this machine?");
  }
  auto* driver = new Driver();  // lives for the process, like the library
  const std::string missing = driver->resolveEntryPoints(handle);
  if (!missing.empty()) {
    delete driver;
    dlclose(handle);
    return failedPrecondition("the CUDA driver lacks " + missing +
                              "; the installed driver is too old");
  }
  driver->has_graphs = driver->graphs.resolveEntryPoints(handle).empty();
  Status init = driver->check(driver->init(0), "cuInit");
  if (!init.isOk()) {
    delete driver;
    dlclose(handle);
    return failedPrecondition(init.message());
  }
  return driver;
}

}  // namespace

StatusOr<const Driver*> Driver::load() {
  return loadOnce(openDriver);
}

Status Driver::check(CUresult result, const char* what) const {
  if (result == kCudaSuccess) return Status::ok();
  const char* name = nullptr;
  const char* text = nullptr;
  if (getErrorName != nullptr) getErrorName(result, &name);
  if (getErrorString != nullptr) getErrorString(result, &text);
  std::string message =
      std::string(what) + " failed: " + (name != nullptr ? name : "CUDA error") + " (" +
      std::to_string(result) + ")" + (text != nullptr ? std::string(": ") + text : "");
  if (result == kCudaErrorOutOfMemory) return resourceExhausted(message);
  return internalError(message);
}

}  // namespace jft::runtime::gpu
