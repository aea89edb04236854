"""JAX's GPU linear algebra through our solver route under XLA_MODE=fl_only:
lu, solve, cholesky, qr, triangular_solve (every side / triangle /
transpose), eigh (both triangles, each cuSOLVER path), svd (full_matrices
True / False, compute_uv False, up to 512 x 512 by Jacobi; above 1024 by
QR iteration, also complex64, pinv and matrix_rank; SvdAlgorithm.QR and
POLAR on small matrices), pinv, lstsq, matrix_rank
and tridiagonal, batched and not, f32 and f64 (lu, solve, qr, eigh, svd,
tridiagonal also complex), checked by what each result must satisfy (P A =
L U, A x = b, L L^T = A, Q R = A with Q^T Q = I, op(A) X = B, A V = V
diag(w), A = U diag(s) V^T with orthonormal factors, the Moore-Penrose
conditions, the normal equations, Q^H A Q = T from the reflectors) in
float64 numpy; eigenvalues and singular values also against numpy's
float64 LAPACK. eig / eigvals of general matrices (cusolver_geev_ffi) by A V
= V diag(w) and np.linalg.eigvals; qr_multiply and lax.linalg.ormqr
(cusolver_ormqr_ffi) against Q from the R they return and from qr.
symmetric_product (cusolver_syrk_ffi, rewritten into a product and a masked
epilogue) against alpha A A^T + beta C in its lower triangle and C or the
mirror above it."""

import os

os.environ["XLA_MODE"] = "fl_only"
os.environ.setdefault("JAX_ENABLE_X64", "1")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

rng = np.random.default_rng(1)
TOL = {np.float32: 2e-4, np.float64: 1e-10}


def require_ours():
  if not h.ours_is_active():
    raise AssertionError("the gpu backend is not jax-flagtree: "
                         + jax.devices()[0].client.platform_version)


def matrices(shape, dtype, spd=False):
  a = rng.standard_normal(shape)
  if spd:
    a = a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])
  else:
    a = a + shape[-1] * np.eye(shape[-2], shape[-1])  # well conditioned
  return a.astype(dtype)


def small(residual, dtype, what):
  worst = float(np.max(np.abs(residual))) if residual.size else 0.0
  assert worst < TOL[dtype], f"{what}: residual {worst:.3g} > {TOL[dtype]:g}"


def lu():
  require_ours()
  for dtype in (np.float32, np.float64):
    for shape in ((6, 6), (3, 5, 5), (2, 6, 4)):
      a = matrices(shape, dtype)
      lu_, _, perm = jax.jit(lax.linalg.lu)(a)
      lu_, perm = np.asarray(lu_, np.float64), np.asarray(perm)
      m, n = shape[-2:]
      k = min(m, n)
      l = np.tril(lu_, -1)[..., :, :k] + np.eye(m, k)
      u = np.triu(lu_)[..., :k, :]
      pa = np.take_along_axis(a.astype(np.float64), perm[..., :, None], axis=-2)
      small(l @ u - pa, dtype, f"lu {shape} {dtype.__name__}")


def solve():
  require_ours()
  for dtype in (np.float32, np.float64):
    for a_shape, b_shape in (((32, 32), (32, 4)), ((3, 8, 8), (3, 8, 2))):
      a, b = matrices(a_shape, dtype), rng.standard_normal(b_shape).astype(dtype)
      x = np.asarray(jax.jit(jnp.linalg.solve)(a, b), np.float64)
      small(a.astype(np.float64) @ x - b, dtype, f"solve {a_shape} {dtype.__name__}")


def cholesky():
  require_ours()
  for dtype in (np.float32, np.float64):
    for shape in ((16, 16), (4, 5, 5)):
      a = matrices(shape, dtype, spd=True)
      l = np.asarray(jax.jit(jnp.linalg.cholesky)(a), np.float64)
      assert np.all(np.triu(l, 1) == 0), "cholesky: upper triangle not zero"
      small((l @ np.swapaxes(l, -1, -2) - a) / shape[-1], dtype,
            f"cholesky {shape} {dtype.__name__}")


def qr():
  require_ours()
  for dtype in (np.float32, np.float64):
    for shape in ((6, 4), (2, 5, 5), (3, 4, 6)):
      a = matrices(shape, dtype)
      q, r = jax.jit(jnp.linalg.qr)(a)
      q, r = np.asarray(q, np.float64), np.asarray(r, np.float64)
      k = min(shape[-2:])
      small(np.swapaxes(q, -1, -2) @ q - np.eye(k), dtype, f"qr Q^T Q {shape}")
      small(q @ r - a, dtype, f"qr Q R {shape} {dtype.__name__}")


def triangular_solve():
  require_ours()
  for dtype in (np.float32, np.float64):
    for left in (True, False):
      for lower in (True, False):
        for transpose in (False, True):
          for unit in (False, True):
            a = matrices((2, 5, 5), dtype)
            b = rng.standard_normal((2, 5, 3) if left else (2, 3, 5)).astype(dtype)
            f = jax.jit(lambda a, b: lax.linalg.triangular_solve(
                a, b, left_side=left, lower=lower, transpose_a=transpose,
                unit_diagonal=unit))
            x = np.asarray(f(a, b), np.float64)
            t = np.tril(a) if lower else np.triu(a)
            t = t.astype(np.float64)
            if unit:
              t[..., np.arange(5), np.arange(5)] = 1.0
            if transpose:
              t = np.swapaxes(t, -1, -2)
            got = t @ x if left else x @ t
            small(got - b, dtype,
                  f"triangular_solve left={left} lower={lower} T={transpose} unit={unit}")


def close(got, want, dtype, what, scale=1.0):
  small((np.asarray(got, np.float64) - want) / scale, dtype, what)


def symmetric_from(a, lower):
  """The symmetric matrix made of a's `lower` triangle (the other ignored)."""
  t = np.tril(a) if lower else np.triu(a)
  return t + np.swapaxes(t, -1, -2) - np.eye(a.shape[-1]) * a


def eigh():
  require_ours()
  # n <= 32: Jacobi (batched for a batch); above: divide and conquer.
  for dtype in (np.float32, np.float64):
    for shape in ((6, 6), (3, 5, 5), (2, 40, 40), (100, 100)):
      a = rng.standard_normal(shape)
      a = (a + np.swapaxes(a, -1, -2)).astype(dtype)
      w, v = jax.jit(jnp.linalg.eigh)(a)
      w, v, a64 = np.asarray(w, np.float64), np.asarray(v, np.float64), a.astype(np.float64)
      scale = max(1.0, float(np.max(np.abs(w))))
      what = f"eigh {shape} {dtype.__name__}"
      assert np.all(np.diff(w, axis=-1) >= 0), f"{what}: eigenvalues not ascending"
      small((a64 @ v - v * w[..., None, :]) / scale, dtype, what + " A V - V w")
      small(np.swapaxes(v, -1, -2) @ v - np.eye(shape[-1]), dtype, what + " V^T V")
      close(w, np.linalg.eigvalsh(a64), dtype, what + " w", scale)
  # Only the named triangle is read (no symmetrization in lax.linalg.eigh).
  for dtype in (np.float32, np.float64):
    for lower in (True, False):
      for n in (5, 36):
        a = rng.standard_normal((2, n, n)).astype(dtype)
        f = jax.jit(lambda a: lax.linalg.eigh(a, lower=lower, symmetrize_input=False))
        v, w = f(a)
        v, w = np.asarray(v, np.float64), np.asarray(w, np.float64)
        s = symmetric_from(a.astype(np.float64), lower)
        scale = max(1.0, float(np.max(np.abs(w))))
        what = f"eigh lower={lower} n={n} {dtype.__name__}"
        small((s @ v - v * w[..., None, :]) / scale, dtype, what + " A V - V w")
        close(w, np.linalg.eigvalsh(s), dtype, what + " w", scale)


def svd_tol_scale(k):
  return max(1.0, k / 32)


def svd():
  require_ours()
  # Default algorithm up to 1024 x 1024: Jacobi (gesvdj; batched up to 32 x
  # 32, economic when full_matrices=False and both dims > 32).
  shapes = ((6, 4), (3, 5, 7), (2, 40, 36), (50, 33), (2, 128, 96), (200, 300),
            (512, 512))
  for dtype in (np.float32, np.float64):
    for shape in shapes:
      a = rng.standard_normal(shape).astype(dtype)
      a64 = a.astype(np.float64)
      m, n = shape[-2:]
      k = min(m, n)
      want_s = np.linalg.svd(a64, compute_uv=False)
      scale = float(np.max(want_s))
      t = svd_tol_scale(k)
      for full in (True, False):
        what = f"svd {shape} full={full} {dtype.__name__}"
        u, s, vh = jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=full))(a)
        u, s, vh = (np.asarray(x, np.float64) for x in (u, s, vh))
        assert u.shape == shape[:-2] + (m, m if full else k), f"{what}: U {u.shape}"
        assert vh.shape == shape[:-2] + (n if full else k, n), f"{what}: Vh {vh.shape}"
        assert np.all(np.diff(s, axis=-1) <= 0), f"{what}: not descending"
        assert np.all(s >= 0), f"{what}: negative singular value"
        rebuilt = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
        small((rebuilt - a64) / (scale * t), dtype, what + " U S V^T - A")
        small((np.swapaxes(u, -1, -2) @ u - np.eye(u.shape[-1])) / t, dtype,
              what + " U^T U")
        small((vh @ np.swapaxes(vh, -1, -2) - np.eye(vh.shape[-2])) / t, dtype,
              what + " V^T V")
        close(s, want_s, dtype, what + " s", scale * t)
      s = jax.jit(lambda a: jnp.linalg.svd(a, compute_uv=False))(a)
      close(s, want_s, dtype, f"svd {shape} compute_uv=False {dtype.__name__}", scale * t)


def pinv():
  require_ours()
  for dtype in (np.float32, np.float64):
    for shape in ((5, 3), (2, 4, 6), (40, 34)):
      a = rng.standard_normal(shape).astype(dtype)
      x = np.asarray(jax.jit(jnp.linalg.pinv)(a), np.float64)
      a64 = a.astype(np.float64)
      what = f"pinv {shape} {dtype.__name__}"
      t = lambda y: np.swapaxes(y, -1, -2)  # noqa: E731
      cond = np.linalg.cond(a64).max()
      small((a64 @ x @ a64 - a64) / cond, dtype, what + " A X A = A")
      small((x @ a64 @ x - x) / cond, dtype, what + " X A X = X")
      small((a64 @ x - t(a64 @ x)) / cond, dtype, what + " A X symmetric")
      small((x @ a64 - t(x @ a64)) / cond, dtype, what + " X A symmetric")


def lstsq():
  require_ours()
  for dtype in (np.float32, np.float64):
    # The normal equations A^T (A x - b) = 0 (backward-stable scale
    # ||A||^2 ||x||), and numpy's float64 solution (the minimum-norm one when
    # underdetermined). One and two right-hand sides.
    for (m, n) in ((8, 3), (3, 6), (40, 20)):
      for rhs in ((m,), (m, 2)):
        a = rng.standard_normal((m, n)).astype(dtype)
        b = rng.standard_normal(rhs).astype(dtype)
        x, _, rank, sv = jax.jit(jnp.linalg.lstsq)(a, b)
        x, a64, b64 = np.asarray(x, np.float64), a.astype(np.float64), b.astype(np.float64)
        what = f"lstsq {m}x{n} b{rhs} {dtype.__name__}"
        want_x, _, want_rank, want_s = np.linalg.lstsq(a64, b64, rcond=None)
        assert int(rank) == want_rank, f"{what}: rank {int(rank)} != {want_rank}"
        close(sv, want_s, dtype, what + " s", float(want_s[0]))
        size = max(1.0, float(np.linalg.norm(want_x)))
        small(a64.T @ (a64 @ x - b64) / (float(want_s[0]) ** 2 * size), dtype,
              what + " A^T (A x - b)")
        cond = float(want_s[0] / want_s[-1])
        close(x, want_x, dtype, what + " x", cond * cond * size)


def matrix_rank():
  require_ours()
  for dtype in (np.float32, np.float64):
    # Rank 2 by construction, and full rank, batched: 3 x (40 x 30).
    a = (rng.standard_normal((3, 40, 2)) @ rng.standard_normal((3, 2, 30))).astype(dtype)
    r = np.asarray(jax.jit(jnp.linalg.matrix_rank)(a))
    assert np.all(r == 2), f"matrix_rank {dtype.__name__}: {r}, expected 2s"
    r = np.asarray(jax.jit(jnp.linalg.matrix_rank)(matrices((3, 40, 30), dtype)))
    assert np.all(r == 30), f"matrix_rank {dtype.__name__}: {r}, expected 30s"


def reflector_product(arr, taus, lower):
  """Q of sytrd's reflectors as LAPACK defines it (0-based): lower, Q = H(0)
  ... H(n-2), v = (0.., 1 at i+1, arr[i+2:, i]); upper, Q = H(n-2) ... H(0),
  v = (arr[:i, i+1], 1 at i, 0..); H(i) = I - tau_i v v^H."""
  n = arr.shape[-1]
  q = np.eye(n, dtype=np.complex128)
  order = range(n - 1) if lower else range(n - 2, -1, -1)
  for i in order:
    v = np.zeros(n, np.complex128)
    if lower:
      v[i + 1] = 1
      v[i + 2:] = arr[i + 2:, i]
    else:
      v[i] = 1
      v[:i] = arr[:i, i + 1]
    q = q @ (np.eye(n) - taus[i] * np.outer(v, np.conj(v)))
  return q


def tridiagonal():
  """lax.linalg.tridiagonal: Q^H A Q = T from the returned reflectors, and
  T's eigenvalues against numpy's of A."""
  require_ours()
  for dtype in (np.float32, np.float64, np.complex64):
    tol_dtype = np.float32 if dtype in (np.float32, np.complex64) else np.float64
    for lower in (True, False):
      for n in (6, 40):
        g = rng.standard_normal((2, n, n))
        if dtype == np.complex64:
          g = g + 1j * rng.standard_normal((2, n, n))
        a = (g + np.conj(np.swapaxes(g, -1, -2))).astype(dtype)
        arr, d, e, taus = jax.jit(lambda a: lax.linalg.tridiagonal(a, lower=lower))(a)
        arr, taus = np.asarray(arr, np.complex128), np.asarray(taus, np.complex128)
        d, e = np.asarray(d, np.float64), np.asarray(e, np.float64)
        what = f"tridiagonal n={n} lower={lower} {dtype.__name__}"
        for b in range(2):
          t = np.diag(d[b]) + np.diag(e[b], 1) + np.diag(e[b], -1)
          q = reflector_product(arr[b], taus[b], lower)
          a64 = a[b].astype(np.complex128)
          scale = max(1.0, float(np.max(np.abs(np.linalg.eigvalsh(a64)))))
          small((np.conj(q.T) @ a64 @ q - t) / scale, tol_dtype, what + " Q^H A Q - T")
          small(np.conj(q.T) @ q - np.eye(n), tol_dtype, what + " Q^H Q")
          close(np.linalg.eigvalsh(t), np.linalg.eigvalsh(a64), tol_dtype, what + " eig",
                scale)


def complex_matrices(shape, dtype):
  a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
  return a.astype(dtype)


def complex_decompositions():
  """lu, qr, solve, eigh and svd of complex64 / complex128 (the column-major
  copies are complex TTIR transposes), by the same residuals."""
  require_ours()
  real = {np.complex64: np.float32, np.complex128: np.float64}
  h_ = lambda y: np.conj(np.swapaxes(y, -1, -2))  # noqa: E731
  for dtype in (np.complex64, np.complex128):
    tol_dtype = real[dtype]
    name = dtype.__name__
    a = complex_matrices((3, 5, 5), dtype) + 5 * np.eye(5, dtype=dtype)
    a64 = a.astype(np.complex128)
    lu_, _, perm = jax.jit(lax.linalg.lu)(a)
    lu_, perm = np.asarray(lu_, np.complex128), np.asarray(perm)
    l, u = np.tril(lu_, -1) + np.eye(5), np.triu(lu_)
    pa = np.take_along_axis(a64, perm[..., :, None], axis=-2)
    small(l @ u - pa, tol_dtype, f"lu {name}")
    b = complex_matrices((3, 5, 2), dtype)
    x = np.asarray(jax.jit(jnp.linalg.solve)(a, b), np.complex128)
    small(a64 @ x - b, tol_dtype, f"solve {name}")
    m = complex_matrices((2, 6, 4), dtype)
    q, r = jax.jit(jnp.linalg.qr)(m)
    q, r = np.asarray(q, np.complex128), np.asarray(r, np.complex128)
    small(h_(q) @ q - np.eye(4), tol_dtype, f"qr Q^H Q {name}")
    small(q @ r - m, tol_dtype, f"qr Q R {name}")
    for n in (5, 40):
      g = complex_matrices((2, n, n), dtype)
      herm = (g + h_(g)).astype(dtype)
      w, v = jax.jit(jnp.linalg.eigh)(herm)
      w, v, h64 = np.asarray(w, np.float64), np.asarray(v, np.complex128), herm.astype(
          np.complex128)
      scale = max(1.0, float(np.max(np.abs(w))))
      what = f"eigh n={n} {name}"
      small((h64 @ v - v * w[..., None, :]) / scale, tol_dtype, what + " A V - V w")
      small(h_(v) @ v - np.eye(n), tol_dtype, what + " V^H V")
      close(w, np.linalg.eigvalsh(h64), tol_dtype, what + " w", scale)
    for shape, full in (((2, 6, 4), True), ((2, 4, 6), False), ((40, 36), False)):
      m = complex_matrices(shape, dtype)
      m64 = m.astype(np.complex128)
      k = min(shape[-2:])
      u, s, vh = jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=full))(m)
      u, s, vh = np.asarray(u, np.complex128), np.asarray(s, np.float64), np.asarray(
          vh, np.complex128)
      want_s = np.linalg.svd(m64, compute_uv=False)
      scale = float(np.max(want_s))
      what = f"svd {shape} full={full} {name}"
      small(((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :] - m64) / scale, tol_dtype,
            what + " U S V^H - A")
      small(h_(u) @ u - np.eye(u.shape[-1]), tol_dtype, what + " U^H U")
      small(vh @ h_(vh) - np.eye(vh.shape[-2]), tol_dtype, what + " V^H V")
      close(s, want_s, tol_dtype, what + " s", scale)


def check_svd(u, s, vh, a, full, tol_dtype, what, t=1.0):
  """U (m x m | k), s descending, V^H (n | k x n) of a: shapes, orthonormal
  factors, U S V^H = A, and s against numpy's float64 LAPACK."""
  a64 = a.astype(np.complex128)
  m, n = a.shape[-2:]
  k = min(m, n)
  h_ = lambda y: np.conj(np.swapaxes(y, -1, -2))  # noqa: E731
  u, s, vh = np.asarray(u, np.complex128), np.asarray(s, np.float64), np.asarray(
      vh, np.complex128)
  assert u.shape == a.shape[:-2] + (m, m if full else k), f"{what}: U {u.shape}"
  assert vh.shape == a.shape[:-2] + (n if full else k, n), f"{what}: Vh {vh.shape}"
  assert np.all(np.diff(s, axis=-1) <= 0), f"{what}: not descending"
  assert np.all(s >= 0), f"{what}: negative singular value"
  want_s = np.linalg.svd(a64, compute_uv=False)
  scale = float(np.max(want_s))
  rebuilt = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
  small((rebuilt - a64) / (scale * t), tol_dtype, what + " U S V^H - A")
  small((h_(u) @ u - np.eye(u.shape[-1])) / t, tol_dtype, what + " U^H U")
  small((vh @ h_(vh) - np.eye(vh.shape[-2])) / t, tol_dtype, what + " V^H V")
  close(s, want_s, tol_dtype, what + " s", scale * t)


def svd_gesvd():
  """Above 1024 in a dim JAX's default svd is cusolver_gesvd_ffi (QR
  iteration): a tall matrix goes to it column-major, a wide one as its
  transpose (`transposed`, u and vt swapped); also compute_uv=False (u and
  vt scalars), complex64, and pinv / matrix_rank, which use it too."""
  require_ours()
  for shape in ((1100, 1030), (1030, 1100)):
    a = rng.standard_normal(shape).astype(np.float32)
    t = svd_tol_scale(min(shape))
    for full in (True, False):
      u, s, vh = jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=full))(a)
      check_svd(u, s, vh, a, full, np.float32, f"gesvd svd {shape} full={full}", t)
    s = jax.jit(lambda a: jnp.linalg.svd(a, compute_uv=False))(a)
    want_s = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    close(s, want_s, np.float32, f"gesvd svd {shape} compute_uv=False",
          float(want_s[0]) * t)
  a = complex_matrices((1100, 1025), np.complex64)
  u, s, vh = jax.jit(lambda a: jnp.linalg.svd(a, full_matrices=False))(a)
  check_svd(u, s, vh, a, False, np.float32, "gesvd svd (1100, 1025) complex64",
            svd_tol_scale(1025))
  # Rank 7 by construction, 1030 x 1100 (wide: the transposed call).
  low = (rng.standard_normal((1030, 7)) @ rng.standard_normal((7, 1100))).astype(np.float32)
  r = int(jax.jit(jnp.linalg.matrix_rank)(low))
  assert r == 7, f"gesvd matrix_rank: {r}, expected 7"
  # pinv of a tall f64 matrix: the Moore-Penrose conditions.
  a64 = rng.standard_normal((1100, 1030))
  x = np.asarray(jax.jit(jnp.linalg.pinv)(a64), np.float64)
  cond = np.linalg.cond(a64)
  small((a64 @ x @ a64 - a64) / cond, np.float64, "gesvd pinv A X A = A")
  small((x @ a64 @ x - x) / cond, np.float64, "gesvd pinv X A X = X")


def svd_algorithms():
  """lax.linalg.svd with algorithm=QR (cusolver_gesvd_ffi at any size) and
  POLAR (cusolver_gesvdp_ffi) on small matrices, real and complex, tall and
  wide, batched."""
  require_ours()
  real = {np.float32: np.float32, np.float64: np.float64, np.complex64: np.float32,
          np.complex128: np.float64}
  qr_cases = (((6, 4), np.float32, True), ((2, 5, 7), np.float64, False),
              ((3, 3), np.float64, True), ((2, 6, 4), np.complex64, False),
              ((4, 6), np.complex128, True))
  # POLAR's full U (V) of a tall (wide) matrix has columns for the zero
  # singular values the polar method does not promise to make unitary, so
  # full factors are asked of square matrices only.
  polar_cases = (((6, 6), np.float32, True), ((2, 8, 5), np.float64, False),
                 ((4, 9), np.float64, False), ((2, 5, 3), np.complex64, False),
                 ((5, 5), np.complex128, True))
  for algorithm, cases in ((lax.linalg.SvdAlgorithm.QR, qr_cases),
                           (lax.linalg.SvdAlgorithm.POLAR, polar_cases)):
    for shape, dtype, full in cases:
      if np.issubdtype(dtype, np.complexfloating):
        a = complex_matrices(shape, dtype)
      else:
        a = rng.standard_normal(shape).astype(dtype)
      f = jax.jit(lambda a: lax.linalg.svd(a, full_matrices=full, algorithm=algorithm))
      u, s, vh = f(a)
      what = f"svd {algorithm.name} {shape} full={full} {dtype.__name__}"
      check_svd(u, s, vh, a, full, real[dtype], what)
      g = jax.jit(lambda a: lax.linalg.svd(a, compute_uv=False, algorithm=algorithm))
      want_s = np.linalg.svd(a.astype(np.complex128), compute_uv=False)
      close(g(a), want_s, real[dtype], what + " compute_uv=False", float(np.max(want_s)))


def lowers_to(f, args, target):
  """Whether JAX's lowering of f(*args) for this backend calls `target`."""
  return target in jax.jit(f).lower(*args).as_text()


def match_eigenvalues(got, want):
  """The largest distance from each of `want` (one item) to its own nearest
  of `got`, each of `got` used once: eigenvalues come in no set order."""
  left = list(got)
  worst = 0.0
  for w in sorted(want, key=lambda z: (round(z.real, 6), round(z.imag, 6))):
    i = int(np.argmin([abs(g - w) for g in left]))
    worst = max(worst, abs(left[i] - w))
    left.pop(i)
  return worst


def eig():
  """jnp.linalg.eig / eigvals through cusolver_geev_ffi (JAX picks it on CUDA
  when its cuSOLVER is 11.7.1 or newer): A V = V diag(w) and unit columns in
  float64 numpy, w against np.linalg.eigvals (matched one to one), real
  (conjugate pairs unpacked by JAX from the packed vectors) and complex
  input, batched, f32 / f64 / complex64 / complex128."""
  require_ours()
  probe = np.eye(3, dtype=np.float32)
  if not lowers_to(jnp.linalg.eig, (probe,), "cusolver_geev_ffi"):
    h.skip("JAX does not lower eig to cusolver_geev_ffi here (its cuSOLVER is older "
           "than 11.7.1): it would call its host kernel, which fl_only refuses")
  complex_of = {np.float32: np.complex64, np.float64: np.complex128,
                np.complex64: np.complex64, np.complex128: np.complex128}
  real = {np.float32: np.float32, np.float64: np.float64, np.complex64: np.float32,
          np.complex128: np.float64}
  cases = (((5, 5), np.float32), ((3, 6, 6), np.float32), ((2, 7, 7), np.float64),
           ((40, 40), np.float64), ((4, 4), np.complex64), ((2, 5, 5), np.complex128),
           ((1, 1), np.float32))
  for shape, dtype in cases:
    if np.issubdtype(dtype, np.complexfloating):
      a = complex_matrices(shape, dtype)
    else:
      a = rng.standard_normal(shape).astype(dtype)
    what = f"eig {shape} {dtype.__name__}"
    w, v = jax.jit(jnp.linalg.eig)(a)
    assert w.dtype == complex_of[dtype] and v.dtype == complex_of[dtype], (
        f"{what}: dtypes {w.dtype}, {v.dtype}")
    assert w.shape == shape[:-1] and v.shape == shape, f"{what}: {w.shape} {v.shape}"
    w, v = np.asarray(w, np.complex128), np.asarray(v, np.complex128)
    a64 = a.astype(np.complex128)
    want = np.linalg.eigvals(a64)
    scale = max(1.0, float(np.max(np.abs(want))))
    tol_dtype = real[dtype]
    small((a64 @ v - v * w[..., None, :]) / scale, tol_dtype, what + " A V - V w")
    small(np.linalg.norm(v, axis=-2) - 1.0, tol_dtype, what + " |v| - 1")
    flat_w, flat_want = w.reshape(-1, shape[-1]), want.reshape(-1, shape[-1])
    worst = max(match_eigenvalues(g, x) for g, x in zip(flat_w, flat_want))
    # Eigenvalues of a non-normal matrix are less well conditioned than the
    # residual: a tenth of the tolerance's strictness.
    small(np.array([worst / (10 * scale)]), tol_dtype, what + " w vs numpy")
    # eigvals: the same call without vectors.
    only = np.asarray(jax.jit(jnp.linalg.eigvals)(a), np.complex128)
    assert only.shape == shape[:-1], f"{what}: eigvals shape {only.shape}"
    worst = max(match_eigenvalues(g, x) for g, x in
                zip(only.reshape(-1, shape[-1]), flat_want))
    small(np.array([worst / (10 * scale)]), tol_dtype, what + " eigvals vs numpy")
  # Known: rows [2 0 0; 0 3 -4; 0 4 3] has 2 and 3 +- 4i.
  known = np.array([[2, 0, 0], [0, 3, -4], [0, 4, 3]], np.float64)
  w, v = jax.jit(jnp.linalg.eig)(known)
  w, v = np.asarray(w), np.asarray(v)
  small(np.array([match_eigenvalues(w, np.array([2, 3 + 4j, 3 - 4j]))]), np.float64,
        "eig of a known matrix")
  small(known @ v - v * w[None, :], np.float64, "eig of a known matrix A V - V w")


def qr_multiply():
  """jax.scipy.linalg.qr_multiply (geqrf, then cusolver_ormqr_ffi): Q c and
  c Q, conjugated or not, against Q = A[:, :k] R[:k, :k]^-1 from the R the
  same call returns (so no sign convention is assumed), tall, square and
  wide, batched, f32 / f64 / complex64 / complex128; and lax.linalg.ormqr
  with each side and transpose against the Q of jnp.linalg.qr(mode='raw')."""
  require_ours()
  import jax.scipy.linalg as jsl
  real = {np.float32: np.float32, np.float64: np.float64, np.complex64: np.float32,
          np.complex128: np.float64}
  probe = np.eye(3, dtype=np.float32)
  assert lowers_to(lambda a, c: jsl.qr_multiply(a, c), (probe, probe),
                   "cusolver_ormqr_ffi"), "qr_multiply does not lower to cusolver_ormqr_ffi"
  cases = (((6, 4), np.float32, "left", False), ((6, 4), np.float32, "right", False),
           ((2, 5, 5), np.float64, "left", True), ((4, 6), np.complex64, "right", True),
           ((2, 6, 4), np.complex128, "left", True), ((3, 5), np.float64, "right", False),
           ((2, 4, 4), np.complex64, "left", False))
  for shape, dtype, mode, conjugate in cases:
    if np.issubdtype(dtype, np.complexfloating):
      a = complex_matrices(shape, dtype) + 3 * np.eye(*shape[-2:], dtype=dtype)
      mk = complex_matrices
    else:
      a = matrices(shape, dtype)
      mk = lambda s, d: rng.standard_normal(s).astype(d)  # noqa: E731
    m, n = shape[-2:]
    k = min(m, n)
    c = mk(shape[:-2] + ((k, 3) if mode == "left" else (3, m)), dtype)
    what = f"qr_multiply {shape} {mode} conjugate={conjugate} {dtype.__name__}"
    f = jax.jit(lambda a, c: jsl.qr_multiply(a, c, mode=mode, conjugate=conjugate))
    cq, r = f(a, c)
    cq, r = np.asarray(cq, np.complex128), np.asarray(r, np.complex128)
    a64, c64 = a.astype(np.complex128), c.astype(np.complex128)
    q = a64[..., :, :k] @ np.linalg.inv(r[..., :, :k])
    if conjugate:
      q = np.conj(q)
    want = q @ c64 if mode == "left" else (c64 @ q)[..., :, :k]
    assert cq.shape == want.shape, f"{what}: shape {cq.shape}, expected {want.shape}"
    small(cq - want, real[dtype], what)
  # lax.linalg.ormqr itself: h.mT and taus of qr(mode='raw') are geqrf's
  # reflectors; Q from jnp.linalg.qr(mode='complete') of the same matrix.
  for dtype in (np.float32, np.complex128):
    for left in (True, False):
      for transpose in (False, True):
        shape = (2, 5, 3)
        a = (complex_matrices(shape, dtype) if np.issubdtype(dtype, np.complexfloating)
             else rng.standard_normal(shape).astype(dtype))
        c = (complex_matrices((2, 5, 4) if left else (2, 4, 5), dtype)
             if np.issubdtype(dtype, np.complexfloating)
             else rng.standard_normal((2, 5, 4) if left else (2, 4, 5)).astype(dtype))
        hh, taus = jax.jit(lambda a: jnp.linalg.qr(a, mode="raw"))(a)
        got = jax.jit(lambda hh, taus, c: lax.linalg.ormqr(
            jnp.swapaxes(hh, -1, -2), taus, c, left=left, transpose=transpose))(hh, taus, c)
        q = np.asarray(jax.jit(lambda a: jnp.linalg.qr(a, mode="complete")[0])(a),
                       np.complex128)
        if transpose:
          q = np.conj(np.swapaxes(q, -1, -2))
        c64 = c.astype(np.complex128)
        want = q @ c64 if left else c64 @ q
        small(np.asarray(got, np.complex128) - want, real[dtype],
              f"ormqr left={left} transpose={transpose} {dtype.__name__}")


def cholesky_update():
  """lax.linalg.cholesky_update (cu_cholesky_update_ffi): R'^T R' = R^T R +
  w w^T with R' upper triangular, f32 and f64."""
  require_ours()
  for dtype, n in ((np.float32, 6), (np.float64, 20)):
    a = matrices((n, n), dtype, spd=True).astype(np.float64)
    r = np.linalg.cholesky(a).T.astype(dtype)  # upper, A = R^T R
    w = rng.standard_normal(n).astype(dtype)
    got = np.asarray(jax.jit(lax.linalg.cholesky_update)(r, w), np.float64)
    r64, w64 = r.astype(np.float64), w.astype(np.float64)
    want = r64.T @ r64 + np.outer(w64, w64)
    below = float(np.max(np.abs(np.tril(got, -1))))
    assert below < 1e-4, f"cholesky_update: not upper triangular ({below:.3g})"
    small((got.T @ got - want) / n, dtype, f"cholesky_update n={n} {dtype.__name__}")


def symmetric_product():
  """lax.linalg.symmetric_product (cusolver_syrk_ffi, rewritten by
  passes/syrk_expand into a product and a masked epilogue): the lower
  triangle, diagonal included, is alpha A A^T + beta C, the strict upper
  one is C's (symmetrize_output=False) or the mirrored lower one (True);
  batched, f32 and f64, against float64 numpy. C keeps its value (the call
  aliases it to the result). beta = 0 does not read C (BLAS), so NaN there
  stays out of the lower triangle. JAX accepts real floats only: complex64
  is checked to be refused by JAX itself, or, should it be accepted, by the
  same formula without conjugation."""
  require_ours()
  probe = np.eye(3, dtype=np.float32)
  assert lowers_to(lambda a, c: lax.linalg.symmetric_product(a, c), (probe, probe),
                   "cusolver_syrk_ffi"), "symmetric_product does not lower to cusolver_syrk_ffi"
  t = lambda y: np.swapaxes(y, -1, -2)  # noqa: E731
  alpha, beta = 2.5, -0.75
  for dtype in (np.float32, np.float64):
    for a_shape in ((5, 3), (3, 4, 6), (40, 33)):
      a = rng.standard_normal(a_shape).astype(dtype)
      m = a_shape[-2]
      c = rng.standard_normal(a_shape[:-1] + (m,)).astype(dtype)
      a64, c64 = a.astype(np.float64), c.astype(np.float64)
      want = alpha * (a64 @ t(a64)) + beta * c64
      scale = max(1.0, float(np.max(np.abs(want))))
      c_dev = jnp.asarray(c)
      for sym in (False, True):
        what = f"symmetric_product {a_shape} symmetrize={sym} {dtype.__name__}"
        f = jax.jit(lambda a, c: lax.linalg.symmetric_product(
            a, c, alpha=alpha, beta=beta, symmetrize_output=sym))
        got = np.asarray(f(a, c_dev), np.float64)
        assert got.shape == c.shape, f"{what}: shape {got.shape}, expected {c.shape}"
        close(np.tril(got), np.tril(want), dtype, what + " lower", scale)
        upper = np.triu(got, 1)
        if sym:
          close(upper, t(np.tril(got, -1)), dtype, what + " upper = lower^T", scale)
          close(upper, np.triu(t(want), 1), dtype, what + " upper", scale)
        else:
          assert np.array_equal(upper, np.triu(c64, 1)), f"{what}: upper is not c's"
      assert np.array_equal(np.asarray(c_dev), c), "symmetric_product changed its c operand"
  # beta = 0: c is not read (BLAS), so its NaNs stay out of the lower triangle.
  a = rng.standard_normal((2, 4, 3)).astype(np.float32)
  c = np.full((2, 4, 4), np.nan, np.float32)
  got = np.asarray(jax.jit(lambda a, c: lax.linalg.symmetric_product(
      a, c, alpha=1.5, beta=0.0))(a, c), np.float64)
  a64 = a.astype(np.float64)
  close(np.tril(got), np.tril(1.5 * (a64 @ t(a64))), np.float32,
        "symmetric_product beta=0 lower", 10.0)
  # Only the strict upper triangle: np.triu zeroes the rest, which is not NaN.
  rows, cols = np.triu_indices(got.shape[-1], 1)
  assert np.all(np.isnan(got[..., rows, cols])), "symmetric_product beta=0: upper is not c's NaN"
  # complex64: refused by JAX's dtype rule (real floats only), or, if a
  # later JAX accepts it, symmetric (no conjugate) like cuBLAS csyrk.
  a = complex_matrices((3, 2), np.complex64)
  c = complex_matrices((3, 3), np.complex64)
  try:
    got = jax.jit(lambda a, c: lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5))(a, c)
  except TypeError:
    return
  a128, c128 = a.astype(np.complex128), c.astype(np.complex128)
  want = 2.0 * (a128 @ t(a128)) + 0.5 * c128
  small(np.tril(np.asarray(got, np.complex128) - want), np.float32,
        "symmetric_product complex64 lower")


h.check("linalg_lu", lu)
h.check("linalg_solve", solve)
h.check("linalg_cholesky", cholesky)
h.check("linalg_qr", qr)
h.check("linalg_triangular_solve", triangular_solve)
h.check("linalg_eigh", eigh)
h.check("linalg_svd", svd)
h.check("linalg_pinv", pinv)
h.check("linalg_lstsq", lstsq)
h.check("linalg_matrix_rank", matrix_rank)
h.check("linalg_complex", complex_decompositions)
h.check("linalg_tridiagonal", tridiagonal)
h.check("linalg_svd_gesvd", svd_gesvd)
h.check("linalg_svd_algorithms", svd_algorithms)
h.check("linalg_eig", eig)
h.check("linalg_qr_multiply", qr_multiply)
h.check("linalg_cholesky_update", cholesky_update)
h.check("linalg_symmetric_product", symmetric_product)
h.finish()
