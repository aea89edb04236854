// One (batched) FFT as the runtime hands it to an FFT library (cuFFT on
// CUDA; hipFFT/rocFFT would read the same description). The compiler fills it
// in from stablehlo.fft; nothing here knows CUDA or our IR.
//
// Buffers of its LibraryThunk, in order: the input, then the output. The
// transform acts on the innermost `lengths.size()` (1..3) dims of the
// input, row-major, repeated over `batch` leading items.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace jft::runtime {

enum class FftKind : uint8_t { kFft, kIfft, kRfft, kIrfft };

struct FftDesc {
  FftKind kind = FftKind::kFft;
  bool f64 = false;              // complex128 / float64 rather than complex64 / float32
  std::vector<int64_t> lengths;  // fft_length, outermost first
  int64_t batch = 1;
  friend bool operator==(const FftDesc&, const FftDesc&) = default;
};

// "rfft [256] batch 4 f32" for errors and the route report.
std::string fftText(const FftDesc& desc);

}  // namespace jft::runtime
