// syrk_expand: JAX's `cusolver_syrk_ffi` custom call (what JAX 0.11 emits on
// CUDA for lax.linalg.symmetric_product) becomes ordinary ops our routes run:
// a dot_general (library GEMM, or a TTIR matmul when small) and an
// elementwise epilogue (a TTIR loop, or fused into that matmul).
//
// The call: operands a [..., m, n], c_in [..., s, s], alpha and beta (one
// element each, a's type); one result c_out [..., s, s] aliased to c_in; the
// bool `transpose` in backend_config (or mhlo.backend_config); f32, f64,
// complex<f32> and complex<f64>, the types the kernel dispatches on. s is m,
// or n with transpose. Layouts, when given, must be row-major (JAX's
// default for this call).
//
// What the kernel computes, in row-major terms. It copies c_in to c_out and,
// per batch element, calls BLAS syrk(uplo = UPPER, trans, N, K, alpha, X,
// lda, beta, C, ldc = N) on the row-major buffers read as column-major:
// trans = T, N = m, K = n, lda = K without transpose; trans = N, N = n,
// K = m, lda = N with it. BLAS defines syrk as
//   C := alpha * op(X) * op(X)^T + beta * C   (no conjugation),
// op(X) = X^T for T (X is K x N) and X for N (X is N x K), touching only
// the uplo triangle of C; with beta = 0, C is not read ("C need not be set
// on input"). A row-major [r, q] buffer read column-major with leading
// dimension q is the q x r matrix whose (i, j) is the row-major (j, i): the
// transpose. Both ways X is A^T (n x m), so
//   - transpose false: op(X) = A,   C_cm = alpha A A^T + beta C_cm;
//   - transpose true:  op(X) = A^T, C_cm = alpha A^T A + beta C_cm;
// and C_cm is c^T (s x s, ldc = s). UPPER (i <= j) of C_cm is the
// row-major element (j, i): the LOWER triangle of c, diagonal included. The
// product is symmetric, so row-major
//   c_out[i][j] = alpha * P[i][j] + beta * c_in[i][j]   for i >= j,
//   c_out[i][j] = c_in[i][j]                             for i < j,
// with P = A A^T (transpose false) or A^T A (true), and beta * c_in left out
// when beta == 0. The rewrite spells exactly that (batch dims leading):
//   P       = dot_general(a, a) contracting a's last dim (second-to-last
//             with transpose), precision HIGHEST (full f32, as cuBLAS syrk
//             and JAX's own fallback compute it)
//   scaled  = alpha * P;  sum = scaled + beta * c_in
//   updated = select(beta == 0, scaled, sum)
//   c_out   = select(iota(rows) >= iota(cols), updated, c_in)
// (Reference BLAS also skips the product when alpha == 0, so an Inf or NaN
// in a does not reach c_out; cuBLAS does not document that, and here
// 0 * Inf is NaN as in JAX's own fallback.)
// The result is a fresh value: the custom call and its output/operand alias
// disappear, and c_in keeps its value for other users, as the alias
// contract (a buffer hint, not a change of meaning) requires.
//
// A call that does not match this signature is INVALID_ARGUMENT naming the
// call, its location and what is wrong; nothing is rewritten then.
//
// Before: the IR verifies. After: it verifies, holds no cusolver_syrk_ffi
// call, and computes what the kernel computes (up to rounding of the sums).
#pragma once

#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

// Returns whether any call was rewritten.
StatusOr<bool> expandSyrkCalls(ir::Module& module);

}  // namespace jft::passes
