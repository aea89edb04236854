// One (batched) FFT as the runtime hands it to an FFT library (cuFFT on
// CUDA; hipFFT/rocFFT would read the same description). The compiler fills it
// in from stablehlo.fft; nothing here knows CUDA or our IR.
//
// The transform acts on the innermost `lengths.size()` (1..3) dims, dense and
// row-major, repeated over `batch` items laid out one after another. What it
// computes is stablehlo.fft's definition: kFft and kRfft are the forward
// (e^-i) transform, unscaled; kIfft and kIrfft the inverse (e^+i) transform
// scaled by 1 / product(lengths), as XLA does (the libraries' inverse is
// unnormalized, so a runner scales after it).
//
// Shapes of one item: kFft/kIfft complex `lengths` -> complex `lengths`;
// kRfft real `lengths` -> complex `lengths` with the last n / 2 + 1;
// kIrfft the reverse of kRfft. Complex is complex64 (complex128 when f64).
//
// Buffers of its LibraryThunk, in order: the input, the output, then for a
// non-empty kIrfft a workspace of the input's bytes: complex-to-real
// libraries overwrite their input, so the runner copies it there first and
// the caller's buffer is only read.
//
// An FFT with batch 0 or a length of 0 is empty: its buffers hold nothing
// and it does nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

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

// INVALID_ARGUMENT, naming the description, unless 1 <= rank <= 3, every
// length >= 0 and batch >= 0.
Status validateFft(const FftDesc& desc);

// Whether the FFT has no elements (batch 0 or a length 0): nothing to run.
bool fftIsEmpty(const FftDesc& desc);

// The dims of one item of the input and of the output (see above).
std::vector<int64_t> fftInputDims(const FftDesc& desc);
std::vector<int64_t> fftOutputDims(const FftDesc& desc);

// Bytes of one element of the input / output: 4 or 8 for real, 8 or 16 for
// complex.
int64_t fftInputElementBytes(const FftDesc& desc);
int64_t fftOutputElementBytes(const FftDesc& desc);

// Bytes of the whole input / output (all batch items); the workspace bytes of
// kIrfft are the input's, 0 for the other kinds.
uint64_t fftInputBytes(const FftDesc& desc);
uint64_t fftOutputBytes(const FftDesc& desc);
uint64_t fftWorkspaceBytes(const FftDesc& desc);

// The buffers its LibraryThunk lists: 3 for a non-empty kIrfft, else 2.
size_t fftBufferCount(const FftDesc& desc);

// The inverse transforms' scale, 1 / product(lengths); 1 for the forward ones.
double fftScale(const FftDesc& desc);

}  // namespace jft::runtime
