// The seam through which the compiler times code on a device: implemented
// above it (src/pjrt, on runtime::Executable), so the compiler itself knows
// nothing of CUDA or PJRT. Used by the autotuner (matmul_autotune.h) when
// --xla_gpu_autotune_level > 0.
#pragma once

#include <string>

#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

class Measurer {
 public:
  virtual ~Measurer() = default;

  // Names the device timings are valid for ("NVIDIA H200 sm_90"): part of the
  // autotuning cache key, so one device's winners are never reused on another.
  virtual std::string deviceKey() const = 0;

  // The time of one run of `program`, in microseconds, on inputs it
  // generates itself (zeros in buffers of the parameters' sizes): a few
  // warm-up runs, then the median of several timed runs. `label` names the
  // candidate in messages. An error when the program cannot be loaded or run;
  // the caller skips that candidate.
  virtual StatusOr<double> time(const runtime::Program& program,
                                const std::string& label) = 0;
};

}  // namespace jft::compiler
