"""The StableHLO ops JAX users hit, jitted through the plugin, against numpy.

Each case runs a jitted JAX function on our device (run with XLA_MODE=fl_only
so nothing falls back to upstream XLA) and compares it with a numpy reference
computed in float64 (or exact integer arithmetic) from the op's definition:
pooling (max/avg reduce_window with padding, strides and dilations), the
max-pool gradient (select_and_scatter) and the average-pool gradient (a
base-dilated reduce_window), complex arithmetic, the complex functions
(sqrt, rsqrt, exp, expm1, log, log1p, tanh, tan, sin, cos, logistic, sign,
power), reductions (sum, mean, prod, cumsum, cumprod) and scatter-add/set,
atan2, power,
remainder, both roundings, popcnt, clz, is_finite, erf/erf_inv and the
inverse trigonometric/hyperbolic functions, cumsum/cummax, sort/top_k and
gather/scatter, over shapes and dtypes with edge values (NaN, +-inf, -0,
denormals, integer overflow, empty arrays).

Tolerances, per element, |ours - ref| <= rtol * |ref| + atol (atol = rtol for
results of order one), NaN positions equal, infinities equal:
  float32 2e-5 (transcendental functions 1e-5), float64 1e-12,
  bfloat16/float16 1e-2, integers and bool exact.

    XLA_MODE=fl_only PYTHONPATH=<plugin>:tests/gpu python3 tests/gpu/test_ops.py
One PASS/FAIL/SKIP line per case and a summary (pjrt_harness.py).
"""

from __future__ import annotations

import math
import os

import numpy as np

from pjrt_harness import check, finish, require_gpu_and_jax

RTOL = {"float32": 2e-5, "float64": 1e-12, "bfloat16": 1e-2, "float16": 1e-2,
        "complex64": 2e-5, "complex128": 1e-12}
rng = np.random.default_rng(0)


def dtype(name):
  import ml_dtypes
  return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


def compare(got, want, rtol=None, transcendental=False):
  got = np.asarray(got)
  want = np.asarray(want)
  if got.shape != want.shape:
    raise AssertionError(f"shape {got.shape} != {want.shape}")
  # A complex result of another width than the reference's is a different
  # computation (complex128 data truncated to complex64 when JAX runs
  # without jax_enable_x64), not a rounding difference.
  if (got.dtype.kind == "c" or want.dtype.kind == "c") and got.dtype != want.dtype:
    raise AssertionError(f"dtype {got.dtype} != {want.dtype}")
  kind = np.dtype(got.dtype).name
  if kind not in RTOL:  # integers and bool: exact
    bad = np.asarray(got != want.astype(got.dtype))
    if bad.any():
      i = int(np.flatnonzero(bad)[0])
      raise AssertionError(f"{int(bad.sum())} elements differ; first at {i}: "
                           f"ours {got.ravel()[i]!r} ref {want.ravel()[i]!r}")
    return
  tol = rtol if rtol is not None else RTOL[kind]
  if transcendental and kind == "float32":
    tol = min(tol, 1e-5)
  parts = [(got.real, want.real), (got.imag, want.imag)] if "complex" in kind else \
      [(got, want)]
  for g, w in parts:
    g = np.asarray(g, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    if not np.array_equal(np.isnan(g), np.isnan(w)):
      i = int(np.flatnonzero(np.isnan(g) != np.isnan(w))[0])
      raise AssertionError(f"NaN positions differ at {i}: ours {g.ravel()[i]!r} "
                           f"ref {w.ravel()[i]!r}")
    inf = np.isinf(w)
    if not np.array_equal(g[inf], w[inf]):
      raise AssertionError("infinities differ")
    ok = np.isnan(w) | inf | (np.abs(g - w) <= tol * np.abs(w) + tol)
    if not ok.all():
      i = int(np.flatnonzero(~ok)[0])
      raise AssertionError(f"{int((~ok).sum())} elements off; first at {i}: "
                           f"ours {g.ravel()[i]!r} ref {w.ravel()[i]!r} (rtol {tol:g})")


def run(fn, *args):
  import jax
  return np.asarray(jax.jit(fn)(*args))


def typed(value, like):
  """A scalar init value of `like`'s dtype (reduce_window wants one)."""
  import jax.numpy as jnp
  return jnp.array(value, dtype=like.dtype)


ONLY = tuple(filter(None, os.environ.get("OPS_ONLY", "").split(",")))


def case(name, fn, x64=False):
  """`x64`: run with jax_enable_x64, without which JAX turns complex128 and
  float64 arguments into complex64 and float32 (with only a warning), so a
  "complex128" case would test complex64. OPS_ONLY=prefix,... runs only the
  cases whose names start with one of the prefixes."""
  if ONLY and not name.startswith(ONLY):
    return
  if not x64:
    check(f"ops_{name}", fn)
    return

  def in_x64():
    import jax
    with jax.enable_x64(True):
      fn()
  check(f"ops_{name}", in_x64)


FLOAT_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.5, np.inf, -np.inf, np.nan, 1e-40,
               -1e-40, 1e30, -1e30, 65504.0, 1e-3]


def floats(shape, dt, edges=True, scale=3.0):
  x = rng.standard_normal(shape) * scale
  if edges and x.size:
    flat = x.reshape(-1)
    e = np.array(FLOAT_EDGES)
    flat[: min(len(e), flat.size)] = e[: min(len(e), flat.size)]
  return x.astype(dtype(dt))


# ---------------------------------------------------------------- pooling


def np_reduce_window(x, init, fn, window, strides, padding, base=None, wdil=None):
  """StableHLO reduce_window: pad (and base-dilate) with init, reduce windows."""
  x = np.asarray(x, dtype=np.float64 if x.dtype.kind == "f" or x.dtype.name == "bfloat16"
                 else x.dtype)
  rank = x.ndim
  base = base or (1,) * rank
  wdil = wdil or (1,) * rank
  dil = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
  full = [lo + n + hi for n, (lo, hi) in zip(dil, padding)]
  p = np.full(full, init, dtype=x.dtype)
  p[tuple(slice(lo, lo + n, b) for n, (lo, _), b in zip(dil, padding, base))] = x
  out = [max(0, (n - ((w - 1) * d + 1)) // s + 1) for n, w, s, d in
         zip(full, window, strides, wdil)]
  acc = np.full(out, init, dtype=x.dtype)
  for e in np.ndindex(*window):
    sl = tuple(slice(ei * d, ei * d + (o - 1) * s + 1, s) if o else slice(0, 0)
               for ei, d, o, s in zip(e, wdil, out, strides))
    acc = fn(acc, p[sl])
  return acc


def pooling_cases():
  from jax import lax

  for dt in ["float32", "bfloat16", "float16"]:
    def maxpool(dt=dt):
      x = floats((2, 9, 10, 3), dt)
      got = run(lambda a: lax.reduce_window(a, typed(-np.inf, a), lax.max, (1, 2, 2, 1),
                                            (1, 2, 2, 1), "VALID"), x)
      compare(got, np_reduce_window(x, -np.inf, np.maximum, (1, 2, 2, 1), (1, 2, 2, 1),
                                    [(0, 0)] * 4).astype(x.dtype))
    case(f"maxpool_2x2_s2_{dt}", maxpool)

  def maxpool_nan():  # max propagates NaN
    x = floats((4, 6), "float32", edges=False)
    x[1, 2] = np.nan
    got = run(lambda a: lax.reduce_window(a, typed(-np.inf, a), lax.max, (3, 3), (1, 1),
                                          "SAME"), x)
    compare(got, np_reduce_window(x, -np.inf, np.maximum, (3, 3), (1, 1),
                                  [(1, 1), (1, 1)]).astype(np.float32))
  case("maxpool_3x3_same_nan", maxpool_nan)

  def maxpool_int():
    x = rng.integers(-2**31, 2**31 - 1, (3, 11, 7), dtype=np.int32)
    lo = np.iinfo(np.int32).min
    got = run(lambda a: lax.reduce_window(a, typed(lo, a), lax.max, (1, 3, 3), (1, 2, 2),
                                          ((0, 0), (1, 1), (1, 1))), x)
    compare(got, np_reduce_window(x, lo, np.maximum, (1, 3, 3), (1, 2, 2),
                                  [(0, 0), (1, 1), (1, 1)]))
  case("maxpool_int32_padded", maxpool_int)

  for dt in ["float32", "bfloat16"]:
    def avgpool(dt=dt):
      x = floats((2, 8, 8, 4), dt, edges=False)
      pads = ((0, 0), (1, 1), (1, 1), (0, 0))
      got = run(lambda a: lax.reduce_window(a, typed(0, a), lax.add, (1, 3, 3, 1),
                                            (1, 1, 1, 1), pads) / 9, x)
      ref = np_reduce_window(x, 0.0, np.add, (1, 3, 3, 1), (1, 1, 1, 1), list(pads)) / 9
      compare(got, ref.astype(x.dtype))
    case(f"avgpool_3x3_same_{dt}", avgpool)

  def global_pool():  # a window of 256 elements: the looped form
    x = floats((4, 16, 16), "float32", edges=False)
    got = run(lambda a: lax.reduce_window(a, typed(0, a), lax.add, (1, 16, 16), (1, 1, 1),
                                          "VALID"), x)
    compare(got, x.astype(np.float64).sum(axis=(1, 2), keepdims=True).astype(np.float32))
  case("sumpool_16x16_looped", global_pool)

  def dilated():
    x = floats((13,), "float32", edges=False)
    got = run(lambda a: lax.reduce_window(a, typed(0, a), lax.add, (3,), (2,), ((2, 1),),
                                          base_dilation=(2,), window_dilation=(3,)), x)
    compare(got, np_reduce_window(x, 0.0, np.add, (3,), (2,), [(2, 1)], (2,), (3,))
            .astype(np.float32))
  case("sumpool_base_and_window_dilation", dilated)

  def empty():
    x = np.zeros((0, 4, 4), np.float32)
    got = run(lambda a: lax.reduce_window(a, typed(-np.inf, a), lax.max, (1, 2, 2),
                                          (1, 2, 2), "VALID"), x)
    compare(got, np.zeros((0, 2, 2), np.float32))
  case("maxpool_empty", empty)


def np_maxpool_grad(x, g, window, strides, padding):
  """select_and_scatter with GE: each window's first maximum (row-major over
  its non-padding elements) receives the window's cotangent."""
  out = np.zeros(x.shape, np.float64)
  for j in np.ndindex(*g.shape):
    best = None
    for e in np.ndindex(*window):
      p = tuple(jj * s + ee - lo for jj, s, ee, (lo, _) in zip(j, strides, e, padding))
      if any(q < 0 or q >= n for q, n in zip(p, x.shape)):
        continue
      if best is None or not x[best] >= x[p]:
        best = p
    if best is not None:
      out[best] += g[j]
  return out


def maxpool_grad_cases():
  import jax
  from jax import lax

  for (window, strides, pads, name) in [
      ((1, 2, 2, 1), (1, 2, 2, 1), ((0, 0),) * 4, "2x2_s2"),
      ((1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)), "3x3_s2_padded")]:
    for dt in ["float32", "bfloat16"]:
      def grad(window=window, strides=strides, pads=pads, dt=dt):
        # Small integers: ties, where the first maximum must win.
        x = rng.integers(-3, 4, (2, 7, 9, 2)).astype(dtype(dt))
        # A Python scalar init, as flax's max_pool passes: JAX recognises the max
        # monoid only then, and only that form has a derivative.
        pool = lambda a: lax.reduce_window(a, -np.inf, lax.max, window, strides, pads)
        y = np.asarray(jax.jit(pool)(x))
        g = rng.standard_normal(y.shape).astype(dtype(dt))
        got = run(lambda a, c: jax.vjp(pool, a)[1](c)[0], x, g)
        ref = np_maxpool_grad(x.astype(np.float64), g.astype(np.float64), window,
                              strides, pads)
        compare(got, ref.astype(x.dtype))
      case(f"maxpool_grad_{name}_{dt}", grad)


def avgpool_grad_cases():
  import jax
  from jax import lax

  def grad():
    # The transpose of a strided window sum is a reduce_window with base
    # dilation (the strides) over the padded cotangent.
    x = floats((2, 9, 9, 3), "float32", edges=False)
    window, strides = (1, 3, 3, 1), (1, 2, 2, 1)
    pads = ((0, 0), (1, 1), (1, 1), (0, 0))
    pool = lambda a: lax.reduce_window(a, 0.0, lax.add, window, strides, pads) / 9
    y = np.asarray(jax.jit(pool)(x))
    g = rng.standard_normal(y.shape).astype(np.float32)
    got = run(lambda a, c: jax.vjp(pool, a)[1](c)[0], x, g)
    ref = np.zeros(x.shape)
    for j in np.ndindex(*g.shape):
      for e in np.ndindex(*window):
        p = tuple(jj * s + ee - lo for jj, s, ee, (lo, _) in zip(j, strides, e, pads))
        if all(0 <= q < n for q, n in zip(p, x.shape)):
          ref[p] += g[j] / 9
    compare(got, ref.astype(np.float32))
  case("avgpool_grad_3x3_s2_padded", grad)


# ---------------------------------------------------------------- complex


def complexes(shape, dt):
  part = np.float32 if dt == "complex64" else np.float64
  z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
  edges = np.array([0, -1, -1 - 0j, 1j, -4 + 0j, 1e30 + 1e30j, 1e-30 + 2j, 3 - 4j],
                   dtype=dt)
  z.reshape(-1)[: len(edges)] = edges
  # -1 - 0j: the negative real axis from below (sqrt/log branch cut).
  z.reshape(-1)[2] = complex(-1.0, -0.0)
  return z.astype(dt), part


def xla_sqrt_reference(w):
  """np.sqrt as upstream computes jnp.sqrt of complex values. JAX does not
  send stablehlo.sqrt on complex: its serializer expands complex sqrt into
  real ops (StableHLO's complex-math expansion), which read a zero imaginary
  part as +0; upstream XLA, given the same program, agrees (measured on the
  H200, 2026-12-03: sqrt(-1 - 0j) = +1j and sqrt(2 - 0j) = 1.414 + 0j on
  both). So the reference is numpy's with -0 imaginary parts made +0."""
  w = np.array(w, dtype=np.complex128)
  zero = w.imag == 0
  w[zero] = w.real[zero] + 0j
  with np.errstate(all="ignore"):
    return np.sqrt(w)


def xla_log_reference(w):
  """np.log, except inf + NaN i (and NaN + inf i), where the expanded
  program JAX sends gives NaN + NaN i on upstream XLA as on ours (measured
  on the H200, 2026-12-03) and numpy gives inf + NaN i."""
  w = np.array(w, dtype=np.complex128)
  with np.errstate(all="ignore"):
    r = np.log(w)
  mixed = (np.isinf(w.real) & np.isnan(w.imag)) | (np.isnan(w.real) & np.isinf(w.imag))
  r[mixed] = complex(np.nan, np.nan)
  return r


def xla_log1p_reference(w):
  """np.log1p with the same exception as xla_log_reference: an infinite part
  with a NaN one (inf + NaN i, -inf + NaN i, NaN + inf i) gives NaN + NaN i
  on upstream XLA and on ours (measured on the H200, 2026-12-03), where numpy
  gives inf + NaN i."""
  w = np.array(w, dtype=np.complex128)
  with np.errstate(all="ignore"):
    r = np.log1p(w)
  mixed = (np.isinf(w.real) & np.isnan(w.imag)) | (np.isnan(w.real) & np.isinf(w.imag))
  r[mixed] = complex(np.nan, np.nan)
  return r


def complex_cases():
  import jax.numpy as jnp
  from jax import lax

  for dt in ["complex64", "complex128"]:
    def arith(dt=dt):
      x, _ = complexes((64,), dt)
      y, _ = complexes((64,), dt)
      y = np.roll(y, 3)  # edge values meet ordinary ones (1e30^2 overflows)
      y[y == 0] = 1 + 1j  # no division by zero
      with np.errstate(all="ignore"):
        for f, ref in [(lambda a, b: a + b, x + y), (lambda a, b: a - b, x - y),
                       (lambda a, b: a * b, x.astype(np.complex128) * y),
                       (lambda a, b: a / b, x.astype(np.complex128) / y),
                       (lambda a, b: -a, -x)]:
          compare(run(f, x, y), ref.astype(dt))
    case(f"complex_arith_{dt}", arith, x64=dt == "complex128")

    def funcs(dt=dt):
      x, part = complexes((64,), dt)
      x[0] = 1  # log(0) is -inf + 0i in numpy, a pole either way
      w = x.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.abs, x), np.abs(w).astype(part), transcendental=True)
        compare(run(jnp.sqrt, x), xla_sqrt_reference(w).astype(dt), transcendental=True)
        small = x.copy()
        small[np.abs(small) > 10] = 0.5 + 0.5j  # exp of 1e30 overflows both
        compare(run(jnp.exp, small), np.exp(small.astype(np.complex128)).astype(dt),
                transcendental=True)
        compare(run(jnp.log, x), xla_log_reference(w).astype(dt), transcendental=True)
    case(f"complex_functions_{dt}", funcs, x64=dt == "complex128")

    def parts(dt=dt):
      x, part = complexes((5, 7), dt)
      y = x.copy()
      y[0, :3] += 1
      compare(run(jnp.real, x), x.real.astype(part))
      compare(run(jnp.imag, x), x.imag.astype(part))
      compare(run(lambda a: lax.complex(jnp.real(a) * 2, jnp.imag(a)), x),
              (x.real * 2 + 1j * x.imag).astype(dt))
      compare(run(lambda a, b: a == b, x, y), x == y)
      compare(run(lambda a, b: a != b, x, y), x != y)
      other = "complex128" if dt == "complex64" else "complex64"
      compare(run(lambda a: a.astype(other), x), x.astype(other))
      r = floats((5, 7), "float32")
      compare(run(lambda a: a.astype(dt), r), r.astype(dt))
    case(f"complex_parts_compare_convert_{dt}", parts, x64=True)


def cx(re, im, dt):
  """A complex array from its parts (re + 1j * im would turn a NaN part into
  NaN + NaN i)."""
  out = np.empty(np.shape(re), dtype=dt)
  out.real = re
  out.imag = im
  return out


def with_edges(dt, extra, tame=False):
  """complexes((64,), dt) with `extra` (Python complex values) after its edges;
  `tame`: its 1e30 + 1e30i edge (which overflows exp) made 0.5 + 0.5i first."""
  x, part = complexes((64,), dt)
  if tame:
    x[np.abs(x) > 1e3] = 0.5 + 0.5j
  x[8:8 + len(extra)] = np.array(extra, dtype=np.complex128).astype(dt)
  return x, part


INF, NAN = math.inf, math.nan


def complex_function_cases():
  """The complex functions of codegen/ttir/complex_math.h through jnp, against
  numpy in complex128 (numpy's functions are C99's Annex G ones), at edge
  values: signed zeros, infinities, NaN, tiny and huge magnitudes. Where XLA
  and numpy differ (sign of an infinite z) the reference is XLA's definition,
  noted at the case."""
  import jax
  import jax.numpy as jnp
  from jax import lax

  for dt in ["complex64", "complex128"]:
    big = complex(1e38, 1e38) if dt == "complex64" else complex(1e308, 1e308)

    def roots(dt=dt, big=big):
      # sqrt: an infinite imaginary part gives inf + yi; near the top of the
      # range no overflow; a zero imaginary part's sign as upstream (see
      # xla_sqrt_reference).
      x, _ = with_edges(dt, [complex(0, INF), complex(-INF, 1), complex(INF, -1),
                             complex(NAN, 0), complex(0, NAN), complex(-0.0, 0.0),
                             complex(0.0, -0.0), complex(-4, -0.0), big])
      w = x.astype(np.complex128)
      with np.errstate(all="ignore"):
        got = run(jnp.sqrt, x)
        compare(got, xla_sqrt_reference(w).astype(dt), transcendental=True)
        # rsqrt = 1 / sqrt: 0 gives inf + NaN i as numpy's 1 / 0; 0 + inf i
        # (numpy: 1 / (inf + inf i) = NaN, XLA: signed zeros) is left out.
        y, _ = with_edges(dt, [0, complex(INF, 0), complex(-4, -0.0), complex(-INF, 1),
                               complex(NAN, 0), big, complex(0.25, 0)])
        compare(run(lax.rsqrt, y), (1 / np.sqrt(y.astype(np.complex128))).astype(dt),
                transcendental=True)
    case(f"complex_sqrt_rsqrt_edges_{dt}", roots, x64=dt == "complex128")

    def signed_zeros(dt=dt):
      # A -0 imaginary part, step by step: read back alone (load and store of
      # the part), through complex(real, imag), then sqrt (as upstream: the
      # zero's sign is not read) and log (atan2(-0, -1) = -pi).
      z = np.array([complex(-1, -0.0), complex(-4, -0.0), complex(-1, 0.0),
                    complex(2, -0.0)], dtype=np.complex128).astype(dt)
      im = run(jnp.imag, z)
      if list(np.signbit(im)) != [True, True, False, True]:
        raise AssertionError(f"imag lost the sign of a zero: {im!r}")
      c = run(lambda a: lax.complex(jnp.real(a), jnp.imag(a)), z)
      if list(np.signbit(c.imag)) != [True, True, False, True]:
        raise AssertionError(f"complex(real, imag) lost the sign of a zero: {c!r}")
      # sqrt: the program JAX sends reads a zero imaginary part as +0 (see
      # xla_sqrt_reference), upstream as ours.
      r = run(jnp.sqrt, z)
      if not (r.imag[0] == 1 and r.imag[1] == 2 and r.imag[2] == 1 and
              np.all(r.real[:3] == 0)):
        raise AssertionError(f"sqrt of (-1 - 0i, -4 - 0i, -1 + 0i, 2 - 0i) = {r!r}, "
                             "want upstream's (i, 2i, i, sqrt(2))")
      lg = run(jnp.log, z)
      if not (abs(lg.imag[0] + math.pi) < 1e-6 and abs(lg.imag[2] - math.pi) < 1e-6):
        raise AssertionError(f"log of (-1 - 0i, -1 + 0i) = {lg[[0, 2]]!r}, "
                             "want (-pi i, pi i)")
    case(f"complex_signed_zeros_{dt}", signed_zeros, x64=dt == "complex128")

    def exp_log(dt=dt):
      x, _ = with_edges(dt, [complex(INF, 0), complex(NAN, 0), complex(-INF, 1),
                             complex(-INF, 0), complex(0, INF), complex(INF, 1),
                             complex(1e-20, 1e-20), complex(-20, 3)], tame=True)
      w = x.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.exp, x), np.exp(w).astype(dt), transcendental=True)
        # expm1: (expm1(x) cos y - 2 sin^2(y/2)) + i e^x sin y, numpy's formula
        # too (expm1(inf + 0i) = inf + NaN i in both).
        compare(run(jnp.expm1, x), np.expm1(w).astype(dt), transcendental=True)
      y, _ = with_edges(dt, [0, complex(-0.0, 0), complex(INF, NAN), complex(1, 1e-8),
                             complex(0.6, 0.8), complex(-1, -0.0), complex(-INF, 1),
                             complex(0, NAN), complex(NAN, 0), complex(1e-20, 1e-20),
                             complex(-0.5, 0.8660254)])
      v = y.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.log, y), xla_log_reference(v).astype(dt), transcendental=True)
        compare(run(jnp.log1p, y), xla_log1p_reference(v).astype(dt), transcendental=True)
    case(f"complex_exp_expm1_log_log1p_edges_{dt}", exp_log, x64=dt == "complex128")

    def hyperbolic(dt=dt):
      # tanh: +-1 + 0i for a large real part (no inf / inf), C99's values at
      # x = 0 and y = 0; tan(z) = -i tanh(iz).
      x, _ = with_edges(dt, [complex(30, 1), complex(-400, 1), complex(INF, 1),
                             complex(-INF, INF), complex(0, INF), complex(NAN, 0),
                             complex(0, NAN), complex(1, INF), complex(1e-20, 1e-20),
                             complex(0.5, 1.5707963), complex(12, -2)])
      w = x.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.tanh, x), np.tanh(w).astype(dt), transcendental=True)
      y, _ = with_edges(dt, [complex(1, INF), complex(INF, 0), complex(NAN, 0),
                             complex(0, NAN), complex(1, 30), complex(1, -400),
                             complex(1.5707963, 0.5), complex(-2, 12)])
      v = y.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.tan, y), np.tan(v).astype(dt), transcendental=True)
    case(f"complex_tanh_tan_edges_{dt}", hyperbolic, x64=dt == "complex128")

    def trig(dt=dt):
      # JAX lowers complex sin/cos itself (real ops and expm1); finite values
      # only: its formula gives NaN + NaN i for sin(inf + 0i), numpy NaN + 0i.
      x, _ = complexes((64,), dt)
      x[8:12] = np.array([complex(-0.0, 3), complex(2, -0.0), complex(1e-20, 1e-20),
                          complex(0.5, -20)], dtype=np.complex128).astype(dt)
      w = x.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.sin, x), np.sin(w).astype(dt), transcendental=True)
        compare(run(jnp.cos, x), np.cos(w).astype(dt), transcendental=True)
        small = x.copy()
        small[np.abs(small) > 10] = 0.5 + 0.5j  # e^-z of 1e30 overflows
        compare(run(jax.nn.sigmoid, small),
                (1 / (1 + np.exp(-small.astype(np.complex128)))).astype(dt),
                transcendental=True)
    case(f"complex_sin_cos_logistic_{dt}", trig, x64=dt == "complex128")

    def sign(dt=dt):
      # sign(z) = z / |z| (0 for 0), XLA's definition and jnp.sign's
      # documented one; with an infinite part z / |z| is NaN there, as XLA
      # computes it (numpy's own sign may differ at infinities).
      x, part = with_edges(dt, [complex(INF, 0), complex(INF, INF), complex(NAN, 0),
                                complex(-0.0, 0), complex(1e-30, -1e-30),
                                complex(1e30, -3e30)])
      w = x.astype(np.complex128)
      with np.errstate(all="ignore"):
        r = np.abs(w)
        ref = cx(np.where(r == 0, 0, w.real / r), np.where(r == 0, 0, w.imag / r),
                 np.complex128)
        compare(run(jnp.sign, x), ref.astype(dt))
    case(f"complex_sign_{dt}", sign, x64=dt == "complex128")

    def power(dt=dt):
      # complex ** complex (stablehlo.power), z ** 2.5 (power with a real
      # exponent made complex) and z ** 3 (JAX's integer_pow: multiplies).
      # Moduli and exponents kept moderate: a part of z^w near 0 (cos q ~ 0)
      # has an absolute error of |z^w| ulp(q), compared with the part's
      # tolerance.
      z = (rng.uniform(0.5, 2, 64) * np.exp(1j * rng.uniform(-3, 3, 64))).astype(dt)
      e = (rng.uniform(-1.5, 1.5, 64) + 1j * rng.uniform(-0.5, 0.5, 64)).astype(dt)
      z[:4] = np.array([0, 0, 2 + 1j, -8], dtype=np.complex128).astype(dt)
      e[:4] = np.array([0, 2.5, 3, 1 / 3], dtype=np.complex128).astype(dt)
      a, b = z.astype(np.complex128), e.astype(np.complex128)
      with np.errstate(all="ignore"):
        compare(run(jnp.power, z, e), np.power(a, b).astype(dt), transcendental=True)
        z[3] = 1 - 1j  # (-8)^2.5 is 181i: its real part is all rounding
        a = z.astype(np.complex128)
        compare(run(lambda v: v ** 2.5, z), np.power(a, 2.5).astype(dt),
                transcendental=True)
        compare(run(lambda v: v ** 3, z), (a * a * a).astype(dt))
    case(f"complex_power_{dt}", power, x64=dt == "complex128")


def complex_reduction_cases():
  """jnp.sum / mean / prod of complex arrays over each axis, whole, along
  long rows (a loop) and a long column (split into partials), the dot-like
  sum(a * b) and norm, cumsum / cumprod (forward, reverse, long rows), and
  scatter-add / set, against numpy in complex128."""
  import jax.numpy as jnp

  for dt in ["complex64", "complex128"]:
    def sums(dt=dt):
      z, _ = complexes((8, 33), dt)
      z[np.abs(z) > 10] = 1 - 2j  # keep the sums of order one (1e30 edge)
      w = z.astype(np.complex128)
      for axis in [0, 1, None]:
        compare(run(lambda a, axis=axis: jnp.sum(a, axis=axis), z),
                w.sum(axis=axis).astype(dt))
        compare(run(lambda a, axis=axis: jnp.mean(a, axis=axis), z),
                w.mean(axis=axis).astype(dt))
      b, _ = complexes((8, 33), dt)
      b[np.abs(b) > 10] = 0.5j
      compare(run(lambda p, q: jnp.sum(p * q, axis=1), z, b),
              (w * b.astype(np.complex128)).sum(axis=1).astype(dt))
      compare(run(lambda p: jnp.linalg.norm(p, axis=1), z),
              np.linalg.norm(w, axis=1).astype(z.real.dtype))
      # var = mean(|z - mean(z)|^2): a complex mean read back by every
      # element of its row, then a real reduction.
      compare(run(lambda p: jnp.var(p, axis=1), z), np.var(w, axis=1).astype(z.real.dtype))
    case(f"complex_sum_mean_{dt}", sums, x64=dt == "complex128")

    def products(dt=dt):
      # Factors near the unit circle: products of 20 stay of order one.
      u = ((1 + 0.1 * rng.standard_normal((6, 20))) *
           np.exp(1j * rng.uniform(-3, 3, (6, 20)))).astype(dt)
      w = u.astype(np.complex128)
      compare(run(lambda a: jnp.prod(a, axis=1), u), w.prod(axis=1).astype(dt))
      compare(run(lambda a: jnp.prod(a, axis=0), u), w.prod(axis=0).astype(dt))
      v = u.reshape(-1)[:50]
      compare(run(jnp.prod, v), np.prod(v.astype(np.complex128)).astype(dt))
    case(f"complex_prod_{dt}", products, x64=dt == "complex128")

    def long(dt=dt):
      # Sums of 10^5 and 65536 terms of order one: rounding grows with the
      # length, hence the looser tolerances.
      single = dt == "complex64"
      rows = cx(rng.standard_normal((4, 100000)), rng.standard_normal((4, 100000)), dt)
      compare(run(lambda a: jnp.sum(a, axis=1), rows),
              rows.astype(np.complex128).sum(axis=1).astype(dt),
              rtol=2e-4 if single else 1e-10)
      col = cx(rng.standard_normal((65536, 64)), rng.standard_normal((65536, 64)), dt)
      compare(run(lambda a: jnp.sum(a, axis=0), col),
              col.astype(np.complex128).sum(axis=0).astype(dt),
              rtol=2e-4 if single else 1e-10)
      u = ((1 + 1e-4 * rng.standard_normal((2, 20000))) *
           np.exp(1j * rng.uniform(-3, 3, (2, 20000)))).astype(dt)
      compare(run(lambda a: jnp.prod(a, axis=1), u),
              u.astype(np.complex128).prod(axis=1).astype(dt),
              rtol=1e-3 if single else 1e-9)
    case(f"complex_long_sums_{dt}", long, x64=dt == "complex128")

    def cumulative(dt=dt):
      # cumsum / cumprod of complex values: the scan family carries (re, im).
      from jax import lax
      z, _ = complexes((6, 40), dt)
      z[np.abs(z) > 10] = 2 - 1j
      w = z.astype(np.complex128)
      compare(run(lambda a: jnp.cumsum(a, axis=1), z), np.cumsum(w, axis=1).astype(dt))
      compare(run(lambda a: jnp.cumsum(a, axis=0), z), np.cumsum(w, axis=0).astype(dt))
      compare(run(lambda a: lax.cumsum(a, axis=1, reverse=True), z),
              np.cumsum(w[:, ::-1], axis=1)[:, ::-1].astype(dt))
      u = ((1 + 0.05 * rng.standard_normal((4, 30))) *
           np.exp(1j * rng.uniform(-3, 3, (4, 30)))).astype(dt)
      compare(run(lambda a: jnp.cumprod(a, axis=1), u),
              np.cumprod(u.astype(np.complex128), axis=1).astype(dt))
      # A row longer than a tile: the running total carried across chunks.
      rows = cx(rng.standard_normal((3, 5000)), rng.standard_normal((3, 5000)), dt)
      compare(run(lambda a: jnp.cumsum(a, axis=1), rows),
              np.cumsum(rows.astype(np.complex128), axis=1).astype(dt),
              rtol=2e-4 if dt == "complex64" else 1e-10)
    case(f"complex_cumsum_cumprod_{dt}", cumulative, x64=dt == "complex128")

    def scatter(dt=dt):
      # x.at[i].add (two atomic adds per element, repeated rows collide) and
      # .set (unique rows) of complex values.
      x, _ = complexes((10, 3), dt)
      x[np.abs(x) > 10] = 1 + 1j
      rows = np.array([3, 0, 3, 9, 3, 5], np.int32)
      u = cx(rng.standard_normal((6, 3)), rng.standard_normal((6, 3)), dt)
      ref = x.astype(np.complex128)
      np.add.at(ref, rows, u.astype(np.complex128))
      compare(run(lambda a, i, v: a.at[i].add(v), x, rows, u), ref.astype(dt))
      uniq = np.array([7, 2, 5], np.int32)
      ref = x.copy()
      ref[uniq] = u[:3]
      compare(run(lambda a, i, v: a.at[i].set(v), x, uniq, u[:3]), ref)
    case(f"complex_scatter_add_set_{dt}", scatter, x64=dt == "complex128")


# ---------------------------------------------------------------- elementwise


def elementwise_cases():
  import jax.numpy as jnp
  from jax import lax

  for dt in ["float32", "bfloat16", "float16"]:
    def binary(dt=dt):
      x = floats((300,), dt)
      y = floats((300,), dt)
      y = np.roll(y, 5)
      a, b = x.astype(np.float64), y.astype(np.float64)
      with np.errstate(all="ignore"):
        compare(run(jnp.arctan2, x, y), np.arctan2(a, b).astype(x.dtype),
                transcendental=True)
        compare(run(lax.rem, x, y), np.fmod(a, b).astype(x.dtype))
        base = np.abs(a).astype(x.dtype)
        e = np.clip(b, -8, 8).astype(x.dtype)
        compare(run(lax.pow, base, e),
                np.power(base.astype(np.float64), e.astype(np.float64)).astype(x.dtype),
                transcendental=True)
    case(f"atan2_rem_pow_{dt}", binary)

    def rounding(dt=dt):
      x = floats((300,), dt)
      x[20:26] = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997]).astype(x.dtype)
      a = x.astype(np.float64)
      afz = np.where(np.isfinite(a), np.copysign(np.floor(np.abs(a) + 0.5), a), a)
      compare(run(lambda v: lax.round(v, lax.RoundingMethod.AWAY_FROM_ZERO), x),
              afz.astype(x.dtype))
      compare(run(lambda v: lax.round(v, lax.RoundingMethod.TO_NEAREST_EVEN), x),
              np.rint(a).astype(x.dtype))
      compare(run(jnp.isfinite, x), np.isfinite(a))
    case(f"round_isfinite_{dt}", rounding)

  import jax
  int_types = ["int8", "int32", "uint32"] + (["int64"] if jax.config.jax_enable_x64 else [])
  for dt in int_types:
    def bits(dt=dt):
      info = np.iinfo(dt)
      x = rng.integers(info.min, info.max, 200, dtype=dt, endpoint=True)
      x[:4] = np.array([0, -1 if info.min else info.max, info.min, info.max]).astype(dt)
      width = info.bits
      u = x.astype(np.uint64) & np.uint64((1 << width) - 1) if width < 64 else \
          x.view(np.uint64)
      pop = np.array([bin(int(v)).count("1") for v in u], dtype=dt)
      clz = np.array([width - int(v).bit_length() for v in u], dtype=dt)
      compare(run(lax.population_count, x), pop)
      compare(run(lax.clz, x), clz)
      y = rng.integers(info.min, info.max, 200, dtype=dt, endpoint=True)
      with np.errstate(all="ignore"):
        compare(run(lambda a, b: a + b, x, y), (x + y).astype(dt))  # wraps
        compare(run(lambda a, b: a * b, x, y), (x * y).astype(dt))
        e = rng.integers(0, 9, 200).astype(dt)
        # lax.pow takes float bases only; jnp.power of integers is JAX's
        # square-and-multiply loop.
        compare(run(jnp.power, x, e), np.power(x, e).astype(dt))
        d = np.where(y == 0, 1, y).astype(dt)
        if info.min:  # INT_MIN % -1 is 0 in StableHLO; numpy may trap
          d = np.where((x == info.min) & (d == -1), 1, d).astype(dt)
        compare(run(lax.rem, x, d), np.fmod(x, d).astype(dt))
    case(f"popcnt_clz_overflow_pow_rem_{dt}", bits)


def erfinv64(p):
  """erf^-1 by Newton's method on math.erf, in float64."""
  out = np.empty_like(p, dtype=np.float64)
  for i, v in enumerate(p.astype(np.float64).ravel()):
    if np.isnan(v) or abs(v) > 1:
      out.ravel()[i] = np.nan
      continue
    if abs(v) == 1:
      out.ravel()[i] = math.copysign(np.inf, v)
      continue
    y = 0.0
    for _ in range(100):
      step = (math.erf(y) - v) / (2 / math.sqrt(math.pi) * math.exp(-y * y))
      y -= step
      if abs(step) < 1e-17 * max(1.0, abs(y)):
        break
    out.ravel()[i] = y
  return out


def transcendental_cases():
  import jax.numpy as jnp
  from jax import lax

  unit = np.concatenate([np.linspace(-1, 1, 101), [-1.5, 1.5, np.nan, -0.0, 1e-40,
                                                    np.inf, -np.inf]])
  wide = np.concatenate([rng.standard_normal(100) * 5, [0.0, -0.0, 1.0, -1.0, np.nan,
                                                        np.inf, -np.inf, 1e-40, 80, -80]])
  above1 = np.concatenate([1 + np.abs(rng.standard_normal(100)) * 10, [1.0, 0.5, np.nan,
                                                                       np.inf]])
  table = [("erf", lax.erf, np.vectorize(math.erf, otypes=[float]), wide),
           ("erf_inv", lax.erf_inv, erfinv64, unit),
           ("acos", jnp.arccos, np.arccos, unit), ("asin", jnp.arcsin, np.arcsin, unit),
           ("atan", jnp.arctan, np.arctan, wide), ("atanh", jnp.arctanh, np.arctanh, unit),
           ("asinh", jnp.arcsinh, np.arcsinh, wide), ("acosh", jnp.arccosh, np.arccosh,
                                                      above1),
           ("cosh", jnp.cosh, np.cosh, wide), ("sinh", jnp.sinh, np.sinh, wide)]
  for name, f, ref, xs in table:
    for dt in ["float32", "bfloat16", "float16"]:
      def one(f=f, ref=ref, xs=xs, dt=dt):
        x = xs.astype(dtype(dt))
        with np.errstate(all="ignore"):
          want = ref(x.astype(np.float64))
        compare(run(f, x), np.asarray(want).astype(x.dtype), transcendental=True)
      case(f"{name}_{dt}", one)


# ---------------------------------------------------------------- indexing


def indexing_cases():
  import jax
  import jax.numpy as jnp
  from jax import lax

  for dt in ["float32", "int32"]:
    def scans(dt=dt):
      x = (floats((6, 50), dt, edges=False) if dt == "float32" else
           rng.integers(-2**31, 2**31 - 1, (6, 50), dtype=np.int32))
      with np.errstate(all="ignore"):
        ref = np.cumsum(x.astype(np.float64 if dt == "float32" else np.int32), axis=1)
      compare(run(lambda a: jnp.cumsum(a, axis=1), x), ref.astype(x.dtype))  # int wraps
      compare(run(lambda a: lax.cummax(a, axis=0), x), np.maximum.accumulate(x, axis=0))
      compare(run(lambda a: lax.cummax(a, axis=1, reverse=True), x),
              np.flip(np.maximum.accumulate(np.flip(x, 1), axis=1), 1))
      compare(run(lambda a: jnp.cumsum(a), np.zeros((0,), x.dtype)), np.zeros((0,), x.dtype))
    case(f"cumsum_cummax_{dt}", scans)

  def sorts():
    x = floats((5, 40), "float32")
    x[0, :6] = [np.nan, -0.0, 0.0, -np.inf, np.inf, np.nan]
    got = run(lambda a: jnp.sort(a, axis=1), x)
    # NaN last; -0.0 and 0.0 compare equal in value (the sort is stable).
    ref = np.sort(x, axis=1)
    compare(got, ref)
    xs = np.where(np.isnan(x), 0, x)
    v, i = (np.asarray(t) for t in jax.jit(lambda a: lax.top_k(a, 5))(xs))
    order = np.argsort(-xs, axis=1, kind="stable")[:, :5]
    compare(v, np.take_along_axis(xs, order, 1))
    compare(np.take_along_axis(xs, i, 1), np.take_along_axis(xs, order, 1))
    ints = rng.integers(-5, 5, (3, 64), dtype=np.int32)
    compare(run(lambda a: jnp.sort(a, axis=1), ints), np.sort(ints, axis=1))
  case("sort_top_k", sorts)

  def complex_sorts():
    # numpy orders complex values by real part, then imaginary part; ties
    # in the real part (and equal values) make the second key and the
    # stability of argsort matter.
    re = rng.integers(-3, 3, (4, 50)).astype(np.float32)
    im = rng.integers(-3, 3, (4, 50)).astype(np.float32)
    z = (re + 1j * im).astype(np.complex64)
    compare(run(lambda a: jnp.sort(a, axis=1), z), np.sort(z, axis=1))
    compare(run(lambda a: jnp.argsort(a, axis=1, stable=True), z),
            np.argsort(z, axis=1, kind="stable").astype(np.int32))
    # A long row goes through the merge passes.
    w = (rng.standard_normal(5000) + 1j * rng.integers(-2, 2, 5000)).astype(np.complex64)
    compare(run(jnp.sort, w), np.sort(w))
  case("sort_complex", complex_sorts)

  def gathers():
    t = floats((50, 8), "float32", edges=False)
    idx = rng.integers(-50, 50, 30).astype(np.int32)
    compare(run(lambda a, i: a[i], t, idx), t[idx])
    far = np.array([0, 49, 60, -70, 2**30], dtype=np.int32)
    compare(run(lambda a, i: jnp.take(a, i, axis=0, mode="clip"), t, far),
            t[np.clip(far, 0, 49)])
    x = np.zeros((10, 3), np.float32)
    rows = np.array([1, 3, 1, 9, 3, 3], np.int32)
    u = floats((6, 3), "float32", edges=False)
    ref = x.copy()
    np.add.at(ref, rows, u)
    compare(run(lambda a, i, v: a.at[i].add(v), x, rows, u), ref)
    ref = np.full((10, 3), -np.inf, np.float32)
    np.maximum.at(ref, rows, u)
    compare(run(lambda a, i, v: a.at[i].max(v), np.full((10, 3), -np.inf, np.float32),
                rows, u), ref)
    uniq = np.array([7, 2, 5], np.int32)
    ref = x.copy()
    ref[uniq] = u[:3]
    compare(run(lambda a, i, v: a.at[i].set(v), x, uniq, u[:3]), ref)
  case("gather_scatter", gathers)

  # 8/16-bit elements: the combiners with no atomic of their width swap the
  # 32-bit word holding the element, so neighbours in one word are updated
  # concurrently here (rows of 3 one- or two-byte elements, repeated rows)
  # and a hot spot takes 4096 updates. Products use powers of two so that any
  # order of the updates gives the same value.
  def narrow_scatters():
    rows = np.array([1, 3, 1, 9, 3, 3, 0, 0, 8], np.int32)
    for dt in ["float16", "bfloat16"]:
      x = floats((10, 3), dt, edges=False)
      u = floats((9, 3), dt, edges=False)
      for name, ufunc in (("max", np.maximum), ("min", np.minimum)):
        ref = x.copy()
        ufunc.at(ref, rows, u)
        compare(run(lambda a, i, v, n=name: getattr(a.at[i], n)(v), x, rows, u), ref)
      p2 = (2.0 ** rng.integers(-3, 4, (9, 3))).astype(dtype(dt))
      p2[::2] *= -1
      ref = x.copy()
      np.multiply.at(ref, rows, p2)
      compare(run(lambda a, i, v: a.at[i].multiply(v), x, rows, p2), ref)
    i8 = rng.integers(-128, 128, (10, 3)).astype(np.int8)
    d8 = rng.integers(-128, 128, (9, 3)).astype(np.int8)
    ref = i8.copy()
    np.add.at(ref, rows, d8)  # wraps, as int8 addition does
    compare(run(lambda a, i, v: a.at[i].add(v), i8, rows, d8), ref)
    u8 = rng.integers(0, 256, (10, 3)).astype(np.uint8)
    e8 = rng.integers(0, 256, (9, 3)).astype(np.uint8)
    ref = u8.copy()
    np.minimum.at(ref, rows, e8)
    compare(run(lambda a, i, v: a.at[i].min(v), u8, rows, e8), ref)
    i16 = rng.integers(-40, 40, (10, 3)).astype(np.int16)
    m16 = rng.integers(-3, 4, (9, 3)).astype(np.int16)
    ref = i16.copy()
    np.multiply.at(ref, rows, m16)
    compare(run(lambda a, i, v: a.at[i].multiply(v), i16, rows, m16), ref)
    b = rng.random((10, 3)) < 0.3
    c = rng.random((9, 3)) < 0.5
    ref = b.copy()
    np.logical_or.at(ref, rows, c)
    compare(run(lambda a, i, v: a.at[i].max(v), b, rows, c), ref)
    ref = b.copy()
    np.logical_and.at(ref, rows, c)
    compare(run(lambda a, i, v: a.at[i].min(v), b, rows, c), ref)
    hot = rng.integers(0, 6, 4096).astype(np.int32)
    ones = np.ones(4096, np.int8)
    ref = np.zeros(6, np.int8)
    np.add.at(ref, hot, ones)
    compare(run(lambda a, i, v: a.at[i].add(v), np.zeros(6, np.int8), hot, ones), ref)
    f16 = np.full(7, -np.inf, np.float16)
    vals = floats((4096,), "float16", edges=False)
    ref = f16.copy()
    np.maximum.at(ref, hot, vals)
    compare(run(lambda a, i, v: a.at[i].max(v), f16, hot, vals), ref)
  case("scatter_narrow_combiners", narrow_scatters)


def transposed_reduction_cases():
  """Sums over the logical minor axis of a transpose whose input is contiguous
  along a kept axis (bias gradients: g[tokens, features] transposed, summed over
  tokens; the attention heads' [tokens, heads, dim] the same): the column tile
  and its split, against numpy in float64."""
  import jax.numpy as jnp
  rng = np.random.default_rng(11)
  for shape, perm, axes, dt in [((4096, 2048), (1, 0), (1,), "float32"),
                                ((16, 256, 512), (2, 0, 1), (1, 2), "bfloat16"),
                                ((16, 256, 8, 64), (2, 3, 0, 1), (2, 3), "bfloat16"),
                                ((1000, 96), (1, 0), (1,), "float32")]:
    def fn(shape=shape, perm=perm, axes=axes, dt=dt):
      x = rng.standard_normal(shape).astype(dtype(dt))
      got = run(lambda a: jnp.sum(jnp.transpose(a, perm).astype(jnp.float32), axis=axes), x)
      want = np.transpose(x.astype(np.float64), perm).sum(axis=axes)
      compare(got, want.astype(np.float32), rtol=1e-4)
    case(f"transposed_sum_{'x'.join(map(str, shape))}_{dt}", fn)


def sum_and_summand_cases():
  """A reduction whose summand is also returned whole (a bias gradient next to
  the weight gradient's input): the full-size output is stored chunk by chunk
  inside the loop over the reduced extent, by the partials kernel when the
  reduction is split. Against numpy in float64."""
  import jax.numpy as jnp
  rng = np.random.default_rng(12)
  # shape, the reduced axes, the summand's transpose (None: none), its dtype,
  # whether the summand comes back reshaped (another shape of the full size).
  for shape, axes, perm, dt, reshaped in [((4096, 2048), (0,), None, "float32", False),
                                          ((16, 256, 2048), (0, 1), None, "bfloat16", False),
                                          ((2048, 4096), (1,), (1, 0), "bfloat16", False),
                                          ((8, 100000), (1,), None, "float32", True),
                                          ((300, 9000), (1,), None, "float32", False),
                                          ((1000, 96), (1,), None, "float32", True)]:
    def fn(shape=shape, axes=axes, perm=perm, dt=dt, reshaped=reshaped):
      x = rng.standard_normal(shape).astype(dtype(dt))
      w = rng.standard_normal(shape[-1]).astype(dtype(dt))

      def f(a, v):
        y = a * v
        t = jnp.transpose(y, perm) if perm else y
        s = jnp.sum(t.astype(jnp.float32), axis=axes)
        return s, (y.reshape(-1) if reshaped else y)

      got_sum, got_y = jax_run2(f, x, w)
      # One rounded product: exact in any evaluation order (x * w - x cancels
      # where w is near 1, and bfloat16 implementations round it differently).
      want_y = x * w
      if reshaped:
        want_y = want_y.reshape(-1)
      compare(got_y, want_y)
      # The sum of the summand as returned (bf16 rounding then is the same on
      # both sides), in float64.
      y64 = got_y.astype(np.float64).reshape(shape)
      t64 = np.transpose(y64, perm) if perm else y64
      compare(got_sum, t64.sum(axis=axes), rtol=1e-4)
    case(f"sum_and_summand_{'x'.join(map(str, shape))}_{dt}", fn)


def suite_class_cases():
  """Failure classes JAX's suite found: approx top-k (sort and slices), a
  complex scatter-multiply (gather, multiply, set), an empty convolution."""
  import jax.numpy as jnp
  from jax import lax

  def approx_top_k():
    x = floats((4, 300), "float32", edges=False)
    v, i = jax_run2(lambda a: lax.approx_max_k(a, 7), x)
    order = np.argsort(-x, axis=1, kind="stable")[:, :7]
    compare(v, np.take_along_axis(x, order, 1))
    compare(np.take_along_axis(x, i, 1), v)
    v, i = jax_run2(lambda a: lax.approx_min_k(a, 3, reduction_dimension=0), x)
    compare(v, np.sort(x, axis=0)[:3])
    compare(np.take_along_axis(x, i, 0), v)
  case("approx_top_k", approx_top_k)

  def complex_scatter_multiply():
    x = (rng.standard_normal((3, 13)) + 1j * rng.standard_normal((3, 13))).astype(np.complex64)
    y = (rng.standard_normal((3, 12)) + 1j * rng.standard_normal((3, 12))).astype(np.complex64)
    want = x.copy()
    want[:, 1:] *= y
    compare(run(lambda a, b: a.at[:, 1:].multiply(b), x, y), want)
  case("complex_scatter_multiply", complex_scatter_multiply)

  def empty_convolution():
    x = np.zeros((2, 0, 4, 4), np.float32)
    k = np.ones((4, 0, 1, 2), np.float32)
    got = run(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID"), x, k)
    compare(got, np.zeros((2, 4, 4, 3), np.float32))
  case("empty_convolution", empty_convolution)


def suite_class_cases_2():
  """Complex max and min (reduced by real and imaginary parts) against numpy's
  lexicographic order, and a float product asked for an int32 result (the
  float product, then a convert toward zero)."""
  import jax.numpy as jnp

  def complex_max_min():
    z = (rng.integers(-3, 4, (5, 7)) + 1j * rng.standard_normal((5, 7))).astype(np.complex64)
    for axis in [0, 1, None]:
      compare(run(lambda a, axis=axis: jnp.max(a, axis=axis), z), np.max(z, axis=axis))
      compare(run(lambda a, axis=axis: jnp.min(a, axis=axis), z), np.min(z, axis=axis))
  case("complex_max_min", complex_max_min)

  def float_product_int_result():
    x = rng.integers(-4, 5, (6, 5)).astype(np.float32) + 0.25
    y = rng.integers(-4, 5, (5, 3)).astype(np.float32)
    got = run(lambda a, b: jnp.einsum("ij,jk->ik", a, b,
                                      preferred_element_type=jnp.int32), x, y)
    assert got.dtype == np.int32, got.dtype
    compare(got, np.trunc(x.astype(np.float64) @ y).astype(np.int32))
  case("float_product_int_result", float_product_int_result)


def jax_run2(fn, *args):
  import jax
  return tuple(np.asarray(r) for r in jax.jit(fn)(*args))



def main() -> None:
  require_gpu_and_jax()
  if os.environ.get("XLA_MODE") != "fl_only":
    print("note: XLA_MODE is not fl_only; unsupported ops may fall back", flush=True)
  pooling_cases()
  maxpool_grad_cases()
  avgpool_grad_cases()
  complex_cases()
  complex_function_cases()
  complex_reduction_cases()
  elementwise_cases()
  transcendental_cases()
  indexing_cases()
  transposed_reduction_cases()
  sum_and_summand_cases()
  suite_class_cases()
  suite_class_cases_2()
  finish()


if __name__ == "__main__":
  main()
