// FftDesc's shapes, sizes and validation (runtime/fft.h).
#include "runtime/fft.h"

namespace jft::runtime {
namespace {

bool isInverse(FftKind kind) {
  return kind == FftKind::kIfft || kind == FftKind::kIrfft;
}

// RFFT keeps n / 2 + 1 of the last n entries (none of none).
int64_t halfSpectrum(int64_t n) {
  return n == 0 ? 0 : n / 2 + 1;
}

std::vector<int64_t> halved(std::vector<int64_t> dims) {
  if (!dims.empty()) dims.back() = halfSpectrum(dims.back());
  return dims;
}

uint64_t elements(const FftDesc& d, const std::vector<int64_t>& dims) {
  uint64_t count = static_cast<uint64_t>(d.batch < 0 ? 0 : d.batch);
  for (int64_t n : dims) count *= static_cast<uint64_t>(n < 0 ? 0 : n);
  return count;
}

}  // namespace

Status validateFft(const FftDesc& d) {
  auto fail = [&](const std::string& what) {
    return invalidArgument("fft (" + fftText(d) + "): " + what);
  };
  if (d.lengths.empty() || d.lengths.size() > 3)
    return fail("needs 1 to 3 lengths, has " + std::to_string(d.lengths.size()));
  for (int64_t n : d.lengths)
    if (n < 0) return fail("a length is negative");
  if (d.batch < 0) return fail("the batch is negative");
  return Status::ok();
}

bool fftIsEmpty(const FftDesc& d) {
  if (d.batch == 0) return true;
  for (int64_t n : d.lengths)
    if (n == 0) return true;
  return false;
}

std::vector<int64_t> fftInputDims(const FftDesc& d) {
  return d.kind == FftKind::kIrfft ? halved(d.lengths) : d.lengths;
}

std::vector<int64_t> fftOutputDims(const FftDesc& d) {
  return d.kind == FftKind::kRfft ? halved(d.lengths) : d.lengths;
}

int64_t fftInputElementBytes(const FftDesc& d) {
  const int64_t real = d.f64 ? 8 : 4;
  return d.kind == FftKind::kRfft ? real : 2 * real;
}

int64_t fftOutputElementBytes(const FftDesc& d) {
  const int64_t real = d.f64 ? 8 : 4;
  return d.kind == FftKind::kIrfft ? real : 2 * real;
}

uint64_t fftInputBytes(const FftDesc& d) {
  return elements(d, fftInputDims(d)) * static_cast<uint64_t>(fftInputElementBytes(d));
}

uint64_t fftOutputBytes(const FftDesc& d) {
  return elements(d, fftOutputDims(d)) * static_cast<uint64_t>(fftOutputElementBytes(d));
}

uint64_t fftWorkspaceBytes(const FftDesc& d) {
  return d.kind == FftKind::kIrfft ? fftInputBytes(d) : 0;
}

size_t fftBufferCount(const FftDesc& d) {
  return fftWorkspaceBytes(d) != 0 ? 3 : 2;
}

double fftScale(const FftDesc& d) {
  if (!isInverse(d.kind)) return 1.0;
  double n = 1.0;
  for (int64_t length : d.lengths) n *= static_cast<double>(length);
  return n == 0 ? 1.0 : 1.0 / n;
}

}  // namespace jft::runtime
