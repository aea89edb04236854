// The FFT runner: FftDesc (runtime/fft.h) on cuFFT, loaded with dlopen on
// first use and enqueued on the device's stream.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/fft.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class CudaDevice;

class FftRunner {
 public:
  static StatusOr<std::unique_ptr<FftRunner>> create(CudaDevice& device);
  virtual ~FftRunner() = default;
  // buffers: input, output (runtime/fft.h).
  virtual Status run(const FftDesc& desc, const std::vector<uint64_t>& buffers) = 0;
};

}  // namespace jft::runtime::gpu
