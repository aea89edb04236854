// Validation and text of solver descriptions.
#include "runtime/solver.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "support/enum_table.h"

namespace jft::runtime {
namespace {

// clang-format off
constexpr EnumName<SolverKind> kSolverKinds[] = {
    {SolverKind::kPotrf, "potrf"}, {SolverKind::kGetrf, "getrf"},
    {SolverKind::kLuPivotsToPermutation, "lu_pivots_to_permutation"},
    {SolverKind::kTriangularSolve, "triangular_solve"}, {SolverKind::kGeqrf, "geqrf"},
    {SolverKind::kOrgqr, "orgqr"}, {SolverKind::kSyevd, "syevd"},
    {SolverKind::kGesvdj, "gesvdj"}, {SolverKind::kSytrd, "sytrd"},
    {SolverKind::kGesvd, "gesvd"}, {SolverKind::kGesvdp, "gesvdp"},
    {SolverKind::kGeev, "geev"}, {SolverKind::kOrmqr, "ormqr"},
    {SolverKind::kCholeskyUpdate, "cholesky_update"},
};
constexpr ElementTypeRow<SolverType> kSolverTypes[] = {
    {SolverType::kF32, "f32", 4}, {SolverType::kF64, "f64", 8},
    {SolverType::kC64, "c64", 8}, {SolverType::kC128, "c128", 16},
    {SolverType::kS32, "s32", 4},
};
constexpr EnumName<SolverTranspose> kTransposes[] = {
    {SolverTranspose::kNone, "N"}, {SolverTranspose::kTranspose, "T"},
    {SolverTranspose::kAdjoint, "C"},
};
// clang-format on

}  // namespace

int64_t solverTypeBytes(SolverType type) {
  return bytesOf(kSolverTypes, type, 0);
}

SolverType solverRealType(SolverType type) {
  switch (type) {
    case SolverType::kC64:
      return SolverType::kF32;
    case SolverType::kC128:
      return SolverType::kF64;
    default:
      return type;
  }
}

std::vector<uint64_t> solverBufferBytes(const SolverDesc& desc) {
  auto bytes = [&](int64_t items, int64_t elementBytes) {
    return static_cast<uint64_t>(desc.batch * items * elementBytes);
  };
  const int64_t t = solverTypeBytes(desc.type);
  switch (desc.kind) {
    case SolverKind::kPotrf:
      return {bytes(desc.n * desc.n, t), bytes(desc.n * desc.n, t), bytes(1, 4)};
    case SolverKind::kGetrf:
      return {bytes(desc.m * desc.n, t), bytes(desc.m * desc.n, t),
              bytes(std::min(desc.m, desc.n), 4), bytes(1, 4)};
    case SolverKind::kLuPivotsToPermutation:
      return {bytes(desc.n, 4), bytes(desc.m, 4)};
    case SolverKind::kTriangularSolve: {
      const int64_t k = desc.left_side ? desc.m : desc.n;
      return {bytes(k * k, t), bytes(desc.m * desc.n, t), bytes(desc.m * desc.n, t)};
    }
    case SolverKind::kGeqrf:
      return {bytes(desc.m * desc.n, t), bytes(desc.m * desc.n, t),
              bytes(std::min(desc.m, desc.n), t)};
    case SolverKind::kOrgqr:
      return {bytes(desc.m * desc.n, t), bytes(desc.k, t), bytes(desc.m * desc.n, t)};
    case SolverKind::kSyevd:
      return {bytes(desc.n * desc.n, t), bytes(desc.n * desc.n, t),
              bytes(desc.n, solverTypeBytes(solverRealType(desc.type))), bytes(1, 4)};
    case SolverKind::kGesvdj:
    case SolverKind::kGesvdp: {
      const int64_t k = std::min(desc.m, desc.n);
      const int64_t uCols = desc.full_matrices ? desc.m : k;
      const int64_t vCols = desc.full_matrices ? desc.n : k;
      return {bytes(desc.m * desc.n, t),
              bytes(desc.m * desc.n, t),
              bytes(k, solverTypeBytes(solverRealType(desc.type))),
              bytes(desc.m * uCols, t),
              bytes(desc.n * vCols, t),
              bytes(1, 4)};
    }
    case SolverKind::kGesvd: {
      // Without compute_uv JAX's u and vt are scalars, not batched.
      const uint64_t scalar = static_cast<uint64_t>(t);
      return {bytes(desc.m * desc.n, t),
              bytes(desc.m * desc.n, t),
              bytes(desc.n, solverTypeBytes(solverRealType(desc.type))),
              desc.compute_uv ? bytes(desc.m * (desc.full_matrices ? desc.m : desc.n), t)
                              : scalar,
              desc.compute_uv ? bytes(desc.n * desc.n, t) : scalar,
              bytes(1, 4)};
    }
    case SolverKind::kSytrd: {
      const int64_t offDiagonal = std::max<int64_t>(desc.n - 1, 0);
      const int64_t real = solverTypeBytes(solverRealType(desc.type));
      return {bytes(desc.n * desc.n, t), bytes(desc.n * desc.n, t), bytes(desc.n, real),
              bytes(offDiagonal, real),  bytes(offDiagonal, t),     bytes(1, 4)};
    }
    case SolverKind::kGeev: {
      // w is complex whatever a's type: two of its real parts per element.
      const int64_t complex = 2 * solverTypeBytes(solverRealType(desc.type));
      const uint64_t matrix = bytes(desc.n * desc.n, t);
      return {matrix, matrix, bytes(desc.n, complex), matrix, matrix, bytes(1, 4)};
    }
    case SolverKind::kOrmqr: {
      const int64_t order = desc.left_side ? desc.m : desc.n;
      return {bytes(order * desc.reflector_cols, t), bytes(desc.k, t),
              bytes(desc.m * desc.n, t), bytes(desc.m * desc.n, t)};
    }
    case SolverKind::kCholeskyUpdate:
      return {bytes(desc.n * desc.n, t), bytes(desc.n, t), bytes(desc.n * desc.n, t),
              bytes(desc.n, t)};
  }
  return {};
}

Status validateSolver(const SolverDesc& desc) {
  auto bad = [&](const std::string& why) {
    return invalidArgument(solverText(desc) + ": " + why);
  };
  if (desc.batch < 0 || desc.m < 0 || desc.n < 0) return bad("a size is negative");
  const bool permutation = desc.kind == SolverKind::kLuPivotsToPermutation;
  if (permutation != (desc.type == SolverType::kS32))
    return bad(permutation ? "pivots are int32"
                           : "the matrices must be f32, f64, c64 or c128");
  if (desc.kind == SolverKind::kPotrf && desc.m != desc.n)
    return bad("a Cholesky factorization needs a square matrix");
  if (desc.kind == SolverKind::kSyevd && desc.m != desc.n)
    return bad("an eigendecomposition needs a square matrix");
  if (desc.kind == SolverKind::kSytrd && desc.m != desc.n)
    return bad("a tridiagonal reduction needs a square matrix");
  if (desc.kind == SolverKind::kGesvd && desc.m < desc.n)
    return bad("gesvd needs m >= n (a wider matrix goes to it transposed)");
  if (desc.kind == SolverKind::kOrgqr &&
      !(desc.m >= desc.n && desc.n >= desc.k && desc.k >= 0))
    return bad("orgqr needs m >= n >= k >= 0");
  if (desc.kind == SolverKind::kGeev && desc.m != desc.n)
    return bad("an eigendecomposition needs a square matrix");
  if (desc.kind == SolverKind::kCholeskyUpdate) {
    if (desc.m != desc.n) return bad("a Cholesky update needs a square factor");
    if (desc.type != SolverType::kF32 && desc.type != SolverType::kF64)
      return bad("a Cholesky update is f32 or f64");
  }
  const bool complex = desc.type == SolverType::kC64 || desc.type == SolverType::kC128;
  const int64_t order = desc.left_side ? desc.m : desc.n;
  if (desc.kind == SolverKind::kOrmqr) {
    if (!(desc.k >= 0 && desc.k <= order && desc.k <= desc.reflector_cols))
      return bad("ormqr needs 0 <= k <= Q's order and k <= the reflectors' columns");
    if (complex && desc.transpose == SolverTranspose::kTranspose)
      return bad("unmqr applies Q or Q^H, not Q^T, to a complex matrix");
  }
  // The libraries take int sizes.
  constexpr int64_t kMaxInt = 0x7fffffff;
  if (desc.m > kMaxInt || desc.n > kMaxInt || (!permutation && desc.m * desc.n > kMaxInt))
    return bad("a matrix is too large for the library's int sizes");
  if (desc.kind == SolverKind::kOrmqr && order * desc.reflector_cols > kMaxInt)
    return bad("the reflectors are too large for the library's int sizes");
  return Status::ok();
}

void luPivotsToPermutation(const int32_t* pivots, int32_t* permutation, int64_t batch,
                           int64_t n, int64_t m) {
  for (int64_t b = 0; b < batch; ++b) {
    const int32_t* pivot = pivots + b * n;
    int32_t* out = permutation + b * m;
    for (int64_t i = 0; i < m; ++i) out[i] = static_cast<int32_t>(i);
    for (int64_t i = 0; i < std::min(n, m); ++i) {
      const int32_t j = pivot[i];
      if (j < 0 || j >= m) continue;
      std::swap(out[i], out[j]);
    }
  }
}

namespace {

// The Givens rotation (c, s) taking (x, y) to (r, 0), r = hypot(x, y),
// scaled by the larger magnitude first so that neither square overflows;
// (1, 0) when y is already 0.
template <typename T>
void givens(T x, T y, T& c, T& s) {
  if (y == 0) {
    c = 1;
    s = 0;
    return;
  }
  const T scale = std::max(std::abs(x), std::abs(y));
  x /= scale;
  y /= scale;
  const T inverse = T(1) / std::sqrt(x * x + y * y);
  c = x * inverse;
  s = -y * inverse;
}

// Row k of R rotated with w zeroes w(k): R'(k, :) = c R(k, :) - s w and w'
// = c w + s R(k, :), row by row.
template <typename T>
void rankOneUpdate(T* r, T* w, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    T c, s;
    givens(r[k * n + k], w[k], c, s);
    for (int64_t j = 0; j < n; ++j) {
      const T row = r[k * n + j], v = w[j];
      r[k * n + j] = c * row - s * v;
      w[j] = c * v + s * row;
    }
  }
}

}  // namespace

void choleskyRankOneUpdate(void* r, void* w, SolverType type, int64_t batch, int64_t n) {
  for (int64_t b = 0; b < batch; ++b) {
    if (type == SolverType::kF64)
      rankOneUpdate(static_cast<double*>(r) + b * n * n, static_cast<double*>(w) + b * n,
                    n);
    else
      rankOneUpdate(static_cast<float*>(r) + b * n * n, static_cast<float*>(w) + b * n,
                    n);
  }
}

std::string solverText(const SolverDesc& desc) {
  std::string text = std::string(nameOf(kSolverKinds, desc.kind, "solver?")) + " " +
                     nameOf(kSolverTypes, desc.type, "?") + " batch " +
                     std::to_string(desc.batch) + " " + std::to_string(desc.m) + "x" +
                     std::to_string(desc.n);
  if (isOneOf(desc.kind, {SolverKind::kPotrf, SolverKind::kSytrd, SolverKind::kSyevd}))
    text += desc.lower ? " lower" : " upper";
  if (desc.kind == SolverKind::kOrgqr) text += " k " + std::to_string(desc.k);
  if (desc.kind == SolverKind::kSyevd) {
    if (desc.algorithm == EigAlgorithm::kQr) text += " qr";
    if (desc.algorithm == EigAlgorithm::kJacobi) text += " jacobi";
  }
  if (desc.kind == SolverKind::kGesvdj || desc.kind == SolverKind::kGesvd ||
      desc.kind == SolverKind::kGesvdp) {
    text += desc.full_matrices ? " full" : " econ";
    if (!desc.compute_uv) text += " no_uv";
  }
  if (desc.kind == SolverKind::kGeev && !desc.eigenvectors) text += " no_vectors";
  if (desc.kind == SolverKind::kOrmqr) {
    text += " k " + std::to_string(desc.k);
    text += desc.left_side ? " left " : " right ";
    text += nameOf(kTransposes, desc.transpose, "?");
  }
  if (desc.kind == SolverKind::kTriangularSolve) {
    text += desc.left_side ? " left" : " right";
    text += desc.lower ? " lower " : " upper ";
    text += nameOf(kTransposes, desc.transpose, "?");
    if (desc.unit_diagonal) text += " unit";
  }
  return text;
}

}  // namespace jft::runtime
