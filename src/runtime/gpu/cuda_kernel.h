// CudaKernel: what a KernelHandle of CudaDevice points at (a loaded module and
// its one function), shared by the launch paths of cuda_kernels.cc and
// cuda_graphs.cc.
#pragma once

#include <string>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

struct CudaKernel {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  std::string name;
};

}  // namespace jft::runtime::gpu
