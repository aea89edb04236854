// NVRTC, opened once per process with dlopen: CUDA C++ source to a cubin for
// one GPU architecture (the native route's kernels). Loading never aborts:
// without the library the calls are UNAVAILABLE, listing every file tried.
#pragma once

#include <string>
#include <vector>

#include "runtime/gpu/library_loader.h"
#include "runtime/gpu/nvrtc_api.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class Nvrtc {
 public:
  // The process-wide library: $JFT_NVRTC_LIBRARY (a file) when set, then
  // libnvrtc.so.13 and .so.12 inside $JFT_NVRTC_DIR when set (the
  // nvidia-cuda-nvrtc wheel's lib folder, say), then libnvrtc.so.13, .so.12,
  // libnvrtc.so on the loader's path.
  static StatusOr<const Nvrtc*> load();

  // The candidate files load() tries after $JFT_NVRTC_LIBRARY, in order.
  static std::vector<std::string> candidates();

  JFT_ENTRY_POINTS(JFT_NVRTC_FUNCTIONS)

  std::string library_name;  // the file that was opened
};

struct NvrtcVersion {
  int major = 0;
  int minor = 0;
};

StatusOr<NvrtcVersion> nvrtcVersion();

// Compiles `source` (one translation unit, no headers) to a cubin for
// sm_`arch` (90 for an H200) with `extra_options` after ours. A compile
// error is INTERNAL with NVRTC's log (the source is generated: an error is
// ours); the log of a successful compile is dropped.
StatusOr<std::string> compileToCubin(const std::string& source,
                                     const std::string& program_name, int arch,
                                     const std::vector<std::string>& extra_options = {});

}  // namespace jft::runtime::gpu
