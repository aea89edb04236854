// Driver: the CUDA driver library, opened once per process with dlopen.
//
// `Driver::load` never aborts: without libcuda.so.1 (a machine with no NVIDIA
// driver) or without a usable device it returns a clear FAILED_PRECONDITION.
#pragma once

#include <string>
#include <type_traits>

#include "runtime/gpu/driver_api.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class Driver {
 public:
  // The process-wide driver, loaded and initialised on first use.
  static StatusOr<const Driver*> load();

#define JFT_DECLARE_DRIVER_FN(member, symbol, signature) \
  std::type_identity_t<signature> member = nullptr;
  JFT_CUDA_DRIVER_FUNCTIONS(JFT_DECLARE_DRIVER_FN)
#undef JFT_DECLARE_DRIVER_FN

  // OK for CUDA_SUCCESS; otherwise a status naming `what` and the driver's error
  // (out of memory becomes RESOURCE_EXHAUSTED).
  Status check(CUresult result, const char* what) const;
};

}  // namespace jft::runtime::gpu
