// Driver: the CUDA driver library, opened once per process with dlopen.
//
// `Driver::load` never aborts: without libcuda.so.1 (a machine with no NVIDIA
// driver) or without a usable device it returns a clear FAILED_PRECONDITION.
#pragma once

#include <string>

#include "runtime/gpu/driver_api.h"
#include "runtime/gpu/library_loader.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class Driver {
 public:
  // The process-wide driver, loaded and initialised on first use.
  static StatusOr<const Driver*> load();

  JFT_ENTRY_POINTS(JFT_CUDA_DRIVER_FUNCTIONS)

  struct Graphs {
    JFT_ENTRY_POINTS(JFT_CUDA_GRAPH_FUNCTIONS)
  };
  Graphs graphs;
  // Whether every entry point of `graphs` was found.
  bool has_graphs = false;

  // OK for CUDA_SUCCESS; otherwise a status naming `what` and the driver's error
  // (out of memory becomes RESOURCE_EXHAUSTED).
  Status check(CUresult result, const char* what) const;
};

}  // namespace jft::runtime::gpu
