// One (batched) dense linear-algebra operation as the runtime hands it to a
// solver library (cuSOLVER / cuBLAS on CUDA; hipSOLVER would read the same
// description). The compiler fills it in from the custom calls JAX's GPU
// lowering emits (cusolver_*_ffi, cu_lu_pivots_to_permutation) and from
// stablehlo.triangular_solve / cholesky; nothing here knows CUDA or our IR.
//
// Matrices are COLUMN-MAJOR, as LAPACK and the libraries see them: an m x n
// item has leading dimension m and the `batch` items follow one another
// densely. (A row-major matrix of our IR is the column-major transpose; the
// compiler swaps flags or transposes so that the library's view is right.)
// Vectors (pivots, info, permutations) are int32, dense per item.
//
// Buffers of its LibraryThunk, in order: the operands the op reads, then the
// results it writes, as the op's kind documents below. A result that a
// library computes in place (factor, lu, x) is first filled with the
// operand it replaces, unless both are one buffer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace jft::runtime {

enum class SolverKind : uint8_t {
  // Cholesky factorization of the n x n Hermitian positive-definite A (m == n),
  // reading and writing only the triangle `lower` names: A = L L^H (lower) or
  // U^H U. Buffers: a, factor (the other triangle is left as in a), info
  // (one int32 per item: 0, or the order of the leading minor that is not
  // positive definite).
  kPotrf,
  // LU factorization with partial pivoting of the m x n A: P A = L U, L unit
  // lower (below the diagonal), U upper. Buffers: a, lu, pivots (min(m, n)
  // int32 per item, 1-based row interchanges as LAPACK's ipiv), info (one
  // int32 per item: 0, or the 1-based index of the first zero of U's diagonal).
  kGetrf,
  // The permutation that applying the row interchanges pivots[0..n) (0-based)
  // one after the other to the identity of size m yields; interchanges out
  // of [0, m) are skipped. Type kS32. Buffers: pivots (n per item),
  // permutation (m per item).
  kLuPivotsToPermutation,
  // Solves op(A) X = B (left_side) or X op(A) = B for X, A triangular
  // (`lower`, `unit_diagonal`: its diagonal taken as ones), B and X m x n, A
  // m x m (left) or n x n (right). Buffers: a, b, x.
  kTriangularSolve,
  // QR factorization of the m x n A as LAPACK's geqrf: R on and above the
  // diagonal, the Householder vectors below it. Buffers: a, qr, tau
  // (min(m, n) elements per item).
  kGeqrf,
  // The m x n Q (m >= n >= k) of k Householder reflectors as LAPACK's
  // orgqr/ungqr. Buffers: a (the vectors, as geqrf leaves them), tau (k
  // elements per item), q.
  kOrgqr,
  // Eigendecomposition of the n x n Hermitian A (m == n) from the triangle
  // `lower` names: A V = V diag(w), w ascending, V's columns orthonormal
  // eigenvectors. Buffers: a, v (n x n, the library's in-place copy of a),
  // w (n real elements per item: f32 for f32 and c64, f64 for f64 and
  // c128), info (one int32 per item: 0, or not 0 where it did not converge).
  kSyevd,
  // Singular value decomposition of the m x n A by Jacobi sweeps: A = U
  // diag(s) V^H, s descending (k = min(m, n) real elements per item), U's
  // and V's columns orthonormal. full_matrices: U m x m and V n x n, else
  // m x k and n x k. Without compute_uv U and V are scratch (not written).
  // Buffers: a, work (m x n: the library's copy of a, destroyed), s, u, v,
  // info (one int32 per item: 0, or not 0 where it did not converge).
  kGesvdj,
  // Reduction of the n x n Hermitian A (m == n, the triangle `lower` names)
  // to real symmetric tridiagonal form T = Q^H A Q, as LAPACK's sytrd /
  // hetrd: T's diagonal d (n real elements per item) and off-diagonal e
  // (n - 1 real), and Q as n - 1 Householder reflectors left in the triangle
  // with their factors tau (n - 1 elements). Buffers: a, out (n x n, the
  // library's in-place copy of a), d, e, tau, info (one int32 per item, 0).
  kSytrd,
  // Singular value decomposition of the m x n A (m >= n, the library's
  // restriction: the compiler hands a wider matrix over as its transpose)
  // by QR iteration on a bidiagonal form, as LAPACK's gesvd: A = U diag(s)
  // V^H, s descending (n real elements per item). With compute_uv, U is m x
  // m (full_matrices) or m x n, and V^H (not V) n x n either way; without,
  // neither is computed and each buffer is ONE element for the whole batch
  // (JAX passes a scalar there). Buffers: a, out (m x n: the library's copy
  // of a, destroyed), s, u, vt, info (one int32 per item: 0, or the number
  // of superdiagonals of the bidiagonal form that did not converge).
  kGesvd,
  // Singular value decomposition of the m x n A (any shape) by a polar
  // decomposition and a Hermitian eigensolver, as cuSOLVER's gesvdp: the
  // buffers, shapes and meaning of kGesvdj (U and V, not V^H; U m x m or
  // m x k, V n x n or n x k; without compute_uv they are scratch of the
  // same sizes).
  kGesvdp,
  // Eigendecomposition of the general n x n A (m == n) as LAPACK's geev
  // through cuSOLVER's Xgeev: A v_j = w_j v_j, each v_j of unit 2-norm with
  // its largest component real; the eigenvalues in no particular order (a
  // real A's complex ones in conjugate pairs, the one with positive
  // imaginary part first). Right eigenvectors only (`eigenvectors`; the
  // library computes no left ones). Buffers: a, out (n x n: the library's
  // copy of a, destroyed), w (n COMPLEX elements per item: c64 for f32 and
  // c64, c128 for f64 and c128), vl (n x n, never written), vr (n x n: for
  // a complex A the eigenvectors as columns; for a real A LAPACK's packed
  // real form, column j the eigenvector of a real w_j and, for a pair
  // w_j, w_j+1 = conj(w_j), columns j and j+1 the real and imaginary parts
  // of v_j (v_j+1 = conj(v_j)); without `eigenvectors` not written), info
  // (one int32 per item: 0, or i > 0 where the QR algorithm failed to
  // compute all eigenvalues).
  kGeev,
  // Multiplication of the m x n C by the Q of k Householder reflectors (as
  // geqrf leaves them in the first k columns of a, with their factors tau)
  // without forming Q, as LAPACK's ormqr / unmqr: op(Q) C (left_side) or C
  // op(Q), op(Q) Q or its transpose (`transpose`: kTranspose for a real
  // type, kAdjoint for a complex one). Q is m x m (left) or n x n (right),
  // so a is m (n) x reflector_cols, reflector_cols >= k. Buffers: a, tau (k
  // elements per item), c, out (m x n: the library's in-place copy of c).
  kOrmqr,
  // Rank-one update of a Cholesky factor, as lax.linalg.cholesky_update: R
  // (n x n, upper triangular, ROW-major as JAX passes it) with A = R^T R and
  // w (n) give R' with R'^T R' = A + w w^T, by one Givens rotation per row
  // (R'(k, k) >= 0 where R(k, k) >= 0); w is consumed (left near zero). f32
  // or f64 (m == n). Buffers: r, w, r_out, w_out. Neither library has it:
  // the device runs choleskyRankOneUpdate below in stream order (O(n^2)).
  kCholeskyUpdate,
};

// How kSyevd diagonalizes, as JAX's `algorithm` attribute names it: kDefault
// is Jacobi sweeps up to 32 x 32 and divide and conquer above.
enum class EigAlgorithm : uint8_t { kDefault, kQr, kJacobi };

enum class SolverType : uint8_t { kF32, kF64, kC64, kC128, kS32 };

// op(A) of a triangular solve.
enum class SolverTranspose : uint8_t { kNone, kTranspose, kAdjoint };

struct SolverDesc {
  SolverKind kind = SolverKind::kPotrf;
  SolverType type = SolverType::kF32;
  int64_t batch = 1;
  int64_t m = 0, n = 0;
  int64_t k = 0;               // orgqr, ormqr: the number of reflectors
  int64_t reflector_cols = 0;  // ormqr: the columns of a (its rows are Q's order)
  bool lower = false;     // potrf, triangular_solve, syevd, sytrd: the triangle of A used
  bool left_side = true;  // triangular_solve, ormqr
  SolverTranspose transpose = SolverTranspose::kNone;  // triangular_solve, ormqr
  bool unit_diagonal = false;
  EigAlgorithm algorithm = EigAlgorithm::kDefault;  // syevd
  bool full_matrices = true;                        // gesvdj, gesvd, gesvdp
  bool compute_uv = true;                           // gesvdj, gesvd, gesvdp
  bool eigenvectors = true;                         // geev: the right ones
  friend bool operator==(const SolverDesc&, const SolverDesc&) = default;
};

// Bytes of one element of `type`.
int64_t solverTypeBytes(SolverType type);

// The real type of `type`'s parts (eigenvalues, singular values): f32 for
// f32 and c64, f64 for f64 and c128.
SolverType solverRealType(SolverType type);

// The bytes each buffer of `desc` must hold, in buffer order (a
// LibraryThunk of the description lists exactly this many buffers).
std::vector<uint64_t> solverBufferBytes(const SolverDesc& desc);

// OK when a library can run `desc`: sizes not negative, a type the kind
// takes (floating or complex for the factorizations and solves, kS32 for the
// permutation; f32 or f64 for cholesky_update), potrf, syevd, sytrd, geev
// and cholesky_update square, gesvd m >= n, ormqr's k
// within Q's order and a's columns (and no plain transpose of a complex Q,
// which unmqr lacks). INVALID_ARGUMENT naming the description else.
Status validateSolver(const SolverDesc& desc);

// kLuPivotsToPermutation on the host: `batch` items of `n` pivots to
// `batch` items of `m` permutation entries (a device may run this in stream
// order as a host function; it is a few swaps per row).
void luPivotsToPermutation(const int32_t* pivots, int32_t* permutation, int64_t batch,
                           int64_t n, int64_t m);

// kCholeskyUpdate on the host, in place: `batch` items of the row-major
// upper-triangular n x n `r` (float for kF32, double for kF64) and of `w`
// (n each).
void choleskyRankOneUpdate(void* r, void* w, SolverType type, int64_t batch, int64_t n);

// "potrf f32 batch 1 32x32 lower", "triangular_solve f32 batch 2 4x32 right
// upper T unit" for errors and the route report.
std::string solverText(const SolverDesc& desc);

}  // namespace jft::runtime
