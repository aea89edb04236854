// FFTs on the GPU through CudaDevice::library (cuFFT and the inverse scale
// kernel) against a naive DFT computed in double on the host, by relative
// error norm ||y - r|| / ||r|| (< 1e-5 for f32, < 1e-12 for f64). IRFFT's
// input is the exact spectrum of a drawn real signal, so its reference is the
// signal itself; its input buffer must come back unchanged. Skips, saying
// why, where there is no GPU, no CUDA driver or no cuFFT.
#include "runtime/fft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "first_gpu.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cufft.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

using C = std::complex<double>;

FirstGpu& gpu() {
  static FirstGpu* g = openFirstGpu([] { return Cufft::load().status(); });
  return *g;
}

#define SKIP_WITHOUT_GPU() \
  if (!gpu().device) GTEST_SKIP() << gpu().skip

// --- the host reference ---------------------------------------------------------

int64_t product(const std::vector<int64_t>& dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// The multi-dimensional DFT of one row-major item: sum over n of x[n] times
// e^(sign 2 pi i sum_d k_d n_d / L_d).
std::vector<C> dft(const std::vector<C>& x, const std::vector<int64_t>& dims, int sign) {
  const int64_t count = product(dims);
  std::vector<C> out(static_cast<size_t>(count));
  std::vector<int64_t> k(dims.size()), n(dims.size());
  for (int64_t ki = 0; ki < count; ++ki) {
    for (int64_t r = ki, d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
      k[d] = r % dims[d];
      r /= dims[d];
    }
    C sum = 0;
    for (int64_t ni = 0; ni < count; ++ni) {
      double phase = 0;
      for (int64_t r = ni, d = static_cast<int64_t>(dims.size()) - 1; d >= 0; --d) {
        n[d] = r % dims[d];
        r /= dims[d];
        phase +=
            static_cast<double>(k[d] * n[d] % dims[d]) / static_cast<double>(dims[d]);
      }
      sum += x[ni] * std::polar(1.0, sign * 2 * std::numbers::pi * phase);
    }
    out[ki] = sum;
  }
  return out;
}

// The first n / 2 + 1 entries of the last dim.
std::vector<C> halve(const std::vector<C>& full, const std::vector<int64_t>& dims) {
  const int64_t last = dims.back(), keep = last / 2 + 1;
  std::vector<C> out;
  for (int64_t row = 0; row < product(dims) / last; ++row)
    for (int64_t j = 0; j < keep; ++j) out.push_back(full[row * last + j]);
  return out;
}

// --- device buffers ------------------------------------------------------------

struct Buffer {
  uint64_t address = 0, bytes = 0;
  ~Buffer() {
    if (address != 0) gpu().device->deallocate(address, bytes);
  }
};

// Values as float/double, or as interleaved complex pairs.
std::vector<uint8_t> encode(const std::vector<C>& values, bool complex, bool f64) {
  std::vector<uint8_t> bytes;
  auto put = [&](double v) {
    const size_t at = bytes.size();
    if (f64) {
      bytes.resize(at + 8);
      std::memcpy(bytes.data() + at, &v, 8);
    } else {
      const float f = static_cast<float>(v);
      bytes.resize(at + 4);
      std::memcpy(bytes.data() + at, &f, 4);
    }
  };
  for (const C& v : values) {
    put(v.real());
    if (complex) put(v.imag());
  }
  return bytes;
}

std::vector<C> decode(const std::vector<uint8_t>& bytes, bool complex, bool f64) {
  std::vector<double> reals;
  for (size_t at = 0; at < bytes.size(); at += f64 ? 8 : 4) {
    if (f64) {
      double d;
      std::memcpy(&d, bytes.data() + at, 8);
      reals.push_back(d);
    } else {
      float f;
      std::memcpy(&f, bytes.data() + at, 4);
      reals.push_back(f);
    }
  }
  std::vector<C> values;
  for (size_t i = 0; i < reals.size(); i += complex ? 2 : 1)
    values.emplace_back(reals[i], complex ? reals[i + 1] : 0.0);
  return values;
}

void upload(Buffer& buffer, const std::vector<uint8_t>& bytes) {
  buffer.bytes = bytes.size();
  StatusOr<uint64_t> address = gpu().device->allocate(buffer.bytes);
  ASSERT_TRUE(address.isOk()) << address.status().toString();
  buffer.address = *address;
  StatusOr<EventPtr> copied =
      gpu().device->copyToDevice(buffer.address, bytes.data(), bytes.size(), true);
  ASSERT_TRUE(copied.isOk()) << copied.status().toString();
  ASSERT_TRUE((*copied)->await().isOk());
}

std::vector<uint8_t> download(const Buffer& buffer) {
  std::vector<uint8_t> bytes(buffer.bytes);
  StatusOr<EventPtr> copied =
      gpu().device->copyToHost(bytes.data(), buffer.address, buffer.bytes);
  EXPECT_TRUE(copied.isOk()) << copied.status().toString();
  if (!copied.isOk()) return {};
  Status done = (*copied)->await();
  EXPECT_TRUE(done.isOk()) << done.toString();
  return bytes;
}

// --- one transform ---------------------------------------------------------------

double relativeError(const std::vector<C>& got, const std::vector<C>& want) {
  EXPECT_EQ(got.size(), want.size());
  double err = 0, ref = 0;
  for (size_t i = 0; i < got.size() && i < want.size(); ++i) {
    err += std::norm(got[i] - want[i]);
    ref += std::norm(want[i]);
  }
  return ref == 0 ? std::sqrt(err) : std::sqrt(err / ref);
}

double roundTo(bool f64, double v) {
  return f64 ? v : static_cast<double>(static_cast<float>(v));
}

// Runs `d` on drawn data; returns the relative error against the reference.
double runAndCompare(const FftDesc& d) {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const int64_t item = product(d.lengths);
  const bool realIn = d.kind == FftKind::kRfft || d.kind == FftKind::kIrfft;
  std::vector<C> input, want;
  for (int64_t b = 0; b < d.batch; ++b) {
    std::vector<C> x(static_cast<size_t>(item));
    for (C& v : x)
      v = realIn ? C(roundTo(d.f64, uniform(rng)))
                 : C(roundTo(d.f64, uniform(rng)), roundTo(d.f64, uniform(rng)));
    std::vector<C> in, out;
    switch (d.kind) {
      case FftKind::kFft:
        in = x;
        out = dft(x, d.lengths, -1);
        break;
      case FftKind::kIfft:
        in = x;
        out = dft(x, d.lengths, +1);
        for (C& v : out) v /= static_cast<double>(item);
        break;
      case FftKind::kRfft:
        in = x;
        out = halve(dft(x, d.lengths, -1), d.lengths);
        break;
      case FftKind::kIrfft:
        // The exact half spectrum of x, rounded to the element type below;
        // the inverse of it is x.
        in = halve(dft(x, d.lengths, -1), d.lengths);
        out = x;
        break;
    }
    input.insert(input.end(), in.begin(), in.end());
    want.insert(want.end(), out.begin(), out.end());
  }
  const bool complexIn = d.kind != FftKind::kRfft;
  const bool complexOut = d.kind != FftKind::kIrfft;
  const std::vector<uint8_t> inBytes = encode(input, complexIn, d.f64);
  EXPECT_EQ(inBytes.size(), fftInputBytes(d));
  Buffer in, out, workspace;
  upload(in, inBytes);
  upload(out, std::vector<uint8_t>(fftOutputBytes(d), 0));
  if (fftWorkspaceBytes(d) != 0)
    upload(workspace, std::vector<uint8_t>(fftWorkspaceBytes(d), 0));
  if (::testing::Test::HasFatalFailure()) return INFINITY;
  std::vector<uint64_t> buffers = {in.address, out.address};
  if (workspace.address != 0) buffers.push_back(workspace.address);

  Status ran = gpu().device->library(d, buffers);
  EXPECT_TRUE(ran.isOk()) << ran.toString();
  if (!ran.isOk()) return INFINITY;
  std::vector<C> got = decode(download(out), complexOut, d.f64);
  EXPECT_EQ(download(in), inBytes) << "the FFT wrote its input buffer";
  return relativeError(got, want);
}

struct Case {
  std::vector<int64_t> lengths;
  int64_t batch;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {{1}, 1},    {{8}, 1},    {{13}, 3},      {{16}, 5},      {{256}, 4},
      {{4, 6}, 2}, {{5, 3}, 1}, {{3, 5, 7}, 2}, {{2, 4, 8}, 1}, {{30}, 2},
  };
  return all;
}

void sweep(FftKind kind, bool f64) {
  SKIP_WITHOUT_GPU();
  for (const Case& c : cases()) {
    FftDesc d{kind, f64, c.lengths, c.batch};
    SCOPED_TRACE(fftText(d));
    EXPECT_LT(runAndCompare(d), f64 ? 1e-12 : 1e-5);
  }
}

TEST(GpuFft, ForwardComplex64) {
  sweep(FftKind::kFft, false);
}
TEST(GpuFft, ForwardComplex128) {
  sweep(FftKind::kFft, true);
}
TEST(GpuFft, InverseComplex64) {
  sweep(FftKind::kIfft, false);
}
TEST(GpuFft, InverseComplex128) {
  sweep(FftKind::kIfft, true);
}
TEST(GpuFft, RealForwardF32) {
  sweep(FftKind::kRfft, false);
}
TEST(GpuFft, RealForwardF64) {
  sweep(FftKind::kRfft, true);
}
TEST(GpuFft, RealInverseF32) {
  sweep(FftKind::kIrfft, false);
}
TEST(GpuFft, RealInverseF64) {
  sweep(FftKind::kIrfft, true);
}

// The spec's example: a delta's transform is all ones; and the inverse of
// all ones is the delta again (the 1/N scaling).
TEST(GpuFft, TheSpecExampleAndItsInverse) {
  SKIP_WITHOUT_GPU();
  Buffer in, out;
  upload(in, encode({1, 0, 0, 0}, true, false));
  upload(out, std::vector<uint8_t>(32, 0xff));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  ASSERT_TRUE(
      gpu()
          .device
          ->library(FftDesc{FftKind::kFft, false, {4}, 1}, {in.address, out.address})
          .isOk());
  EXPECT_LT(relativeError(decode(download(out), true, false), {1, 1, 1, 1}), 1e-6);
  ASSERT_TRUE(
      gpu()
          .device
          ->library(FftDesc{FftKind::kIfft, false, {4}, 1}, {out.address, in.address})
          .isOk());
  EXPECT_LT(relativeError(decode(download(in), true, false), {1, 0, 0, 0}), 1e-6);
}

TEST(GpuFft, EmptyTransformsDoNothing) {
  SKIP_WITHOUT_GPU();
  EXPECT_TRUE(
      gpu().device->library(FftDesc{FftKind::kIrfft, false, {8}, 0}, {0, 0}).isOk());
  EXPECT_TRUE(
      gpu().device->library(FftDesc{FftKind::kFft, true, {4, 0}, 3}, {0, 0}).isOk());
}

TEST(GpuFft, PlansAreMadeOncePerDescription) {
  SKIP_WITHOUT_GPU();
  StatusOr<std::unique_ptr<FftRunner>> runner = FftRunner::create(*gpu().device);
  ASSERT_TRUE(runner.isOk()) << runner.status().toString();
  Buffer in, out;
  upload(in, std::vector<uint8_t>(16 * 8, 0));
  upload(out, std::vector<uint8_t>(16 * 8, 0));
  ASSERT_FALSE(::testing::Test::HasFatalFailure());
  const FftDesc a{FftKind::kFft, false, {16}, 1};
  const FftDesc b{FftKind::kIfft, false, {16}, 1};
  for (const FftDesc* d : {&a, &b, &a, &b})
    ASSERT_TRUE((*runner)->run(*d, {in.address, out.address}).isOk());
  EXPECT_EQ((*runner)->planCount(), 2u);
  Status wrong = (*runner)->run(a, {in.address});
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wrong.message().find("fft [16] batch 1 f32 takes 2 buffers, got 1"),
            std::string::npos)
      << wrong.message();
  download(out);  // drains the queue before the buffers go
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef SKIP_WITHOUT_GPU
