// cuFFT: the library opened once per process, and the FFT runner that runs
// FftDesc (runtime/fft.h) on one CudaDevice's stream.
//
// The runner plans each distinct description once (cufftMakePlanMany64 over
// the dense batched layout, the plan's work area allocated by the library)
// and keeps the plan bound to the device's stream, so a repeated FFT costs
// one exec call. The inverse kinds are scaled by 1 / N afterwards
// (fft_scale.h); the complex-to-real transform runs on a copy of its input
// in the thunk's workspace, as cuFFT overwrites the input it reads.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/fft.h"
#include "runtime/gpu/cufft_api.h"
#include "runtime/gpu/fft_scale.h"
#include "runtime/gpu/library_loader.h"
#include "runtime/gpu/plan_cache.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class CudaDevice;

class Cufft {
 public:
  // The process-wide library. Looks for $JFT_CUFFT_LIBRARY when set, then
  // libcufft.so.12 (CUDA 13), .so.11 (CUDA 12), libcufft.so. UNAVAILABLE when
  // none loads or one lacks an entry point we need.
  static StatusOr<const Cufft*> load();

  JFT_ENTRY_POINTS(JFT_CUFFT_FUNCTIONS)

  std::string library_name;  // the file that was opened

  // OK for success; otherwise a status naming `what` and the result's name
  // (ALLOC_FAILED becomes RESOURCE_EXHAUSTED; INVALID_SIZE, NOT_SUPPORTED and
  // NOT_IMPLEMENTED UNIMPLEMENTED; the rest INTERNAL).
  static Status check(cufftResult result, const std::string& what);
};

class FftRunner {
 public:
  // The device must outlive the runner. Loads cuFFT and the scale kernels.
  static StatusOr<std::unique_ptr<FftRunner>> create(CudaDevice& device);
  ~FftRunner();
  FftRunner(const FftRunner&) = delete;
  FftRunner& operator=(const FftRunner&) = delete;

  // buffers: input, output, and for kIrfft the workspace (runtime/fft.h).
  // Validates (INVALID_ARGUMENT), plans on first sight and enqueues; an
  // empty FFT does nothing. Returns once enqueued.
  Status run(const FftDesc& desc, const std::vector<uint64_t>& buffers);

  // Plans made so far (one per distinct description).
  size_t planCount() const;

 private:
  struct Plan;
  struct KeyHash {
    size_t operator()(const FftDesc& desc) const;
  };

  FftRunner(CudaDevice& device, const Cufft& cufft);
  StatusOr<std::unique_ptr<Plan>> makePlan(const FftDesc& desc);
  Status execute(const FftDesc& desc, const Plan& plan, uint64_t input, uint64_t output);

  CudaDevice& device_;
  const Cufft& cufft_;
  std::unique_ptr<FftScaleKernels> scale_;
  mutable std::mutex mutex_;  // plans are not to be used by two threads at once
  PlanCache<FftDesc, Plan, KeyHash> plans_;
};

}  // namespace jft::runtime::gpu
