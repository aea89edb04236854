"""JAX's GPU linear algebra through our solver route under XLA_MODE=fl_only:
lu, solve, cholesky, qr and triangular_solve (every side / triangle /
transpose), batched and not, f32 and f64, checked by what each result must
satisfy (P A = L U, A x = b, L L^T = A, Q R = A with Q^T Q = I, op(A) X = B)
in float64 numpy, not against another implementation."""

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


h.check("linalg_lu", lu)
h.check("linalg_solve", solve)
h.check("linalg_cholesky", cholesky)
h.check("linalg_qr", qr)
h.check("linalg_triangular_solve", triangular_solve)
h.finish()
