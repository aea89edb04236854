// The first CUDA device for a library's GPU tests, opened once per process.
// The driver, then the library the test drives (`loadLibrary`: its load
// status), then device 0: `skip` says which step failed, so the tests skip
// with the reason on a machine without a GPU or without the library.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {

struct FirstGpu {
  std::unique_ptr<CudaDevice> device;
  std::string skip;
};

inline FirstGpu* openFirstGpu(const std::function<Status()>& loadLibrary) {
  auto* g = new FirstGpu();
  StatusOr<const Driver*> driver = Driver::load();
  if (!driver.isOk()) {
    g->skip = driver.status().toString();
    return g;
  }
  if (Status library = loadLibrary(); !library.isOk()) {
    g->skip = library.toString();
    return g;
  }
  StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(**driver, 0);
  if (!device.isOk()) {
    g->skip = device.status().toString();
    return g;
  }
  g->device = std::move(device).value();
  return g;
}

}  // namespace jft::runtime::gpu
