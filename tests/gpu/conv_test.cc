// Convolutions on the GPU through CudaDevice::library (cuDNN's graph API)
// against a host reference in double computed from runtime/conv.h's
// definition: every forward term y[n,k,o] += x[n, g*Cg + c, o*stride +
// r*dilation - pre] * w[k, c, r] (r reversed under flip) with the input
// index inside x; the backward-data result is the same sum into x (dy times
// w), the backward-filter result into w (x times dy): the adjoints, by
// definition. Forward NCHW/KCRS and NHWC/KRSC, strides, asymmetric padding,
// dilation, groups, 3-D, flip, the three kinds in f32 (TF32 off, tight
// tolerance; on, loose), f64, bf16 and f16 (data k/8, exact in both, rounded
// once at the end); a repeated description reuses its plan; prepare() builds
// the plan execution reuses. Skips, saying why, without a GPU, the CUDA
// driver or cuDNN (set JFT_CUDNN_LIBRARY to the wheel's libcudnn.so.9).
#include "runtime/conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "first_gpu.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cudnn.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

FirstGpu& gpu() {
  static FirstGpu* g = openFirstGpu([] { return Cudnn::load().status(); });
  return *g;
}

#define SKIP_WITHOUT_GPU() \
  if (!gpu().device) GTEST_SKIP() << gpu().skip

// --- element encodings (values k/8 with |k| <= 64 are exact in all) ----------

uint16_t toBf16(float v) {  // round to nearest even
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}
float fromBf16(uint16_t h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}
// IEEE half for normal values and zero (the test's data and results).
uint16_t toHalf(float v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  int exponent = 0;
  const double m = std::frexp(std::fabs(static_cast<double>(v)), &exponent);  // [0.5, 1)
  const long mantissa = std::lround((m * 2 - 1) * 1024);  // 10 bits, nearest
  int e = exponent - 1 + 15;
  long bits = mantissa;
  if (bits == 1024) {
    bits = 0;
    ++e;
  }
  return static_cast<uint16_t>(sign | (e << 10) | bits);
}
float fromHalf(uint16_t h) {
  const int e = (h >> 10) & 0x1f;
  const int m = h & 0x3ff;
  const double magnitude = e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return static_cast<float>((h & 0x8000) ? -magnitude : magnitude);
}

std::vector<uint8_t> encode(const std::vector<double>& values, ConvElement e) {
  std::vector<uint8_t> bytes(values.size() * static_cast<size_t>(convElementBytes(e)));
  for (size_t i = 0; i < values.size(); ++i) {
    const float f = static_cast<float>(values[i]);
    switch (e) {
      case ConvElement::kF64:
        std::memcpy(&bytes[i * 8], &values[i], 8);
        break;
      case ConvElement::kF32:
        std::memcpy(&bytes[i * 4], &f, 4);
        break;
      case ConvElement::kBF16: {
        const uint16_t h = toBf16(f);
        std::memcpy(&bytes[i * 2], &h, 2);
        break;
      }
      case ConvElement::kF16: {
        const uint16_t h = toHalf(f);
        std::memcpy(&bytes[i * 2], &h, 2);
        break;
      }
    }
  }
  return bytes;
}

std::vector<double> decode(const std::vector<uint8_t>& bytes, ConvElement e) {
  const size_t size = static_cast<size_t>(convElementBytes(e));
  std::vector<double> values(bytes.size() / size);
  for (size_t i = 0; i < values.size(); ++i) {
    float f = 0;
    uint16_t h = 0;
    switch (e) {
      case ConvElement::kF64:
        std::memcpy(&values[i], &bytes[i * 8], 8);
        continue;
      case ConvElement::kF32:
        std::memcpy(&f, &bytes[i * 4], 4);
        break;
      case ConvElement::kBF16:
        std::memcpy(&h, &bytes[i * 2], 2);
        f = fromBf16(h);
        break;
      case ConvElement::kF16:
        std::memcpy(&h, &bytes[i * 2], 2);
        f = fromHalf(h);
        break;
    }
    values[i] = f;
  }
  return values;
}

TEST(HalfEncoding, RoundTripsTheTestValues) {
  for (int k = -64; k <= 64; ++k) {
    const float v = static_cast<float>(k) / 8;
    EXPECT_EQ(fromHalf(toHalf(v)), v) << v;
    EXPECT_EQ(fromBf16(toBf16(v)), v) << v;
  }
  EXPECT_EQ(fromHalf(toHalf(300.0f)), 300.0f);
}

// --- building descriptions ------------------------------------------------------

// The tensor of `dims` (library order) laid out with `order` outermost first
// (e.g. {0, 2, 3, 1} for NHWC), packed.
ConvTensor packed(const std::vector<int64_t>& dims, const std::vector<int>& order) {
  ConvTensor t{dims, std::vector<int64_t>(dims.size())};
  int64_t stride = 1;
  for (size_t i = order.size(); i-- > 0;) {
    t.strides[static_cast<size_t>(order[i])] = stride;
    stride *= dims[static_cast<size_t>(order[i])];
  }
  return t;
}

struct Spec {
  ConvKind kind = ConvKind::kForward;
  ConvElement element = ConvElement::kF32;
  bool tf32 = false, flip = false, channels_last = false;
  std::vector<int64_t> x, w;  // x [N, C, spatial...], w [K, C/G, window...]
  std::vector<int64_t> strides, pre, post, dilations;
};

ConvDesc descOf(const Spec& s) {
  ConvDesc d;
  d.kind = s.kind;
  d.element = s.element;
  d.allow_tf32 = s.tf32;
  d.flip = s.flip;
  d.strides = s.strides;
  d.pre_padding = s.pre;
  d.post_padding = s.post;
  d.dilations = s.dilations;
  const size_t rank = s.x.size();
  std::vector<int> order(rank);
  for (size_t i = 0; i < rank; ++i) order[i] = static_cast<int>(i);
  if (s.channels_last) {  // N, spatial..., C
    order.erase(order.begin() + 1);
    order.push_back(1);
  }
  d.x = packed(s.x, order);
  d.w = packed(s.w, order);
  std::vector<int64_t> y = {s.x[0], s.w[0]};
  for (size_t i = 0; i + 2 < rank; ++i) y.push_back(convOutputExtent(d, i));
  d.y = packed(y, order);
  return d;
}

// Calls fn(x offset, w offset, y offset) for every term of the forward sum.
void forEachTerm(const ConvDesc& d,
                 const std::function<void(int64_t, int64_t, int64_t)>& fn) {
  const size_t spatial = d.strides.size();
  const int64_t groups = convGroups(d), cg = d.w.dims[1], kg = d.w.dims[0] / groups;
  std::vector<int64_t> o(spatial), r(spatial);
  int64_t n = 0, k = 0, c = 0;
  // Levels 0..spatial-1 walk output positions, then window positions.
  std::function<void(size_t)> walk = [&](size_t level) {
    if (level < spatial) {
      for (o[level] = 0; o[level] < d.y.dims[level + 2]; ++o[level]) walk(level + 1);
      return;
    }
    if (level < 2 * spatial) {
      const size_t i = level - spatial;
      for (r[i] = 0; r[i] < d.w.dims[i + 2]; ++r[i]) walk(level + 1);
      return;
    }
    int64_t x_off = n * d.x.strides[0] + ((k / kg) * cg + c) * d.x.strides[1];
    int64_t w_off = k * d.w.strides[0] + c * d.w.strides[1];
    int64_t y_off = n * d.y.strides[0] + k * d.y.strides[1];
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t p = o[i] * d.strides[i] + r[i] * d.dilations[i] - d.pre_padding[i];
      if (p < 0 || p >= d.x.dims[i + 2]) return;  // padding: no term
      x_off += p * d.x.strides[i + 2];
      const int64_t ri = d.flip ? d.w.dims[i + 2] - 1 - r[i] : r[i];
      w_off += ri * d.w.strides[i + 2];
      y_off += o[i] * d.y.strides[i + 2];
    }
    fn(x_off, w_off, y_off);
  };
  for (n = 0; n < d.x.dims[0]; ++n)
    for (k = 0; k < d.w.dims[0]; ++k)
      for (c = 0; c < cg; ++c) walk(0);
}

int64_t elements(const ConvDesc& d, const ConvTensor& t) {
  return static_cast<int64_t>(convTensorBytes(d, t)) / convElementBytes(d.element);
}

struct Buffer {
  uint64_t address = 0;
  uint64_t bytes = 0;
  ~Buffer() {
    if (address != 0) gpu().device->deallocate(address, bytes);
  }
};

// The result of `d` on buffers a (lhs) and b (rhs): each kind's sum over
// the forward's terms.
std::vector<double> reference(const ConvDesc& d, std::vector<double>& a,
                              std::vector<double>& b) {
  std::vector<double> want(static_cast<size_t>(elements(d, convBufferTensor(d, 2))), 0.0);
  auto at = [](std::vector<double>& v, int64_t i) -> double& {
    return v[static_cast<size_t>(i)];
  };
  forEachTerm(d, [&](int64_t xo, int64_t wo, int64_t yo) {
    switch (d.kind) {
      case ConvKind::kForward:  // a = x, b = w
        at(want, yo) += at(a, xo) * at(b, wo);
        break;
      case ConvKind::kBackwardData:  // a = dy, b = w
        at(want, xo) += at(a, yo) * at(b, wo);
        break;
      case ConvKind::kBackwardFilter:  // a = x, b = dy
        at(want, wo) += at(a, xo) * at(b, yo);
        break;
    }
  });
  return want;
}

// The reference itself on a case worked by hand (no GPU needed): x = 1..9
// as 3x3, a 2x2 window, stride 1, no padding.
TEST(HostReference, HandWorkedCase) {
  Spec s;
  s.x = {1, 1, 3, 3};
  s.w = {1, 1, 2, 2};
  s.strides = {1, 1};
  s.pre = {0, 0};
  s.post = {0, 0};
  s.dilations = {1, 1};
  ConvDesc d = descOf(s);
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, ones = {1, 1, 1, 1};
  // y = window sums: 1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9.
  EXPECT_EQ(reference(d, x, ones), (std::vector<double>{12, 16, 24, 28}));
  std::vector<double> w = {1, 2, 3, 4};
  d.flip =
      true;  // the window read reversed, as 4 3 / 2 1: 1*4 + 2*3 + 4*2 + 5*1 = 23, ...
  EXPECT_EQ(reference(d, x, w), (std::vector<double>{23, 33, 53, 63}));
  d.flip = false;
  // Backward data of dy = ones: how many windows cover each x.
  d.kind = ConvKind::kBackwardData;
  EXPECT_EQ(reference(d, ones, ones), (std::vector<double>{1, 2, 1, 2, 4, 2, 1, 2, 1}));
  // Backward filter of x, dy = ones: the same window sums, per filter tap.
  d.kind = ConvKind::kBackwardFilter;
  EXPECT_EQ(reference(d, x, ones), (std::vector<double>{12, 16, 24, 28}));
}

// Whether a case must run, or may be one cuDNN has no engine for (odd
// channel counts in NHWC, convolution mode): such a refusal (UNIMPLEMENTED,
// which the compiler turns into the patches + GEMM route) is printed, not
// failed; any result it does compute must still be right.
enum class Need { kMust, kMayRefuse };

// Runs `s` on the GPU and compares the result with the host reference by
// relative error norm. Inputs are k/8 for k in [-8, 8].
void check(const Spec& s, double tolerance, Need need = Need::kMust) {
  const ConvDesc d = descOf(s);
  ASSERT_TRUE(validateConv(d).isOk()) << validateConv(d).toString();
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(-8, 8);
  auto fill = [&](const ConvTensor& t) {
    std::vector<double> v(static_cast<size_t>(elements(d, t)));
    for (double& e : v) e = pick(rng) / 8.0;
    return v;
  };
  const ConvTensor* in0 = &convBufferTensor(d, 0);
  const ConvTensor* in1 = &convBufferTensor(d, 1);
  const ConvTensor* out = &convBufferTensor(d, 2);
  std::vector<double> a = fill(*in0), b = fill(*in1);
  const std::vector<double> want = reference(d, a, b);

  Buffer bufs[3];
  const std::vector<uint8_t> bytes[2] = {encode(a, d.element), encode(b, d.element)};
  for (int i = 0; i < 3; ++i) {
    bufs[i].bytes = i < 2 ? bytes[i].size() : convTensorBytes(d, *out);
    // A poisoned result buffer: every element must be written.
    StatusOr<uint64_t> address = gpu().device->allocate(bufs[i].bytes);
    ASSERT_TRUE(address.isOk()) << address.status().toString();
    bufs[i].address = *address;
    std::vector<uint8_t> init =
        i < 2 ? bytes[i] : std::vector<uint8_t>(bufs[i].bytes, 0x7f);
    StatusOr<EventPtr> copied =
        gpu().device->copyToDevice(bufs[i].address, init.data(), init.size(), true);
    ASSERT_TRUE(copied.isOk()) << copied.status().toString();
    ASSERT_TRUE((*copied)->await().isOk());
  }
  Status ran = gpu().device->library(LibraryOp{d},
                                     {bufs[0].address, bufs[1].address, bufs[2].address});
  if (need == Need::kMayRefuse && ran.code() == StatusCode::kUnimplemented) {
    std::printf("  refused (allowed): %s\n", ran.message().c_str());
    return;
  }
  ASSERT_TRUE(ran.isOk()) << ran.toString();
  std::vector<uint8_t> got_bytes(bufs[2].bytes);
  StatusOr<EventPtr> back =
      gpu().device->copyToHost(got_bytes.data(), bufs[2].address, bufs[2].bytes);
  ASSERT_TRUE(back.isOk()) << back.status().toString();
  Status done = (*back)->await();
  ASSERT_TRUE(done.isOk()) << done.toString();
  const std::vector<double> got = decode(got_bytes, d.element);
  ASSERT_EQ(got.size(), want.size());
  double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    norm += want[i] * want[i];
  }
  const double error = std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
  EXPECT_LE(error, tolerance) << convText(d);
  std::printf("  %s: relative error %.2e\n", convText(d).c_str(), error);
}

Spec base() {
  Spec s;
  s.x = {2, 3, 9, 9};
  s.w = {4, 3, 3, 3};
  s.strides = {1, 1};
  s.pre = {1, 1};
  s.post = {1, 1};
  s.dilations = {1, 1};
  return s;
}

// f32 without TF32: FFT and Winograd engines are allowed, hence not 1e-7.
constexpr double kF32 = 1e-5;

TEST(CudnnConv, ForwardNchw) {
  SKIP_WITHOUT_GPU();
  check(base(), kF32);
}

TEST(CudnnConv, ForwardStridedPaddedDilated) {
  SKIP_WITHOUT_GPU();
  Spec s = base();
  s.x = {3, 6, 17, 15};
  s.w = {10, 6, 3, 2};
  s.strides = {2, 3};
  s.pre = {0, 1};
  s.post = {2, 0};
  s.dilations = {1, 2};
  check(s, kF32);
  s.channels_last = true;
  check(s, kF32, Need::kMayRefuse);
}

TEST(CudnnConv, ForwardGroupedAndDepthwise) {
  SKIP_WITHOUT_GPU();
  Spec s = base();
  s.x = {2, 6, 8, 8};
  s.w = {9, 2, 3, 3};  // 3 groups
  check(s, kF32);
  s.channels_last = true;
  check(s, kF32, Need::kMayRefuse);
  s.x = {2, 8, 10, 10};
  s.w = {8, 1, 3, 3};  // depthwise
  s.channels_last = false;
  check(s, kF32);
  s.channels_last = true;
  check(s, kF32, Need::kMayRefuse);
}

TEST(CudnnConv, ForwardFlipAnd3d) {
  SKIP_WITHOUT_GPU();
  Spec s = base();
  s.flip = true;
  check(s, kF32, Need::kMayRefuse);
  Spec v;
  v.x = {1, 3, 5, 6, 7};
  v.w = {4, 3, 2, 3, 2};
  v.strides = {1, 2, 1};
  v.pre = {0, 1, 0};
  v.post = {0, 1, 0};
  v.dilations = {1, 1, 2};
  check(v, kF32);
}

TEST(CudnnConv, BackwardDataAndFilter) {
  SKIP_WITHOUT_GPU();
  for (bool channels_last : {false, true}) {
    const Need need = channels_last ? Need::kMayRefuse : Need::kMust;
    Spec s = base();
    s.channels_last = channels_last;
    s.x = {2, 3, 7, 7};
    s.w = {4, 3, 3, 3};
    s.strides = {2, 2};  // the gradients of a strided forward
    s.kind = ConvKind::kBackwardData;
    check(s, kF32, need);
    s.kind = ConvKind::kBackwardFilter;
    check(s, kF32, need);
    s.x = {1, 4, 5, 5};
    s.w = {4, 2, 3, 3};  // a grouped weight gradient
    s.strides = {1, 1};
    check(s, kF32, need);
  }
}

TEST(CudnnConv, ElementTypes) {
  SKIP_WITHOUT_GPU();
  Spec s = base();
  s.x = {2, 16, 9, 9};
  s.w = {32, 16, 3, 3};
  s.element = ConvElement::kF64;  // NCHW: where double convolutions run
  check(s, 1e-12);
  s.channels_last = true;  // 16 and 32 channels: tensor-core friendly
  s.element = ConvElement::kBF16;
  check(s, 1e-2);
  s.element = ConvElement::kF16;
  check(s, 2e-3);
  s.element = ConvElement::kF32;
  s.tf32 = true;  // TF32 allowed: k/8 data is exact in TF32 anyway
  check(s, 1e-3);
  s.kind = ConvKind::kBackwardData;
  s.element = ConvElement::kBF16;
  s.tf32 = false;
  check(s, 1e-2);
  s.kind = ConvKind::kBackwardFilter;
  check(s, 1e-2);
}

TEST(CudnnConv, PlansAreBuiltOncePerDescription) {
  SKIP_WITHOUT_GPU();
  StatusOr<std::unique_ptr<ConvRunner>> runner = ConvRunner::create(*gpu().device);
  ASSERT_TRUE(runner.isOk()) << runner.status().toString();
  Spec s = base();
  s.x = {1, 3, 12, 12};
  const ConvDesc d = descOf(s);
  ASSERT_TRUE((*runner)->prepare(d).isOk());
  ASSERT_TRUE((*runner)->prepare(d).isOk());
  EXPECT_EQ((*runner)->planCount(), 1u);
  s.strides = {2, 2};
  ASSERT_TRUE((*runner)->prepare(descOf(s)).isOk());
  EXPECT_EQ((*runner)->planCount(), 2u);
}

TEST(CudnnConv, BadDescriptionsAreClearErrors) {
  SKIP_WITHOUT_GPU();
  ConvDesc d = descOf(base());
  d.y.dims[2] = 99;
  Status bad = gpu().device->library(LibraryOp{d}, {256, 512, 768});
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("cudnn conv fwd"), std::string::npos) << bad.message();
  Status few = gpu().device->library(LibraryOp{descOf(base())}, {256, 512});
  EXPECT_EQ(few.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(few.message().find("takes 3 buffers"), std::string::npos) << few.message();
}

}  // namespace
}  // namespace jft::runtime::gpu

#undef SKIP_WITHOUT_GPU
