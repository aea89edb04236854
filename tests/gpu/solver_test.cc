// The solver runner on the GPU (CudaDevice::library with SolverDescs), each
// kind on small column-major matrices checked against host math that does
// not use the library: P A = L U rebuilt from getrf's LU and pivots, A = L L^T
// (or U^H U) from potrf's triangle, the residual op(A) X - B of each trsm
// variant, a permutation against hand-applied interchanges, and the info
// values of a singular and an indefinite matrix; syevd's A V = V diag(w) with
// orthonormal V and gesvdj's A = U diag(s) V^H with orthonormal U, V, for
// each path (batched Jacobi, item by item, economic, without vectors);
// gesvd's and gesvdp's likewise (gesvd also on a wide matrix handed over as
// its transpose, the way JAX calls it, and without vectors, when u and vt are
// one untouched element); sytrd's Q^H A Q = T with Q rebuilt from its
// reflectors as LAPACK defines.
// Skips, saying why, where there is no GPU, no CUDA driver or no
// cuSOLVER/cuBLAS.
#include "runtime/solver.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// --- syevd -------------------------------------------------------------------

// One item's n x n Hermitian matrix (column-major) made of the triangle
// `lower` names of `a` (its diagonal real), the other triangle ignored.
template <typename T>
T hermitianAt(const T* a, int64_t n, bool lower, int64_t i, int64_t j) {
  const bool inTriangle = lower ? i >= j : i <= j;
  return inTriangle ? a[i + j * n] : conjugate(a[j + i * n]);
}

// A V = V diag(w) and V^H V = I against double host math, w ascending and
// summing to the trace. The triangle the library must not read holds 1e3;
// the diagonal is made real, as a Hermitian matrix's is.
template <typename T>
void checkSyevd(int64_t batch, int64_t n, bool lower, EigAlgorithm algorithm) {
  SolverDesc d;
  d.kind = SolverKind::kSyevd;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = d.n = n;
  d.lower = lower;
  d.algorithm = algorithm;
  SCOPED_TRACE(solverText(d));
  using Real = decltype(std::real(T()));
  std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * n * n), 51);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        if (lower ? i < j : i > j)
          a[b * n * n + i + j * n] = T(1000);
        else if (i == j)
          a[b * n * n + i + j * n] = T(std::real(a[b * n * n + i + j * n]));
  DeviceBuffer in(a), v(std::vector<T>(a.size())),
      w(std::vector<Real>(static_cast<size_t>(batch * n))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, v.address, w.address, info.address}));
  const std::vector<T> vs = v.read<T>();
  const std::vector<Real> ws = w.read<Real>();
  const std::vector<int32_t> status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(status[b], 0) << "item " << b;
    const T* ai = a.data() + b * n * n;
    const T* vi = vs.data() + b * n * n;
    const Real* wi = ws.data() + b * n;
    double worst = 0, trace = 0, sum = 0;
    for (int64_t q = 0; q < n; ++q) {
      if (q > 0) {
        EXPECT_LE(wi[q - 1], wi[q]) << "item " << b << " eigenvalue " << q;
      }
      trace += std::real(hermitianAt(ai, n, lower, q, q));
      sum += wi[q];
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t q = 0; q < n; ++q) {
        // (A V)(i, q) - V(i, q) w_q
        std::complex<double> s = 0;
        for (int64_t p = 0; p < n; ++p)
          s += std::complex<double>(hermitianAt(ai, n, lower, i, p)) *
               std::complex<double>(vi[p + q * n]);
        s -= std::complex<double>(vi[i + q * n]) * static_cast<double>(wi[q]);
        worst = std::max(worst, std::abs(s));
        // (V^H V)(i, q) - I
        std::complex<double> g = 0;
        for (int64_t p = 0; p < n; ++p)
          g += std::conj(std::complex<double>(vi[p + i * n])) *
               std::complex<double>(vi[p + q * n]);
        worst = std::max(worst, std::abs(g - (i == q ? 1.0 : 0.0)));
      }
    EXPECT_LT(worst, 50 * tolerance<T>()) << "item " << b;
    EXPECT_NEAR(sum, trace, 50 * tolerance<T>() * static_cast<double>(n)) << "item " << b;
  }
}

TEST(GpuSolver, SyevdDiagonalizes) {
  SKIP_WITHOUT_GPU();
  // Batched Jacobi (n <= 32), single Jacobi, divide and conquer, Jacobi item
  // by item above 32, and each type.
  checkSyevd<float>(3, 5, true, EigAlgorithm::kDefault);
  checkSyevd<double>(1, 8, false, EigAlgorithm::kDefault);
  checkSyevd<double>(2, 40, false, EigAlgorithm::kDefault);
  checkSyevd<float>(2, 6, true, EigAlgorithm::kQr);
  checkSyevd<float>(2, 36, true, EigAlgorithm::kJacobi);
  checkSyevd<std::complex<float>>(2, 5, false, EigAlgorithm::kDefault);
  checkSyevd<std::complex<double>>(1, 34, true, EigAlgorithm::kDefault);
}

TEST(GpuSolver, SyevdOfAKnownMatrix) {
  SKIP_WITHOUT_GPU();
  // [[2, 1], [1, 2]]: eigenvalues 1 and 3, eigenvectors (1, -1) and (1, 1)
  // over sqrt(2), up to sign.
  const std::vector<double> a = {2, 1, 1, 2};
  DeviceBuffer in(a), v(std::vector<double>(4)), w(std::vector<double>(2)),
      info(std::vector<int32_t>(1, -7));
  SolverDesc d;
  d.kind = SolverKind::kSyevd;
  d.type = SolverType::kF64;
  d.m = d.n = 2;
  d.lower = true;
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, v.address, w.address, info.address}));
  const std::vector<double> ws = w.read<double>(), vs = v.read<double>();
  EXPECT_EQ(info.read<int32_t>()[0], 0);
  EXPECT_NEAR(ws[0], 1.0, 1e-12);
  EXPECT_NEAR(ws[1], 3.0, 1e-12);
  EXPECT_NEAR(std::abs(vs[0] + vs[1]), 0.0, 1e-12);
  EXPECT_NEAR(std::abs(vs[2] - vs[3]), 0.0, 1e-12);
  EXPECT_NEAR(std::abs(vs[2]), std::sqrt(0.5), 1e-12);
}

// --- gesvdj ------------------------------------------------------------------

// A = U diag(s) V^H with U^H U = I and V^H V = I against double host math,
// s descending and not negative, sum s^2 = ||A||_F^2; without vectors only
// the values.
template <typename T>
void checkGesvdj(int64_t batch, int64_t m, int64_t n, bool full, bool computeUv) {
  SolverDesc d;
  d.kind = SolverKind::kGesvdj;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = m;
  d.n = n;
  d.full_matrices = full;
  d.compute_uv = computeUv;
  SCOPED_TRACE(solverText(d));
  using Real = decltype(std::real(T()));
  const int64_t k = std::min(m, n), uCols = full ? m : k, vCols = full ? n : k;
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * m * n), 61);
  DeviceBuffer in(a), work(std::vector<T>(a.size())),
      s(std::vector<Real>(static_cast<size_t>(batch * k))),
      u(std::vector<T>(static_cast<size_t>(batch * m * uCols))),
      v(std::vector<T>(static_cast<size_t>(batch * n * vCols))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, work.address, s.address, u.address,
                                        v.address, info.address}));
  const std::vector<Real> ss = s.read<Real>();
  const std::vector<T> us = u.read<T>(), vs = v.read<T>();
  const std::vector<int32_t> status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(status[b], 0) << "item " << b;
    const T* ai = a.data() + b * m * n;
    const Real* si = ss.data() + b * k;
    double norm = 0, squares = 0;
    for (int64_t i = 0; i < m * n; ++i) norm += std::norm(std::complex<double>(ai[i]));
    for (int64_t q = 0; q < k; ++q) {
      EXPECT_GE(si[q], 0) << "item " << b;
      if (q > 0) {
        EXPECT_GE(si[q - 1], si[q]) << "item " << b << " value " << q;
      }
      squares += static_cast<double>(si[q]) * static_cast<double>(si[q]);
    }
    EXPECT_NEAR(squares, norm, 50 * tolerance<T>() * norm) << "item " << b;
    if (!computeUv) continue;
    const T* ui = us.data() + b * m * uCols;
    const T* vi = vs.data() + b * n * vCols;
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        std::complex<double> r = 0;
        for (int64_t q = 0; q < k; ++q)
          r += std::complex<double>(ui[i + q * m]) * static_cast<double>(si[q]) *
               std::conj(std::complex<double>(vi[j + q * n]));
        worst = std::max(worst, std::abs(r - std::complex<double>(ai[i + j * m])));
      }
    // Columns of a (rows x cols) column-major factor are orthonormal.
    auto orthonormal = [&](const T* f, int64_t rows, int64_t cols) {
      for (int64_t i = 0; i < cols; ++i)
        for (int64_t j = 0; j < cols; ++j) {
          std::complex<double> g = 0;
          for (int64_t p = 0; p < rows; ++p)
            g += std::conj(std::complex<double>(f[p + i * rows])) *
                 std::complex<double>(f[p + j * rows]);
          worst = std::max(worst, std::abs(g - (i == j ? 1.0 : 0.0)));
        }
    };
    orthonormal(ui, m, uCols);
    orthonormal(vi, n, vCols);
    EXPECT_LT(worst, 50 * tolerance<T>()) << "item " << b;
  }
}

TEST(GpuSolver, GesvdjDecomposes) {
  SKIP_WITHOUT_GPU();
  // Batched Jacobi (both dims <= 32, full), one matrix, economic, full
  // above 32, without vectors, and each type.
  checkGesvdj<float>(3, 6, 4, true, true);
  checkGesvdj<double>(2, 4, 6, true, true);
  checkGesvdj<double>(1, 7, 7, true, true);
  checkGesvdj<float>(1, 40, 36, false, true);
  checkGesvdj<double>(2, 50, 33, true, true);
  checkGesvdj<double>(2, 35, 48, false, true);
  checkGesvdj<float>(2, 5, 7, true, false);
  checkGesvdj<double>(1, 40, 34, false, false);
  checkGesvdj<std::complex<float>>(2, 5, 3, true, true);
  checkGesvdj<std::complex<double>>(1, 34, 40, false, true);
}

TEST(GpuSolver, GesvdjOfAKnownMatrix) {
  SKIP_WITHOUT_GPU();
  // Column-major 3x2 [[3, 0], [0, -2], [0, 0]]: singular values 3 and 2.
  const std::vector<float> a = {3, 0, 0, 0, -2, 0};
  DeviceBuffer in(a), work(std::vector<float>(6)), s(std::vector<float>(2)),
      u(std::vector<float>(9)), v(std::vector<float>(4)),
      info(std::vector<int32_t>(1, -7));
  SolverDesc d;
  d.kind = SolverKind::kGesvdj;
  d.m = 3;
  d.n = 2;
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, work.address, s.address, u.address,
                                        v.address, info.address}));
  const std::vector<float> ss = s.read<float>();
  EXPECT_EQ(info.read<int32_t>()[0], 0);
  EXPECT_NEAR(ss[0], 3.0f, 1e-5f);
  EXPECT_NEAR(ss[1], 2.0f, 1e-5f);
}

// --- gesvd, gesvdp ----------------------------------------------------------

// The checks of one SVD item, against double host math: s descending and not
// negative with sum s^2 = ||A||_F^2, and with factors A = U diag(s) V^H over
// k = min(m, n) with U's uCols and V's vCols columns orthonormal. a(i, j),
// u(i, q) and v(j, q) read the item's A, U and V (not V^H).
template <typename T, typename A, typename U, typename V>
void checkSvdItem(int64_t m, int64_t n, const decltype(std::real(T()))* s, A a,
                  bool factors, U u, int64_t uCols, V v, int64_t vCols) {
  const int64_t k = std::min(m, n);
  double norm = 0, squares = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) norm += std::norm(a(i, j));
  for (int64_t q = 0; q < k; ++q) {
    EXPECT_GE(s[q], 0);
    if (q > 0) {
      EXPECT_GE(s[q - 1], s[q]) << "value " << q;
    }
    squares += static_cast<double>(s[q]) * static_cast<double>(s[q]);
  }
  EXPECT_NEAR(squares, norm, 50 * tolerance<T>() * norm);
  if (!factors) return;
  double worst = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::complex<double> r = 0;
      for (int64_t q = 0; q < k; ++q)
        r += u(i, q) * static_cast<double>(s[q]) * std::conj(v(j, q));
      worst = std::max(worst, std::abs(r - a(i, j)));
    }
  EXPECT_LT(worst, 50 * tolerance<T>()) << "reconstruction";
  worst = 0;
  // Columns of a rows x cols factor f(p, i) are orthonormal.
  auto orthonormal = [&](auto f, int64_t rows, int64_t cols) {
    for (int64_t i = 0; i < cols; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        std::complex<double> g = 0;
        for (int64_t p = 0; p < rows; ++p) g += std::conj(f(p, i)) * f(p, j);
        worst = std::max(worst, std::abs(g - (i == j ? 1.0 : 0.0)));
      }
  };
  orthonormal(u, m, uCols);
  orthonormal(v, n, vCols);
  EXPECT_LT(worst, 50 * tolerance<T>()) << "orthonormality";
}

template <typename T>
std::complex<double> asComplex(T v) {
  return std::complex<double>(v);
}

// gesvd on a column-major m x n A (m >= n): U m x m (full) or m x n, V^H n x
// n; without vectors u and vt are one element each, left as they were.
template <typename T>
void checkGesvd(int64_t batch, int64_t m, int64_t n, bool full, bool computeUv) {
  SolverDesc d;
  d.kind = SolverKind::kGesvd;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = m;
  d.n = n;
  d.full_matrices = full;
  d.compute_uv = computeUv;
  SCOPED_TRACE(solverText(d));
  using Real = decltype(std::real(T()));
  const int64_t uCols = full ? m : n;
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * m * n), 67);
  const size_t uSize = computeUv ? static_cast<size_t>(batch * m * uCols) : 1;
  const size_t vtSize = computeUv ? static_cast<size_t>(batch * n * n) : 1;
  DeviceBuffer in(a), out(std::vector<T>(a.size())),
      s(std::vector<Real>(static_cast<size_t>(batch * n))),
      u(std::vector<T>(uSize, T(5))), vt(std::vector<T>(vtSize, T(5))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, out.address, s.address, u.address,
                                        vt.address, info.address}));
  const std::vector<Real> ss = s.read<Real>();
  const std::vector<T> us = u.read<T>(), vts = vt.read<T>();
  const std::vector<int32_t> status = info.read<int32_t>();
  EXPECT_EQ(in.read<T>(), a);  // the library works on `out`
  if (!computeUv) {
    EXPECT_EQ(us, std::vector<T>(1, T(5)));
    EXPECT_EQ(vts, std::vector<T>(1, T(5)));
  }
  for (int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("item " + std::to_string(b));
    EXPECT_EQ(status[b], 0);
    const T* ai = a.data() + b * m * n;
    const T* ui = us.data() + (computeUv ? b * m * uCols : 0);
    const T* vti = vts.data() + (computeUv ? b * n * n : 0);
    checkSvdItem<T>(
        m, n, ss.data() + b * n,
        [&](int64_t i, int64_t j) { return asComplex(ai[i + j * m]); }, computeUv,
        [&](int64_t i, int64_t q) { return asComplex(ui[i + q * m]); }, uCols,
        [&](int64_t j, int64_t q) { return std::conj(asComplex(vti[q + j * n])); }, n);
  }
}

// The call JAX makes for a wide A (rows < cols) with `transposed`: A's
// row-major memory handed over as it is, as the column-major cols x rows
// A^T. Then the u buffer must hold A's V^H and vt A's U, both row-major:
// A = U diag(s) V^H with U[i][q] = vt[i * rows + q] and V^H[q][j] = u[q *
// cols + j] (solver_plan.cc's derivation, checked here on the device).
template <typename T>
void checkGesvdOfAWideMatrix(int64_t batch, int64_t rows, int64_t cols, bool full) {
  SolverDesc d;
  d.kind = SolverKind::kGesvd;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = cols;
  d.n = rows;
  d.full_matrices = full;
  SCOPED_TRACE("wide " + solverText(d));
  using Real = decltype(std::real(T()));
  const int64_t vhRows = full ? cols : rows;  // A's V^H: vhRows x cols
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * rows * cols), 71);
  DeviceBuffer in(a), out(std::vector<T>(a.size())),
      s(std::vector<Real>(static_cast<size_t>(batch * rows))),
      u(std::vector<T>(static_cast<size_t>(batch * vhRows * cols))),
      vt(std::vector<T>(static_cast<size_t>(batch * rows * rows))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, out.address, s.address, u.address,
                                        vt.address, info.address}));
  const std::vector<Real> ss = s.read<Real>();
  const std::vector<T> vh = u.read<T>(), left = vt.read<T>();
  const std::vector<int32_t> status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("item " + std::to_string(b));
    EXPECT_EQ(status[b], 0);
    const T* ai = a.data() + b * rows * cols;  // row-major rows x cols
    const T* li = left.data() + b * rows * rows;
    const T* vi = vh.data() + b * vhRows * cols;
    checkSvdItem<T>(
        rows, cols, ss.data() + b * rows,
        [&](int64_t i, int64_t j) { return asComplex(ai[i * cols + j]); }, true,
        [&](int64_t i, int64_t q) { return asComplex(li[i * rows + q]); }, rows,
        [&](int64_t j, int64_t q) { return std::conj(asComplex(vi[q * cols + j])); },
        vhRows);
  }
}

TEST(GpuSolver, GesvdDecomposes) {
  SKIP_WITHOUT_GPU();
  // Tall and square, full and economy, batched, without vectors, each type.
  checkGesvd<float>(1, 6, 4, true, true);
  checkGesvd<float>(3, 9, 5, false, true);
  checkGesvd<double>(2, 7, 7, true, true);
  checkGesvd<double>(1, 40, 33, false, true);
  checkGesvd<float>(2, 8, 3, true, false);
  checkGesvd<std::complex<float>>(2, 6, 5, true, true);
  checkGesvd<std::complex<double>>(1, 9, 4, false, true);
  checkGesvd<std::complex<double>>(3, 5, 5, false, false);
}

TEST(GpuSolver, GesvdOfAWideMatrixThroughItsTranspose) {
  SKIP_WITHOUT_GPU();
  checkGesvdOfAWideMatrix<float>(1, 4, 6, true);
  checkGesvdOfAWideMatrix<double>(2, 3, 7, false);
  checkGesvdOfAWideMatrix<std::complex<float>>(2, 4, 5, true);
  checkGesvdOfAWideMatrix<std::complex<double>>(1, 5, 9, false);
}

TEST(GpuSolver, GesvdRejectsAWideDescription) {
  SKIP_WITHOUT_GPU();
  SolverDesc d;
  d.kind = SolverKind::kGesvd;
  d.m = 3;
  d.n = 5;
  Status s = gpu().device->library(d, std::vector<uint64_t>(6, 0));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.toString();
}

// gesvdp: gesvdj's buffers (U m x m | k, V n x n | k, column-major).
template <typename T>
void checkGesvdp(int64_t batch, int64_t m, int64_t n, bool full, bool computeUv) {
  SolverDesc d;
  d.kind = SolverKind::kGesvdp;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = m;
  d.n = n;
  d.full_matrices = full;
  d.compute_uv = computeUv;
  SCOPED_TRACE(solverText(d));
  using Real = decltype(std::real(T()));
  const int64_t k = std::min(m, n), uCols = full ? m : k, vCols = full ? n : k;
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * m * n), 73);
  DeviceBuffer in(a), work(std::vector<T>(a.size())),
      s(std::vector<Real>(static_cast<size_t>(batch * k))),
      u(std::vector<T>(static_cast<size_t>(batch * m * uCols))),
      v(std::vector<T>(static_cast<size_t>(batch * n * vCols))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, work.address, s.address, u.address,
                                        v.address, info.address}));
  const std::vector<Real> ss = s.read<Real>();
  const std::vector<T> us = u.read<T>(), vs = v.read<T>();
  const std::vector<int32_t> status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("item " + std::to_string(b));
    EXPECT_EQ(status[b], 0);
    const T* ai = a.data() + b * m * n;
    const T* ui = us.data() + b * m * uCols;
    const T* vi = vs.data() + b * n * vCols;
    checkSvdItem<T>(
        m, n, ss.data() + b * k,
        [&](int64_t i, int64_t j) { return asComplex(ai[i + j * m]); }, computeUv,
        [&](int64_t i, int64_t q) { return asComplex(ui[i + q * m]); }, uCols,
        [&](int64_t j, int64_t q) { return asComplex(vi[j + q * n]); }, vCols);
  }
}

TEST(GpuSolver, GesvdpDecomposes) {
  SKIP_WITHOUT_GPU();
  // Square full; tall and wide economy (the polar method promises unitary
  // factors only for full-rank columns, so full U of a tall matrix is not
  // asked for); batched; without vectors; each type.
  checkGesvdp<float>(1, 6, 6, true, true);
  checkGesvdp<double>(2, 8, 5, false, true);
  checkGesvdp<double>(1, 4, 9, false, true);
  checkGesvdp<float>(3, 7, 4, false, false);
  checkGesvdp<std::complex<float>>(2, 5, 3, false, true);
  checkGesvdp<std::complex<double>>(1, 6, 6, true, true);
}

TEST(GpuSolver, GesvdAndGesvdpOfAKnownMatrix) {
  SKIP_WITHOUT_GPU();
  // Column-major 3x2 [[3, 0], [0, -2], [0, 0]]: singular values 3 and 2.
  for (SolverKind kind : {SolverKind::kGesvd, SolverKind::kGesvdp}) {
    const std::vector<float> a = {3, 0, 0, 0, -2, 0};
    DeviceBuffer in(a), work(std::vector<float>(6)), s(std::vector<float>(2)),
        u(std::vector<float>(9)), v(std::vector<float>(4)),
        info(std::vector<int32_t>(1, -7));
    SolverDesc d;
    d.kind = kind;
    d.m = 3;
    d.n = 2;
    SCOPED_TRACE(solverText(d));
    RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, work.address, s.address, u.address,
                                          v.address, info.address}));
    const std::vector<float> ss = s.read<float>();
    EXPECT_EQ(info.read<int32_t>()[0], 0);
    EXPECT_NEAR(ss[0], 3.0f, 1e-5f);
    EXPECT_NEAR(ss[1], 2.0f, 1e-5f);
  }
}

// --- sytrd -------------------------------------------------------------------

// Q from sytrd's reflectors as LAPACK defines it (0-based): lower, Q = H(0)
// ... H(n-2) with v[0..i] = 0, v[i+1] = 1, v[i+2..] below the subdiagonal
// of column i; upper, Q = H(n-2) ... H(0) with v[i] = 1, v[i+1..] = 0,
// v[0..i-1] above the superdiagonal in column i+1. H(i) = I - tau_i v v^H.
template <typename T>
std::vector<std::complex<double>> reflectorProduct(const T* out, const T* tau, int64_t n,
                                                   bool lower) {
  using C = std::complex<double>;
  std::vector<C> q(static_cast<size_t>(n * n), C(0));
  for (int64_t i = 0; i < n; ++i) q[i + i * n] = 1;
  auto apply = [&](int64_t i) {  // q = q H(i)
    std::vector<C> v(static_cast<size_t>(n), C(0));
    if (lower) {
      v[i + 1] = 1;
      for (int64_t r = i + 2; r < n; ++r) v[r] = C(out[r + i * n]);
    } else {
      v[i] = 1;
      for (int64_t r = 0; r < i; ++r) v[r] = C(out[r + (i + 1) * n]);
    }
    const C t = C(tau[i]);
    for (int64_t r = 0; r < n; ++r) {
      C qv = 0;
      for (int64_t p = 0; p < n; ++p) qv += q[r + p * n] * v[p];
      for (int64_t c = 0; c < n; ++c) q[r + c * n] -= t * qv * std::conj(v[c]);
    }
  };
  if (lower)
    for (int64_t i = 0; i < n - 1; ++i) apply(i);
  else
    for (int64_t i = n - 2; i >= 0; --i) apply(i);
  return q;
}

// Q^H A Q = T (tridiagonal of d and e) with Q unitary, against double host
// math; T also sits on the diagonal and the off-diagonal of the returned
// matrix, in the triangle that was reduced.
template <typename T>
void checkSytrd(int64_t batch, int64_t n, bool lower) {
  SolverDesc d;
  d.kind = SolverKind::kSytrd;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = d.n = n;
  d.lower = lower;
  SCOPED_TRACE(solverText(d));
  using Real = decltype(std::real(T()));
  using C = std::complex<double>;
  std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * n * n), 71);
  for (int64_t b = 0; b < batch; ++b)  // Hermitian
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j <= i; ++j) {
        T& low = a[b * n * n + i + j * n];
        if (i == j) low = T(std::real(low));
        a[b * n * n + j + i * n] = conjugate(low);
      }
  DeviceBuffer in(a), out(std::vector<T>(a.size())),
      diag(std::vector<Real>(static_cast<size_t>(batch * n))),
      off(std::vector<Real>(static_cast<size_t>(batch * (n - 1)))),
      tau(std::vector<T>(static_cast<size_t>(batch * (n - 1)))),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  RUN_OR_SKIP(d, (std::vector<uint64_t>{in.address, out.address, diag.address,
                                        off.address, tau.address, info.address}));
  const std::vector<T> outs = out.read<T>(), taus = tau.read<T>();
  const std::vector<Real> ds = diag.read<Real>(), es = off.read<Real>();
  const std::vector<int32_t> status = info.read<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(status[b], 0) << "item " << b;
    const T* ai = a.data() + b * n * n;
    const T* oi = outs.data() + b * n * n;
    const Real* di = ds.data() + b * n;
    const Real* ei = es.data() + b * (n - 1);
    const std::vector<C> q = reflectorProduct(oi, taus.data() + b * (n - 1), n, lower);
    auto tri = [&](int64_t i, int64_t j) -> double {
      if (i == j) return di[i];
      if (i == j + 1) return ei[j];
      if (j == i + 1) return ei[i];
      return 0.0;
    };
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        // (Q^H A Q)(i, j) and (Q^H Q)(i, j)
        C s = 0, g = 0;
        for (int64_t p = 0; p < n; ++p) {
          C aq = 0;
          for (int64_t r = 0; r < n; ++r) aq += C(ai[p + r * n]) * q[r + j * n];
          s += std::conj(q[p + i * n]) * aq;
          g += std::conj(q[p + i * n]) * q[p + j * n];
        }
        worst = std::max(worst, std::abs(s - tri(i, j)));
        worst = std::max(worst, std::abs(g - (i == j ? 1.0 : 0.0)));
      }
    EXPECT_LT(worst, 50 * tolerance<T>()) << "item " << b;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_NEAR(std::real(oi[i + i * n]), di[i], 1e-6) << "item " << b;
      if (i + 1 < n) {
        const T e = lower ? oi[i + 1 + i * n] : oi[i + (i + 1) * n];
        EXPECT_NEAR(std::real(e), ei[i], 1e-6) << "item " << b;
      }
    }
  }
}

TEST(GpuSolver, SytrdTridiagonalizes) {
  SKIP_WITHOUT_GPU();
  for (bool lower : {true, false}) {
    checkSytrd<float>(2, 6, lower);
    checkSytrd<double>(1, 40, lower);
    checkSytrd<std::complex<float>>(2, 5, lower);
    checkSytrd<std::complex<double>>(1, 7, lower);
  }
  checkSytrd<double>(3, 1, true);  // no reflector at all
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
