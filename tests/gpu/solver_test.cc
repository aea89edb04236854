// The solver runner on the GPU (CudaDevice::library with SolverDescs), each
// kind on small column-major matrices checked against host math that does
// not use the library: P A = L U rebuilt from getrf's LU and pivots, A = L L^T
// (or U^H U) from potrf's triangle, the residual op(A) X - B of each trsm
// variant, a permutation against hand-applied interchanges, and the info
// values of a singular and an indefinite matrix. Skips, saying why, where
// there is no GPU, no CUDA driver or no cuSOLVER/cuBLAS.
#include "runtime/solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

struct Gpu {
  std::unique_ptr<CudaDevice> device;
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
    return g;
  }();
  return *g;
}

#define SKIP_WITHOUT_GPU() \
  if (!gpu().device) GTEST_SKIP() << gpu().skip

// A library that cannot be loaded skips the test rather than failing it.
#define RUN_OR_SKIP(desc, buffers)                                                \
  do {                                                                            \
    Status ran_ = gpu().device->library(desc, buffers);                           \
    if (ran_.code() == StatusCode::kUnavailable) GTEST_SKIP() << ran_.toString(); \
    ASSERT_TRUE(ran_.isOk()) << ran_.toString();                                  \
  } while (0)

// A device buffer holding `values`, freed with the test.
struct DeviceBuffer {
  uint64_t address = 0, bytes = 0;
  template <typename T>
  explicit DeviceBuffer(const std::vector<T>& values) : bytes(values.size() * sizeof(T)) {
    address = gpu().device->allocate(std::max<uint64_t>(bytes, 4)).value();
    if (bytes == 0) return;
    Status copied =
        gpu().device->copyToDevice(address, values.data(), bytes, true).value()->await();
    EXPECT_TRUE(copied.isOk()) << copied.toString();
  }
  ~DeviceBuffer() { gpu().device->deallocate(address, std::max<uint64_t>(bytes, 4)); }
  template <typename T>
  std::vector<T> read() const {
    std::vector<T> out(bytes / sizeof(T));
    EXPECT_TRUE(
        gpu().device->copyToHost(out.data(), address, bytes).value()->await().isOk());
    return out;
  }
};

template <typename T>
SolverType typeOf() {
  if constexpr (std::is_same_v<T, float>) return SolverType::kF32;
  if constexpr (std::is_same_v<T, double>) return SolverType::kF64;
  if constexpr (std::is_same_v<T, std::complex<float>>) return SolverType::kC64;
  return SolverType::kC128;
}

template <typename T>
double tolerance() {
  return std::is_same_v<T, float> || std::is_same_v<T, std::complex<float>> ? 1e-4
                                                                            : 1e-10;
}

template <typename T>
std::vector<T> randomValues(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  std::vector<T> v(count);
  for (T& x : v) {
    if constexpr (std::is_arithmetic_v<T>)
      x = static_cast<T>(draw(rng));
    else
      x = T(static_cast<typename T::value_type>(draw(rng)),
            static_cast<typename T::value_type>(draw(rng)));
  }
  return v;
}

template <typename T>
T conjugate(T v) {
  if constexpr (std::is_arithmetic_v<T>)
    return v;
  else
    return std::conj(v);
}

// --- getrf -------------------------------------------------------------------

template <typename T>
void checkGetrf(int64_t batch, int64_t m, int64_t n) {
  SCOPED_TRACE("getrf " + std::to_string(m) + "x" + std::to_string(n));
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * m * n), 11);
  const int64_t k = std::min(m, n);
  DeviceBuffer in(a), lu(std::vector<T>(a.size())),
      pivots(std::vector<int32_t>(static_cast<size_t>(batch * k))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  SolverDesc d;
  d.kind = SolverKind::kGetrf;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = m;
  d.n = n;
  RUN_OR_SKIP(
      d, (std::vector<uint64_t>{in.address, lu.address, pivots.address, info.address}));
  const std::vector<T> f = lu.read<T>();
  const std::vector<int32_t> p = pivots.read<int32_t>(), status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(status[b], 0);
    // P A: A's rows interchanged as the 1-based pivots say, in order.
    std::vector<T> pa(a.begin() + b * m * n, a.begin() + (b + 1) * m * n);
    for (int64_t i = 0; i < k; ++i) {
      const int64_t r = p[b * k + i] - 1;
      ASSERT_GE(r, i);
      ASSERT_LT(r, m);
      for (int64_t j = 0; j < n; ++j) std::swap(pa[i + j * m], pa[r + j * m]);
    }
    const T* item = f.data() + b * m * n;
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t q = 0; q <= std::min(i, j) && q < k; ++q)
          s += (q == i ? T(1) : item[i + q * m]) * item[q + j * m];
        worst = std::max(worst, static_cast<double>(std::abs(s - pa[i + j * m])));
      }
    EXPECT_LT(worst, tolerance<T>()) << "item " << b;
  }
}

TEST(GpuSolver, GetrfRebuildsPA) {
  SKIP_WITHOUT_GPU();
  checkGetrf<float>(3, 5, 5);
  checkGetrf<double>(2, 6, 4);
  checkGetrf<std::complex<float>>(2, 4, 6);
  checkGetrf<std::complex<double>>(1, 7, 7);
}

TEST(GpuSolver, GetrfReportsASingularMatrix) {
  SKIP_WITHOUT_GPU();
  // Column-major 3x3 whose second column is zero: U(1,1) = 0, info = 2.
  const std::vector<float> a = {1, 2, 3, 0, 0, 0, 4, 5, 7};
  DeviceBuffer in(a), lu(std::vector<float>(9)), pivots(std::vector<int32_t>(3)),
      info(std::vector<int32_t>(1, -7));
  SolverDesc d;
  d.kind = SolverKind::kGetrf;
  d.m = d.n = 3;
  RUN_OR_SKIP(
      d, (std::vector<uint64_t>{in.address, lu.address, pivots.address, info.address}));
  EXPECT_EQ(info.read<int32_t>()[0], 2);
}

// --- potrf -------------------------------------------------------------------

// Hermitian positive definite: M M^H + n I.
template <typename T>
std::vector<T> positiveDefinite(int64_t n, unsigned seed) {
  const std::vector<T> m = randomValues<T>(static_cast<size_t>(n * n), seed);
  std::vector<T> a(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T s = i == j ? T(static_cast<float>(n)) : T(0);
      for (int64_t q = 0; q < n; ++q) s += m[i + q * n] * conjugate(m[j + q * n]);
      a[i + j * n] = s;
    }
  return a;
}

template <typename T>
void checkPotrf(bool lower) {
  SCOPED_TRACE(lower ? "potrf lower" : "potrf upper");
  const int64_t n = 6, batch = 3;
  std::vector<T> a;
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<T> item = positiveDefinite<T>(n, 20 + static_cast<unsigned>(b));
    a.insert(a.end(), item.begin(), item.end());
  }
  DeviceBuffer in(a), out(std::vector<T>(a.size())),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  SolverDesc d;
  d.kind = SolverKind::kPotrf;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = d.n = n;
  d.lower = lower;
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, out.address, info.address}));
  const std::vector<T> f = out.read<T>();
  const std::vector<int32_t> status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(status[b], 0);
    const T* item = f.data() + b * n * n;
    // L(i, j) (lower), or L = U^H from the upper triangle.
    auto l = [&](int64_t i, int64_t j) -> T {
      if (i < j) return T(0);
      return lower ? item[i + j * n] : conjugate(item[j + i * n]);
    };
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t q = 0; q < n; ++q) s += l(i, q) * conjugate(l(j, q));
        worst =
            std::max(worst, static_cast<double>(std::abs(s - a[b * n * n + i + j * n])));
        // The triangle potrf does not reference is left as it was.
        if (lower ? i < j : i > j) {
          EXPECT_EQ(item[i + j * n], a[b * n * n + i + j * n]);
        }
      }
    EXPECT_LT(worst, 10 * tolerance<T>()) << "item " << b;
  }
}

TEST(GpuSolver, PotrfRebuildsA) {
  SKIP_WITHOUT_GPU();
  for (bool lower : {true, false}) {
    checkPotrf<float>(lower);
    checkPotrf<double>(lower);
    checkPotrf<std::complex<float>>(lower);
    checkPotrf<std::complex<double>>(lower);
  }
}

TEST(GpuSolver, PotrfReportsAnIndefiniteMatrix) {
  SKIP_WITHOUT_GPU();
  // diag(1, -1): the second leading minor is not positive, info = 2.
  const std::vector<double> a = {1, 0, 0, -1};
  DeviceBuffer in(a), out(std::vector<double>(4)), info(std::vector<int32_t>(1, -7));
  SolverDesc d;
  d.kind = SolverKind::kPotrf;
  d.type = SolverType::kF64;
  d.m = d.n = 2;
  d.lower = true;
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, out.address, info.address}));
  EXPECT_EQ(info.read<int32_t>()[0], 2);
}

// --- trsm --------------------------------------------------------------------

template <typename T>
void checkTrsm(bool left, bool lower, SolverTranspose t, bool unit) {
  const int64_t m = 5, n = 3, batch = 2, k = left ? m : n;
  SolverDesc d;
  d.kind = SolverKind::kTriangularSolve;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = m;
  d.n = n;
  d.left_side = left;
  d.lower = lower;
  d.transpose = t;
  d.unit_diagonal = unit;
  SCOPED_TRACE(solverText(d));
  std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * k * k), 31);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < k; ++i) a[b * k * k + i + i * k] += T(4);  // well conditioned
  const std::vector<T> rhs = randomValues<T>(static_cast<size_t>(batch * m * n), 32);
  DeviceBuffer da(a), db(rhs), dx(std::vector<T>(rhs.size()));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{da.address, db.address, dx.address}));
  const std::vector<T> x = dx.read<T>();
  for (int64_t b = 0; b < batch; ++b) {
    const T* ai = a.data() + b * k * k;
    // op(A)(i, j) from the triangle the description names.
    auto opA = [&](int64_t i, int64_t j) -> T {
      const int64_t r = t == SolverTranspose::kNone ? i : j;
      const int64_t c = t == SolverTranspose::kNone ? j : i;
      T v = r == c && unit ? T(1) : ((lower ? r >= c : r <= c) ? ai[r + c * k] : T(0));
      return t == SolverTranspose::kAdjoint ? conjugate(v) : v;
    };
    const T* xi = x.data() + b * m * n;
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t q = 0; q < k; ++q)
          s += left ? opA(i, q) * xi[q + j * m] : xi[i + q * m] * opA(q, j);
        worst = std::max(worst,
                         static_cast<double>(std::abs(s - rhs[b * m * n + i + j * m])));
      }
    EXPECT_LT(worst, tolerance<T>()) << "item " << b;
  }
}

TEST(GpuSolver, TrsmResiduals) {
  SKIP_WITHOUT_GPU();
  for (bool left : {true, false})
    for (bool lower : {true, false})
      for (SolverTranspose t : {SolverTranspose::kNone, SolverTranspose::kTranspose,
                                SolverTranspose::kAdjoint})
        for (bool unit : {false, true}) {
          checkTrsm<float>(left, lower, t, unit);
          checkTrsm<double>(left, lower, t, unit);
          checkTrsm<std::complex<float>>(left, lower, t, unit);
        }
  checkTrsm<std::complex<double>>(true, true, SolverTranspose::kAdjoint, false);
}

// --- geqrf + orgqr -----------------------------------------------------------

// geqrf then orgqr on its reflectors: Q^T Q = I and Q R = A, R from geqrf's
// upper triangle.
template <typename T>
void checkQr(int64_t batch, int64_t m, int64_t n) {
  SCOPED_TRACE("qr " + std::to_string(m) + "x" + std::to_string(n));
  const int64_t k = std::min(m, n);
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * m * n), 41);
  DeviceBuffer in(a), qr(std::vector<T>(a.size())),
      tau(std::vector<T>(static_cast<size_t>(batch * k))), q(std::vector<T>(a.size()));
  SolverDesc g;
  g.kind = SolverKind::kGeqrf;
  g.type = typeOf<T>();
  g.batch = batch;
  g.m = m;
  g.n = n;
  RUN_OR_SKIP(g, (std::vector<uint64_t>{in.address, qr.address, tau.address}));
  SolverDesc o = g;
  o.kind = SolverKind::kOrgqr;
  o.k = k;
  RUN_OR_SKIP(o, (std::vector<uint64_t>{qr.address, tau.address, q.address}));
  const std::vector<T> r = qr.read<T>(), qs = q.read<T>();
  for (int64_t b = 0; b < batch; ++b) {
    const T* ri = r.data() + b * m * n;
    const T* qi = qs.data() + b * m * n;
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t p = 0; p < m; ++p) s += conjugate(qi[p + i * m]) * qi[p + j * m];
        worst =
            std::max(worst, static_cast<double>(std::abs(s - (i == j ? T(1) : T(0)))));
      }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T s = 0;
        for (int64_t p = 0; p <= j && p < n; ++p) s += qi[i + p * m] * ri[p + j * m];
        worst =
            std::max(worst, static_cast<double>(std::abs(s - a[b * m * n + i + j * m])));
      }
    EXPECT_LT(worst, 10 * tolerance<T>()) << "item " << b;
  }
}

TEST(GpuSolver, QrRebuildsA) {
  SKIP_WITHOUT_GPU();
  checkQr<float>(3, 6, 4);
  checkQr<double>(2, 5, 5);
  checkQr<std::complex<float>>(2, 7, 3);
  checkQr<std::complex<double>>(1, 4, 4);
}

// --- lu_pivots_to_permutation ------------------------------------------------

TEST(GpuSolver, PivotsToPermutationInStreamOrder) {
  SKIP_WITHOUT_GPU();
  // Item 0: swaps (0,2), (1,2), (2,3), (3,0) -> [1,0,3,2]; item 1: (0,0),
  // (1,3), then -1 and 9 out of range -> [0,3,2,1] (checked by hand).
  const std::vector<int32_t> pivots = {2, 2, 3, 0, 0, 3, -1, 9};
  DeviceBuffer in(pivots), out(std::vector<int32_t>(10, -1));
  SolverDesc d;
  d.kind = SolverKind::kLuPivotsToPermutation;
  d.type = SolverType::kS32;
  d.batch = 2;
  d.n = 4;
  d.m = 5;
  // The pivots are overwritten on the stream right before the call: the
  // host function must see the new values, so it runs in stream order.
  DeviceBuffer source(pivots);
  ASSERT_TRUE(gpu().device->fill(in.address, 0, in.bytes).isOk());
  ASSERT_TRUE(gpu().device->copyOnDevice(in.address, source.address, in.bytes).isOk());
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, out.address}));
  EXPECT_EQ(out.read<int32_t>(), (std::vector<int32_t>{1, 0, 3, 2, 4, 0, 3, 2, 1, 4}));
}

}  // namespace
}  // namespace jft::runtime::gpu
