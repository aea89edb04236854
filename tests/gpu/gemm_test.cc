// cuBLASLt products on the GPU against a float64 host reference, by relative
// error norm ||D - R|| / ||R|| (f32 exact < 1e-5, tf32 < 1e-3, bf16/f16 <
// 1e-2, f64 < 1e-12, integers exact). Inputs are drawn, rounded to their
// type, and the reference is computed from the rounded values. Padding of D
// between rows must come back untouched. Skips, saying why, where there is no
// GPU, no CUDA driver or no cuBLASLt.
#include "runtime/gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "runtime/gpu/cublaslt.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

using Value = std::complex<double>;

struct Gpu {
  std::unique_ptr<CudaDevice> device;
  std::unique_ptr<GemmRunner> runner;
  std::string skip;
};

Gpu& gpu() {
  static Gpu* g = [] {
    auto* g = new Gpu();
    StatusOr<const Driver*> driver = Driver::load();
    if (!driver.isOk()) {
      g->skip = driver.status().toString();
      return g;
    }
    StatusOr<std::unique_ptr<CudaDevice>> device = CudaDevice::open(**driver, 0);
    if (!device.isOk()) {
      g->skip = device.status().toString();
      return g;
    }
    g->device = std::move(device).value();
    StatusOr<std::unique_ptr<GemmRunner>> runner = GemmRunner::create(*g->device);
    if (!runner.isOk()) {
      g->skip = runner.status().toString();
      return g;
    }
    g->runner = std::move(runner).value();
    return g;
  }();
  return *g;
}

#define SKIP_WITHOUT_GPU() \
  if (!gpu().runner) GTEST_SKIP() << gpu().skip

// --- element encodings ------------------------------------------------------

// Rounds to a binary float with `mantissa` stored bits and smallest normal
// exponent `emin`, to nearest even (the default rounding mode of nearbyint).
double quantize(double x, int mantissa, int emin) {
  if (x == 0) return 0;
  int exp = 0;
  std::frexp(x, &exp);  // |x| = f * 2^exp, f in [0.5, 1)
  const double quantum = std::ldexp(1.0, std::max(exp - 1, emin) - mantissa);
  return std::nearbyint(x / quantum) * quantum;
}

uint16_t halfBits(double exact) {
  uint16_t sign = std::signbit(exact) ? 0x8000 : 0;
  double a = std::fabs(exact);
  if (a == 0) return sign;
  int exp = 0;
  std::frexp(a, &exp);
  --exp;  // a = 1.f * 2^exp
  if (exp < -14) return sign | static_cast<uint16_t>(a / std::ldexp(1.0, -24));
  const auto mant = static_cast<uint16_t>((a / std::ldexp(1.0, exp) - 1) * 1024);
  return sign | static_cast<uint16_t>((exp + 15) << 10) | mant;
}

double halfValue(uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1 : 1;
  const int e = (bits >> 10) & 0x1f;
  const int mant = bits & 0x3ff;
  if (e == 0) return sign * mant * std::ldexp(1.0, -24);
  if (e == 31) return mant ? NAN : sign * INFINITY;
  return sign * (1 + mant / 1024.0) * std::ldexp(1.0, e - 15);
}

double roundTo(GemmType type, double x) {
  switch (type) {
    case GemmType::kF16:
      return quantize(x, 10, -14);
    case GemmType::kBF16:
      return quantize(x, 7, -126);
    case GemmType::kF32:
    case GemmType::kC64:
      return static_cast<float>(x);
    case GemmType::kS8:
    case GemmType::kS32:
      return std::nearbyint(x);
    default:
      return x;
  }
}

void encode(GemmType type, const std::vector<Value>& values,
            std::vector<uint8_t>& bytes) {
  const int64_t size = gemmTypeBytes(type);
  bytes.assign(values.size() * size, 0);
  for (size_t i = 0; i < values.size(); ++i) {
    uint8_t* out = bytes.data() + i * size;
    const double re = values[i].real(), im = values[i].imag();
    switch (type) {
      case GemmType::kF16: {
        uint16_t v = halfBits(re);
        std::memcpy(out, &v, 2);
        break;
      }
      case GemmType::kBF16: {
        float f = static_cast<float>(re);  // exact: re is a bf16 value
        uint32_t u;
        std::memcpy(&u, &f, 4);
        uint16_t v = static_cast<uint16_t>(u >> 16);
        std::memcpy(out, &v, 2);
        break;
      }
      case GemmType::kF32: {
        float v = static_cast<float>(re);
        std::memcpy(out, &v, 4);
        break;
      }
      case GemmType::kF64:
        std::memcpy(out, &re, 8);
        break;
      case GemmType::kC64: {
        float v[2] = {static_cast<float>(re), static_cast<float>(im)};
        std::memcpy(out, v, 8);
        break;
      }
      case GemmType::kC128: {
        double v[2] = {re, im};
        std::memcpy(out, v, 16);
        break;
      }
      case GemmType::kS8: {
        int8_t v = static_cast<int8_t>(re);
        std::memcpy(out, &v, 1);
        break;
      }
      case GemmType::kS32: {
        int32_t v = static_cast<int32_t>(re);
        std::memcpy(out, &v, 4);
        break;
      }
    }
  }
}

std::vector<Value> decode(GemmType type, const std::vector<uint8_t>& bytes) {
  const int64_t size = gemmTypeBytes(type);
  std::vector<Value> values(bytes.size() / size);
  for (size_t i = 0; i < values.size(); ++i) {
    const uint8_t* in = bytes.data() + i * size;
    switch (type) {
      case GemmType::kF16: {
        uint16_t v;
        std::memcpy(&v, in, 2);
        values[i] = halfValue(v);
        break;
      }
      case GemmType::kBF16: {
        uint16_t v;
        std::memcpy(&v, in, 2);
        uint32_t u = static_cast<uint32_t>(v) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        values[i] = f;
        break;
      }
      case GemmType::kF32: {
        float f;
        std::memcpy(&f, in, 4);
        values[i] = f;
        break;
      }
      case GemmType::kF64: {
        double d;
        std::memcpy(&d, in, 8);
        values[i] = d;
        break;
      }
      case GemmType::kC64: {
        float f[2];
        std::memcpy(f, in, 8);
        values[i] = Value(f[0], f[1]);
        break;
      }
      case GemmType::kC128: {
        double d[2];
        std::memcpy(d, in, 16);
        values[i] = Value(d[0], d[1]);
        break;
      }
      case GemmType::kS8: {
        int8_t v;
        std::memcpy(&v, in, 1);
        values[i] = v;
        break;
      }
      case GemmType::kS32: {
        int32_t v;
        std::memcpy(&v, in, 4);
        values[i] = v;
        break;
      }
    }
  }
  return values;
}

bool isComplex(GemmType t) {
  return t == GemmType::kC64 || t == GemmType::kC128;
}

std::vector<Value> draw(GemmType type, int64_t count, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::uniform_int_distribution<int> int8(-128, 127);
  std::vector<Value> values(count);
  for (Value& v : values) {
    if (type == GemmType::kS8) {
      v = int8(rng);
    } else if (type == GemmType::kS32) {
      v = int8(rng) * 50;
    } else {
      const double re = roundTo(type, uniform(rng));
      v = isComplex(type) ? Value(re, roundTo(type, uniform(rng))) : Value(re);
    }
  }
  return values;
}

// --- the reference ------------------------------------------------------------

double gelu(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
}

int64_t offsetA(const GemmDesc& d, int64_t b, int64_t i, int64_t p) {
  return b * d.a.batch_stride + (d.a.transpose ? p * d.a.ld + i : i * d.a.ld + p);
}
int64_t offsetB(const GemmDesc& d, int64_t b, int64_t p, int64_t j) {
  return b * d.b.batch_stride + (d.b.transpose ? j * d.b.ld + p : p * d.b.ld + j);
}
int64_t offsetD(const GemmDesc& d, int64_t b, int64_t i, int64_t j) {
  return b * d.d_batch_stride + i * d.d_ld + j;
}

Value reference(const GemmDesc& d, const std::vector<Value>& a,
                const std::vector<Value>& b, const std::vector<Value>& d0,
                const std::vector<Value>& bias, int64_t bi, int64_t i, int64_t j) {
  Value sum = 0;
  for (int64_t p = 0; p < d.k; ++p)
    sum += a[offsetA(d, bi, i, p)] * b[offsetB(d, bi, p, j)];
  Value x = d.alpha * sum;
  if (d.beta != 0) x += d.beta * d0[offsetD(d, bi, i, j)];
  if (d.bias) x += bias[j];
  if (d.epilogue == GemmEpilogue::kRelu) x = std::max(x.real(), 0.0);
  if (d.epilogue == GemmEpilogue::kGelu) x = gelu(x.real());
  return x;
}

// --- one product ----------------------------------------------------------------

struct Buffer {
  uint64_t address = 0, bytes = 0;
  ~Buffer() {
    if (address != 0) gpu().device->deallocate(address, bytes);
  }
};

void upload(Buffer& buffer, const std::vector<uint8_t>& bytes, uint64_t offset = 0) {
  buffer.bytes = bytes.size() + offset;
  StatusOr<uint64_t> address = gpu().device->allocate(buffer.bytes);
  ASSERT_TRUE(address.isOk()) << address.status().toString();
  buffer.address = *address;
  StatusOr<EventPtr> copied = gpu().device->copyToDevice(
      buffer.address + offset, bytes.data(), bytes.size(), true);
  ASSERT_TRUE(copied.isOk()) << copied.status().toString();
  ASSERT_TRUE((*copied)->await().isOk());
}

struct Shape {
  int64_t batch, m, n, k;
  bool ta = false, tb = false;
  int64_t pad = 0;          // extra elements per stored row of A, B and D
  bool broadcastB = false;  // one B for every batch item
};

GemmDesc describe(GemmType in, GemmType out, GemmCompute compute, const Shape& s) {
  GemmDesc d;
  d.batch = s.batch;
  d.m = s.m;
  d.n = s.n;
  d.k = s.k;
  d.a = {in, s.ta, (s.ta ? s.m : s.k) + s.pad, 0};
  d.a.batch_stride = (s.ta ? s.k : s.m) * d.a.ld;
  d.b = {in, s.tb, (s.tb ? s.k : s.n) + s.pad, 0};
  d.b.batch_stride = s.broadcastB ? 0 : (s.tb ? s.n : s.k) * d.b.ld;
  d.d_type = out;
  d.d_ld = s.n + s.pad;
  d.d_batch_stride = s.m * d.d_ld;
  d.compute = compute;
  return d;
}

// Runs `d` with the A buffer starting `offsetA` elements into its allocation
// (to test less aligned operands); returns the relative error norm.
double runAndCompare(const GemmDesc& d, uint64_t offsetA = 0) {
  EXPECT_TRUE(validateGemm(d).isOk()) << validateGemm(d).toString();
  std::mt19937 rng(1234);
  std::vector<Value> a = draw(d.a.type, gemmElementsA(d), rng);
  std::vector<Value> b = draw(d.b.type, gemmElementsB(d), rng);
  std::vector<Value> d0 = draw(d.d_type, gemmElementsD(d), rng);
  std::vector<Value> bias = d.bias ? draw(d.d_type, d.n, rng) : std::vector<Value>{};
  std::vector<uint8_t> bytes;
  Buffer ba, bb, bd, bbias;
  encode(d.a.type, a, bytes);
  upload(ba, bytes, offsetA * gemmTypeBytes(d.a.type));
  encode(d.b.type, b, bytes);
  upload(bb, bytes);
  encode(d.d_type, d0, bytes);
  upload(bd, bytes);
  const std::vector<uint8_t> d0Bytes = bytes;
  if (d.bias) {
    encode(d.d_type, bias, bytes);
    upload(bbias, bytes);
  }
  if (::testing::Test::HasFatalFailure()) return INFINITY;

  GemmBuffers buffers{ba.address + offsetA * gemmTypeBytes(d.a.type), bb.address,
                      bd.address, bbias.address};
  Status ran = gpu().runner->run(d, buffers);
  EXPECT_TRUE(ran.isOk()) << ran.toString();
  if (!ran.isOk()) return INFINITY;
  std::vector<uint8_t> result(d0Bytes.size());
  StatusOr<EventPtr> copied =
      gpu().device->copyToHost(result.data(), bd.address, bd.bytes);
  EXPECT_TRUE(copied.isOk()) << copied.status().toString();
  if (!copied.isOk()) return INFINITY;
  Status done = (*copied)->await();
  EXPECT_TRUE(done.isOk()) << done.toString();
  std::vector<Value> got = decode(d.d_type, result);

  double errSq = 0, refSq = 0;
  int64_t padChanged = 0;
  for (int64_t bi = 0; bi < d.batch; ++bi)
    for (int64_t i = 0; i < d.m; ++i) {
      for (int64_t j = 0; j < d.n; ++j) {
        const Value r = reference(d, a, b, d0, bias, bi, i, j);
        errSq += std::norm(got[offsetD(d, bi, i, j)] - r);
        refSq += std::norm(r);
      }
      for (int64_t j = d.n; j < d.d_ld && offsetD(d, bi, i, j) < int64_t(got.size()); ++j)
        padChanged += got[offsetD(d, bi, i, j)] != d0[offsetD(d, bi, i, j)];
    }
  EXPECT_EQ(padChanged, 0) << "the product wrote between rows of D";
  if (refSq == 0) return std::sqrt(errSq);
  return std::sqrt(errSq / refSq);
}

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all = {
      {1, 1, 1, 1},
      {1, 17, 33, 9},
      {3, 31, 17, 65, true, false},
      {1, 1, 129, 7, false, true},
      {4, 64, 1, 19, true, true},
      {2, 100, 75, 300, false, false, 3},
      {3, 20, 12, 24, false, true, 0, true},
  };
  return all;
}

void sweep(GemmType in, GemmType out, GemmCompute compute, double tolerance) {
  for (const Shape& s : shapes()) {
    GemmDesc d = describe(in, out, compute, s);
    SCOPED_TRACE(gemmText(d));
    const double err = runAndCompare(d);
    if (in == GemmType::kS8)
      EXPECT_EQ(err, 0);
    else
      EXPECT_LT(err, tolerance);
  }
}

TEST(GpuGemm, F32Exact) {
  SKIP_WITHOUT_GPU();
  sweep(GemmType::kF32, GemmType::kF32, GemmCompute::kF32, 1e-5);
}

TEST(GpuGemm, F32Tf32) {
  SKIP_WITHOUT_GPU();
  sweep(GemmType::kF32, GemmType::kF32, GemmCompute::kTf32, 1e-3);
}

TEST(GpuGemm, Bf16) {
  SKIP_WITHOUT_GPU();
  sweep(GemmType::kBF16, GemmType::kBF16, GemmCompute::kF32, 1e-2);
  sweep(GemmType::kBF16, GemmType::kF32, GemmCompute::kF32, 1e-2);
}

TEST(GpuGemm, F16) {
  SKIP_WITHOUT_GPU();
  sweep(GemmType::kF16, GemmType::kF16, GemmCompute::kF32, 1e-2);
  sweep(GemmType::kF16, GemmType::kF32, GemmCompute::kF32, 1e-2);
}

TEST(GpuGemm, F64) {
  SKIP_WITHOUT_GPU();
  sweep(GemmType::kF64, GemmType::kF64, GemmCompute::kF64, 1e-12);
}

TEST(GpuGemm, Complex) {
  SKIP_WITHOUT_GPU();
  sweep(GemmType::kC64, GemmType::kC64, GemmCompute::kF32, 1e-5);
  sweep(GemmType::kC128, GemmType::kC128, GemmCompute::kF64, 1e-12);
}

// The library takes int8 as A x B^T (B stored n x k); sizes are multiples of
// 4 as its integer kernels require.
TEST(GpuGemm, Int8ToInt32IsExact) {
  SKIP_WITHOUT_GPU();
  for (const Shape& s : std::vector<Shape>{{1, 32, 48, 64, false, true},
                                           {2, 16, 8, 36, false, true},
                                           {3, 20, 12, 8, false, true}}) {
    GemmDesc d = describe(GemmType::kS8, GemmType::kS32, GemmCompute::kS32, s);
    SCOPED_TRACE(gemmText(d));
    EXPECT_EQ(runAndCompare(d), 0);
    d.alpha = 2;
    d.beta = -1;
    EXPECT_EQ(runAndCompare(d), 0);
  }
}

TEST(GpuGemm, BiasReluGeluEpilogues) {
  SKIP_WITHOUT_GPU();
  struct Case {
    GemmType in, out;
    GemmCompute compute;
    bool bias;
    GemmEpilogue epilogue;
    double tolerance;
  };
  // The library's GELU evaluates tanh approximately: f32 to 1e-3.
  const Case cases[] = {
      {GemmType::kF32, GemmType::kF32, GemmCompute::kF32, true, GemmEpilogue::kNone,
       1e-5},
      {GemmType::kF32, GemmType::kF32, GemmCompute::kF32, true, GemmEpilogue::kRelu,
       1e-5},
      {GemmType::kF32, GemmType::kF32, GemmCompute::kF32, false, GemmEpilogue::kRelu,
       1e-5},
      {GemmType::kF32, GemmType::kF32, GemmCompute::kTf32, true, GemmEpilogue::kGelu,
       1e-3},
      {GemmType::kF32, GemmType::kF32, GemmCompute::kF32, false, GemmEpilogue::kGelu,
       1e-3},
      {GemmType::kBF16, GemmType::kBF16, GemmCompute::kF32, true, GemmEpilogue::kGelu,
       1e-2},
      {GemmType::kBF16, GemmType::kF32, GemmCompute::kF32, true, GemmEpilogue::kRelu,
       1e-2},
      {GemmType::kF16, GemmType::kF16, GemmCompute::kF32, false, GemmEpilogue::kRelu,
       1e-2},
  };
  for (const Case& c : cases) {
    for (const Shape& s : {Shape{1, 37, 29, 50}, Shape{2, 16, 40, 24, true, true, 2}}) {
      GemmDesc d = describe(c.in, c.out, c.compute, s);
      d.bias = c.bias;
      d.epilogue = c.epilogue;
      SCOPED_TRACE(gemmText(d));
      EXPECT_LT(runAndCompare(d), c.tolerance);
    }
  }
}

TEST(GpuGemm, AlphaAndBetaReadDInPlace) {
  SKIP_WITHOUT_GPU();
  GemmDesc d = describe(GemmType::kF32, GemmType::kF32, GemmCompute::kF32,
                        Shape{2, 20, 30, 40, false, true, 1});
  d.alpha = 0.5;
  d.beta = 1;
  EXPECT_LT(runAndCompare(d), 1e-5);
  d.beta = -2;
  d.bias = true;
  EXPECT_LT(runAndCompare(d), 1e-5);
}

TEST(GpuGemm, LessAlignedOperandGetsItsOwnPlan) {
  SKIP_WITHOUT_GPU();
  GemmDesc d =
      describe(GemmType::kF32, GemmType::kF32, GemmCompute::kF32, Shape{1, 33, 21, 17});
  EXPECT_LT(runAndCompare(d), 1e-5);
  const size_t plans = gpu().runner->planCount();
  EXPECT_LT(runAndCompare(d), 1e-5);  // same description: cached
  EXPECT_EQ(gpu().runner->planCount(), plans);
  EXPECT_LT(runAndCompare(d, 1), 1e-5);  // A 4-byte aligned only
  EXPECT_EQ(gpu().runner->planCount(), plans + 1);
}

TEST(GpuGemm, BadDescriptionsFailBeforeTheLibrary) {
  SKIP_WITHOUT_GPU();
  GemmDesc d =
      describe(GemmType::kF32, GemmType::kF32, GemmCompute::kF32, Shape{1, 4, 4, 4});
  d.d_ld = 2;
  EXPECT_EQ(gpu().runner->run(d, {256, 512, 768, 0}).code(),
            StatusCode::kInvalidArgument);
  d.d_ld = 4;
  EXPECT_EQ(gpu().runner->run(d, {256, 0, 768, 0}).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef SKIP_WITHOUT_GPU
