// The inverse FFTs' 1 / N: a grid-stride kernel multiplying a device array of
// floats or doubles in place, run on the device's queue after the library's
// unnormalized inverse (cuFFT has no scale of its own; XLA scales with a BLAS
// call in the same place). The kernel is a few lines of PTX text the driver
// compiles when the runner is created, so no kernel compiler is involved and
// nothing is built per size.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/device.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class FftScaleKernels {
 public:
  // Loads both kernels on `device`, which must outlive the result.
  static StatusOr<std::unique_ptr<FftScaleKernels>> load(Device& device);
  ~FftScaleKernels();
  FftScaleKernels(const FftScaleKernels&) = delete;
  FftScaleKernels& operator=(const FftScaleKernels&) = delete;

  // data[i] *= factor for i < count, data being float (or double with
  // `f64`); the factor is rounded to the element type first, as XLA's
  // 1.0f / N is. Enqueued; returns at once.
  Status scale(uint64_t data, uint64_t count, double factor, bool f64);

  // The PTX text both kernels come from (for the syntax test).
  static const char* ptx();

 private:
  explicit FftScaleKernels(Device& device) : device_(device) {}
  Device& device_;
  KernelHandle f32_ = nullptr;
  KernelHandle f64_ = nullptr;
};

}  // namespace jft::runtime::gpu
