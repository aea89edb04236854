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
// reflectors as LAPACK defines; geev's A v = w v with unit, largest-
// component-real eigenvectors (a real matrix's unpacked from LAPACK's
// packed form), its eigenvalues against the traces of A and A^2 and known
// matrices; ormqr's op(Q) C and C op(Q) against Q built on the host from
// geqrf's reflectors; cholesky_update's R'^T R' = R^T R + w w^T.
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

#include "first_gpu.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

FirstGpu& gpu() {
  // The solver libraries load on first use (RUN_OR_SKIP).
  static FirstGpu* g = openFirstGpu([] { return Status::ok(); });
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

// --- geev --------------------------------------------------------------------

// geev is in cuSOLVER 11.7.1 (CUDA 12.6 update 2) and newer only: "" when
// the runner has it, else why not (a 1 x 1 call, made once).
const std::string& geevMissing() {
  static const std::string* why = [] {
    SolverDesc probe;
    probe.kind = SolverKind::kGeev;
    probe.m = probe.n = 1;
    DeviceBuffer a(std::vector<float>{2.0f}), out(std::vector<float>(1)),
        w(std::vector<std::complex<float>>(1)), vl(std::vector<float>(1)),
        vr(std::vector<float>(1)), info(std::vector<int32_t>(1, -7));
    Status ran = gpu().device->library(
        probe, std::vector<uint64_t>{a.address, out.address, w.address, vl.address,
                                     vr.address, info.address});
    const bool missing = ran.code() == StatusCode::kUnavailable ||
                         (ran.code() == StatusCode::kUnimplemented &&
                          ran.message().find("cusolverDnXgeev") != std::string::npos);
    return new std::string(missing ? ran.toString() : "");
  }();
  return *why;
}

#define SKIP_WITHOUT_GEEV() \
  SKIP_WITHOUT_GPU();       \
  if (!geevMissing().empty()) GTEST_SKIP() << geevMissing()

using Complex = std::complex<double>;

// The eigenvectors of one item as complex columns (n x n, column-major): a
// complex type's as the library wrote them; a real type's unpacked from
// LAPACK's packed form, which the documentation defines: a real w_j has the
// real column j; a pair w_j, w_j+1 = conj(w_j) (adjacent, told apart from a
// real eigenvalue by a nonzero imaginary part, as JAX's lowering does) has
// v_j = col j + i col j+1 and v_j+1 = conj(v_j).
template <typename T>
std::vector<Complex> eigenvectorColumns(const T* vr, const std::vector<Complex>& w,
                                        int64_t n, double tolerance) {
  std::vector<Complex> v(static_cast<size_t>(n * n));
  if constexpr (!std::is_arithmetic_v<T>) {
    for (int64_t i = 0; i < n * n; ++i) v[i] = Complex(vr[i]);
    (void)w;
    (void)tolerance;
  } else {
    for (int64_t j = 0; j < n; ++j) {
      if (w[j].imag() == 0) {
        for (int64_t i = 0; i < n; ++i) v[i + j * n] = Complex(vr[i + j * n]);
        continue;
      }
      EXPECT_LT(j + 1, n) << "eigenvalue " << j << " " << w[j] << " has no conjugate";
      if (j + 1 >= n) return v;
      EXPECT_LT(std::abs(w[j + 1] - std::conj(w[j])), tolerance)
          << "eigenvalues " << j << ", " << j + 1 << ": " << w[j] << ", " << w[j + 1];
      for (int64_t i = 0; i < n; ++i) {
        const Complex z(vr[i + j * n], vr[i + (j + 1) * n]);
        v[i + j * n] = z;
        v[i + (j + 1) * n] = std::conj(z);
      }
      ++j;
    }
  }
  return v;
}

struct GeevResult {
  std::vector<std::vector<Complex>> w;  // per item
  std::vector<std::vector<Complex>> v;  // per item, empty without vectors
};

// Runs geev on `a` (batch items of n x n, column-major) and checks, in
// double host math: info 0; with vectors, A v_j = w_j v_j, each v_j of unit
// 2-norm with its largest component real (where one component is clearly
// the largest); always sum w = trace(A) and sum w^2 = trace(A^2), which a
// repeated or missing eigenvalue breaks.
template <typename T>
GeevResult checkGeev(const std::vector<T>& a, int64_t batch, int64_t n, bool vectors) {
  SolverDesc d;
  d.kind = SolverKind::kGeev;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = d.n = n;
  d.eigenvectors = vectors;
  SCOPED_TRACE(solverText(d));
  using Real = decltype(std::real(T()));
  GeevResult result;
  DeviceBuffer in(a), out(std::vector<T>(a.size())),
      w(std::vector<std::complex<Real>>(static_cast<size_t>(batch * n))),
      vl(std::vector<T>(a.size())), vr(std::vector<T>(a.size())),
      info(std::vector<int32_t>(static_cast<size_t>(batch), -7));
  Status ran = gpu().device->library(
      d, std::vector<uint64_t>{in.address, out.address, w.address, vl.address, vr.address,
                               info.address});
  EXPECT_TRUE(ran.isOk()) << ran.toString();
  if (!ran.isOk()) return result;
  const std::vector<std::complex<Real>> ws = w.read<std::complex<Real>>();
  const std::vector<T> vs = vr.read<T>();
  const std::vector<int32_t> status = info.read<int32_t>();
  const double tol = 50 * tolerance<T>() * static_cast<double>(std::max<int64_t>(n, 1));
  for (int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("item " + std::to_string(b));
    EXPECT_EQ(status[b], 0);
    const T* ai = a.data() + b * n * n;
    auto at = [&](int64_t i, int64_t j) { return Complex(ai[i + j * n]); };
    std::vector<Complex> wi(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) wi[j] = Complex(ws[b * n + j]);
    // Traces of A and A^2 against the eigenvalues' sums.
    Complex trace = 0, trace2 = 0, sum = 0, sum2 = 0;
    for (int64_t i = 0; i < n; ++i) {
      trace += at(i, i);
      for (int64_t p = 0; p < n; ++p) trace2 += at(i, p) * at(p, i);
      sum += wi[i];
      sum2 += wi[i] * wi[i];
    }
    EXPECT_LT(std::abs(sum - trace), tol) << sum << " vs " << trace;
    EXPECT_LT(std::abs(sum2 - trace2), tol * static_cast<double>(n))
        << sum2 << " vs " << trace2;
    result.w.push_back(wi);
    if (!vectors) continue;
    const std::vector<Complex> v = eigenvectorColumns(vs.data() + b * n * n, wi, n, tol);
    double worst = 0, worstNorm = 0, worstPhase = 0;
    for (int64_t j = 0; j < n; ++j) {
      double norm = 0, top = 0, second = 0;
      int64_t topAt = 0;
      for (int64_t i = 0; i < n; ++i) {
        Complex s = 0;
        for (int64_t p = 0; p < n; ++p) s += at(i, p) * v[p + j * n];
        worst = std::max(worst, std::abs(s - wi[j] * v[i + j * n]));
        const double m = std::abs(v[i + j * n]);
        norm += m * m;
        if (m > top) {
          second = top;
          top = m;
          topAt = i;
        } else {
          second = std::max(second, m);
        }
      }
      worstNorm = std::max(worstNorm, std::abs(std::sqrt(norm) - 1.0));
      if (top - second > 1e-2)
        worstPhase = std::max(worstPhase, std::abs(v[topAt + j * n].imag()));
    }
    EXPECT_LT(worst, tol) << "A v - w v";
    EXPECT_LT(worstNorm, tol) << "|v| - 1";
    EXPECT_LT(worstPhase, tol) << "the largest component is not real";
    result.v.push_back(v);
  }
  return result;
}

TEST(GpuSolver, GeevDiagonalizesGeneralMatrices) {
  SKIP_WITHOUT_GEEV();
  {
    // 1 x 1: w = a, v = +-1.
    SolverDesc one;
    one.kind = SolverKind::kGeev;
    one.m = one.n = 1;
    DeviceBuffer a(std::vector<float>{2.0f}), out(std::vector<float>(1)),
        w(std::vector<std::complex<float>>(1)), vl(std::vector<float>(1)),
        vr(std::vector<float>(1)), info(std::vector<int32_t>(1, -7));
    RUN_OR_SKIP(one, (std::vector<uint64_t>{a.address, out.address, w.address, vl.address,
                                            vr.address, info.address}));
    EXPECT_EQ(w.read<std::complex<float>>()[0], std::complex<float>(2.0f, 0.0f));
    EXPECT_EQ(std::abs(vr.read<float>()[0]), 1.0f);
    EXPECT_EQ(info.read<int32_t>()[0], 0);
  }
  // Random real matrices have complex conjugate pairs (packed vectors) and
  // real eigenvalues; complex ones neither.
  checkGeev<float>(randomValues<float>(3 * 36, 81), 3, 6, true);
  checkGeev<double>(randomValues<double>(2 * 81, 82), 2, 9, true);
  checkGeev<std::complex<float>>(randomValues<std::complex<float>>(2 * 25, 83), 2, 5,
                                 true);
  checkGeev<std::complex<double>>(randomValues<std::complex<double>>(49, 84), 1, 7, true);
  checkGeev<double>(randomValues<double>(40 * 40, 85), 1, 40, true);
}

TEST(GpuSolver, GeevWithoutVectorsFindsTheSameEigenvalues) {
  SKIP_WITHOUT_GEEV();
  const std::vector<double> a = randomValues<double>(2 * 64, 86);
  const GeevResult with = checkGeev<double>(a, 2, 8, true);
  const GeevResult without = checkGeev<double>(a, 2, 8, false);
  ASSERT_EQ(with.w.size(), 2u);
  ASSERT_EQ(without.w.size(), 2u);
  for (size_t b = 0; b < 2; ++b) {
    // Each eigenvalue of one run is one of the other's (their order may differ).
    for (const Complex& x : without.w[b]) {
      double nearest = 1e300;
      for (const Complex& y : with.w[b]) nearest = std::min(nearest, std::abs(x - y));
      EXPECT_LT(nearest, 1e-9) << "item " << b << " eigenvalue " << x;
    }
  }
  const std::vector<std::complex<float>> z =
      randomValues<std::complex<float>>(3 * 16, 87);
  checkGeev<std::complex<float>>(z, 3, 4, false);
}

TEST(GpuSolver, GeevOfKnownMatrices) {
  SKIP_WITHOUT_GEEV();
  // Rows [2 0 0; 0 3 -4; 0 4 3] (column-major below): 2 and the pair 3 +- 4i,
  // the pair adjacent in the packed real form.
  const std::vector<double> rot = {2, 0, 0, 0, 3, 4, 0, -4, 3};
  const GeevResult r = checkGeev<double>(rot, 1, 3, true);
  ASSERT_EQ(r.w.size(), 1u);
  std::vector<Complex> want = {Complex(2, 0), Complex(3, 4), Complex(3, -4)};
  for (const Complex& x : want) {
    double nearest = 1e300;
    for (const Complex& y : r.w[0]) nearest = std::min(nearest, std::abs(x - y));
    EXPECT_LT(nearest, 1e-12) << x;
  }
  const GeevResult f =
      checkGeev<float>(std::vector<float>(rot.begin(), rot.end()), 1, 3, true);
  ASSERT_EQ(f.w.size(), 1u);
  for (const Complex& x : want) {
    double nearest = 1e300;
    for (const Complex& y : f.w[0]) nearest = std::min(nearest, std::abs(x - y));
    EXPECT_LT(nearest, 1e-5) << x;
  }
  // Upper triangular complex [1+i 2; 0 3-2i]: its diagonal.
  using Z = std::complex<double>;
  const GeevResult c = checkGeev<Z>({Z(1, 1), Z(0), Z(2), Z(3, -2)}, 1, 2, true);
  ASSERT_EQ(c.w.size(), 1u);
  for (const Complex& x : {Complex(1, 1), Complex(3, -2)}) {
    double nearest = 1e300;
    for (const Complex& y : c.w[0]) nearest = std::min(nearest, std::abs(x - y));
    EXPECT_LT(nearest, 1e-12) << x;
  }
}

// --- ormqr -------------------------------------------------------------------

// Q (order x order) of the k reflectors in the column-major `a` (leading
// dimension order) as LAPACK defines it: Q = H(0) ... H(k-1), H(i) = I -
// tau_i v v^H with v[0..i) = 0, v[i] = 1, v[i+1..] below the diagonal of
// column i.
template <typename T>
std::vector<Complex> householderQ(const T* a, const T* tau, int64_t order, int64_t k) {
  std::vector<Complex> q(static_cast<size_t>(order * order), Complex(0));
  for (int64_t i = 0; i < order; ++i) q[i + i * order] = 1;
  for (int64_t i = 0; i < k; ++i) {
    std::vector<Complex> v(static_cast<size_t>(order), Complex(0));
    v[i] = 1;
    for (int64_t r = i + 1; r < order; ++r) v[r] = Complex(a[r + i * order]);
    const Complex t = Complex(tau[i]);
    for (int64_t r = 0; r < order; ++r) {
      Complex qv = 0;
      for (int64_t p = 0; p < order; ++p) qv += q[r + p * order] * v[p];
      for (int64_t c = 0; c < order; ++c) q[r + c * order] -= t * qv * std::conj(v[c]);
    }
  }
  return q;
}

// geqrf of a random rows x cols A, then ormqr of its reflectors on a
// random C (order = rows; C order x other on the left, other x order on the
// right), against op(Q) C or C op(Q) with Q built on the host from the same
// reflectors (and checked to rebuild A with geqrf's R first).
template <typename T>
void checkOrmqr(int64_t batch, int64_t rows, int64_t cols, int64_t other, bool left,
                bool transpose) {
  const int64_t k = std::min(rows, cols), order = rows;
  const int64_t m = left ? order : other, n = left ? other : order;
  const std::vector<T> a = randomValues<T>(static_cast<size_t>(batch * rows * cols), 91);
  const std::vector<T> c = randomValues<T>(static_cast<size_t>(batch * m * n), 92);
  DeviceBuffer in(a), qr(std::vector<T>(a.size())),
      tau(std::vector<T>(static_cast<size_t>(batch * k))), cIn(c),
      out(std::vector<T>(c.size()));
  SolverDesc g;
  g.kind = SolverKind::kGeqrf;
  g.type = typeOf<T>();
  g.batch = batch;
  g.m = rows;
  g.n = cols;
  RUN_OR_SKIP(g, (std::vector<uint64_t>{in.address, qr.address, tau.address}));
  SolverDesc d;
  d.kind = SolverKind::kOrmqr;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = m;
  d.n = n;
  d.k = k;
  d.reflector_cols = cols;
  d.left_side = left;
  d.transpose = !transpose                ? SolverTranspose::kNone
                : std::is_arithmetic_v<T> ? SolverTranspose::kTranspose
                                          : SolverTranspose::kAdjoint;
  SCOPED_TRACE(solverText(d));
  RUN_OR_SKIP(d,
              (std::vector<uint64_t>{qr.address, tau.address, cIn.address, out.address}));
  const std::vector<T> r = qr.read<T>(), taus = tau.read<T>(), got = out.read<T>();
  EXPECT_EQ(cIn.read<T>(), c) << "c changed";
  for (int64_t b = 0; b < batch; ++b) {
    SCOPED_TRACE("item " + std::to_string(b));
    const T* ri = r.data() + b * rows * cols;
    const std::vector<Complex> q = householderQ(ri, taus.data() + b * k, order, k);
    double rebuilt = 0;
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        Complex s = 0;
        for (int64_t p = 0; p <= std::min(j, rows - 1); ++p)
          s += q[i + p * order] * Complex(ri[p + j * rows]);
        rebuilt =
            std::max(rebuilt, std::abs(s - Complex(a[b * rows * cols + i + j * rows])));
      }
    EXPECT_LT(rebuilt, 10 * tolerance<T>()) << "host Q R = A";
    // op(Q)(i, j): Q, or Q^H (which is Q^T for a real Q).
    auto opQ = [&](int64_t i, int64_t j) {
      return transpose ? std::conj(q[j + i * order]) : q[i + j * order];
    };
    const T* ci = c.data() + b * m * n;
    const T* oi = got.data() + b * m * n;
    double worst = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        Complex s = 0;
        for (int64_t p = 0; p < order; ++p)
          s += left ? opQ(i, p) * Complex(ci[p + j * m])
                    : Complex(ci[i + p * m]) * opQ(p, j);
        worst = std::max(worst, std::abs(s - Complex(oi[i + j * m])));
      }
    EXPECT_LT(worst, 10 * tolerance<T>());
  }
}

TEST(GpuSolver, OrmqrAppliesQ) {
  SKIP_WITHOUT_GPU();
  for (bool left : {true, false})
    for (bool transpose : {false, true}) {
      checkOrmqr<float>(2, 6, 4, 3, left, transpose);
      checkOrmqr<double>(1, 5, 5, 4, left, transpose);
      checkOrmqr<std::complex<float>>(2, 6, 3, 2, left, transpose);
      checkOrmqr<std::complex<double>>(1, 4, 4, 5, left, transpose);
    }
  // A wide A: 4 reflectors in 6 columns (a's leading dimension stays 4).
  checkOrmqr<double>(2, 4, 6, 3, true, true);
  checkOrmqr<std::complex<float>>(1, 4, 6, 2, false, false);
}

// --- cholesky_update ---------------------------------------------------------

// R'^T R' = R^T R + w w^T (row-major upper R, as JAX passes it) with R'
// upper triangular, run in stream order behind a copy that writes R just
// before the call (the host function must see it).
template <typename T>
void checkCholeskyUpdate(int64_t batch, int64_t n) {
  SolverDesc d;
  d.kind = SolverKind::kCholeskyUpdate;
  d.type = typeOf<T>();
  d.batch = batch;
  d.m = d.n = n;
  SCOPED_TRACE(solverText(d));
  std::vector<T> r = randomValues<T>(static_cast<size_t>(batch * n * n), 95);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T& x = r[b * n * n + i * n + j];
        if (j < i) x = 0;
        if (j == i) x = std::abs(x) + 1;
      }
  const std::vector<T> w = randomValues<T>(static_cast<size_t>(batch * n), 96);
  DeviceBuffer source(r), rIn(std::vector<T>(r.size())), wIn(w),
      rOut(std::vector<T>(r.size())), wOut(std::vector<T>(w.size()));
  ASSERT_TRUE(gpu().device->copyOnDevice(rIn.address, source.address, rIn.bytes).isOk());
  RUN_OR_SKIP(
      d, (std::vector<uint64_t>{rIn.address, wIn.address, rOut.address, wOut.address}));
  const std::vector<T> got = rOut.read<T>();
  EXPECT_EQ(rIn.read<T>(), r) << "r changed";
  for (int64_t b = 0; b < batch; ++b) {
    const T* r0 = r.data() + b * n * n;
    const T* r1 = got.data() + b * n * n;
    const T* w0 = w.data() + b * n;
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        if (j < i) worst = std::max(worst, std::abs(static_cast<double>(r1[i * n + j])));
        double before = static_cast<double>(w0[i]) * static_cast<double>(w0[j]),
               after = 0;
        for (int64_t p = 0; p < n; ++p) {
          before +=
              static_cast<double>(r0[p * n + i]) * static_cast<double>(r0[p * n + j]);
          after +=
              static_cast<double>(r1[p * n + i]) * static_cast<double>(r1[p * n + j]);
        }
        worst = std::max(worst, std::abs(after - before));
      }
    EXPECT_LT(worst, 10 * tolerance<T>()) << "item " << b;
  }
}

TEST(GpuSolver, CholeskyUpdateInStreamOrder) {
  SKIP_WITHOUT_GPU();
  checkCholeskyUpdate<float>(1, 6);
  checkCholeskyUpdate<double>(2, 9);
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

#undef SKIP_WITHOUT_GPU
#undef RUN_OR_SKIP
#undef SKIP_WITHOUT_GEEV
