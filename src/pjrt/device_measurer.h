// The compiler's Measurer (compiler/measurer.h) on a runtime device: loads a
// candidate Program as a runtime::Executable and times its executions, so
// the autotuner can compare routes and tiles on the GPU it compiles for.
//
// Inputs are zeros in fresh buffers of the parameters' sizes (products of
// zeros take the same time as any others; no NaN or denormal slow paths).
// Time is host wall time around a batch of back-to-back executions ended by
// waiting for the last one, divided by the batch: the batch is sized so a
// sample lasts about Settings::sample_us, which keeps the wait's own latency
// a small share; Settings::warmup runs first (kernel loading, first-touch
// allocation, cuBLASLt's heuristic query), then the median of
// Settings::samples samples. Each execution's outputs are freed as soon as it
// is enqueued (frees are ordered after queued work), so a batch holds no more
// memory than one run.
#pragma once

#include <string>

#include "compiler/measurer.h"
#include "runtime/device.h"

namespace jft::pjrt {

class DeviceMeasurer final : public compiler::Measurer {
 public:
  struct Settings {
    int warmup = 2;
    int samples = 5;
    double sample_us = 2000;
    int max_batch = 200;
  };

  explicit DeviceMeasurer(runtime::Device& device) : DeviceMeasurer(device, Settings{}) {}
  DeviceMeasurer(runtime::Device& device, Settings settings)
      : device_(device), settings_(settings) {}

  // "NVIDIA H200 cc 9.0".
  std::string deviceKey() const override;
  StatusOr<double> time(const runtime::Program& program,
                        const std::string& label) override;

 private:
  runtime::Device& device_;
  Settings settings_;
};

}  // namespace jft::pjrt
