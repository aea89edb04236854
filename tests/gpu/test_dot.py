"""jax.lax.dot_general under our plugin (XLA_MODE=fl_only) against float64
numpy: the batch/contracting layouts JAX emits (transposed operands, several
contracting dims, batch dims that are not leading, size-1 dims, sizes that
are not multiples of 16, empty products), the element types f32, bf16, f16,
f64, complex64, complex128, int8 -> int32, int32 and float8_e4m3fn/e5m2 ->
f32, and the precisions DEFAULT, HIGH and HIGHEST.

The reference is np.einsum in float64 (complex128, or exact int64 for
integers) on the operands as the device holds them (bf16/f16/f8 inputs
upcast exactly). Tolerance, relative error norm |ours - ref| / |ref|:
  f32/complex64 HIGHEST 1e-5, DEFAULT and HIGH (TF32 products, as XLA
  chooses) 2e-3, bf16/f16 1e-2, f64/complex128 1e-12, f8 -> f32 1e-5
  (exact products, f32 sums), integers exact. TF32 products are also held
  to the rounding bound element by element: |ours - ref| <= 2^-9 * sum|a||b|
  (each operand rounded to 10 mantissa bits, error <= 2^-11 each, doubled
  for complex products), which a single-element result whose terms cancel
  meets where the norm ratio alone would not.
The route each product takes follows XLA_FLAGTREE_MATMUL (auto, library,
ttir) when the plugin knows it; the checks are the same for every route.
Skips without a GPU or JAX."""

import os

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)
P = jax.lax.Precision

DTYPES = {
    "float32": np.float32, "float64": np.float64, "float16": np.float16,
    "bfloat16": ml_dtypes.bfloat16, "complex64": np.complex64,
    "complex128": np.complex128, "int8": np.int8, "int32": np.int32,
    "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
}


def tolerance(dtype, precision):
  if dtype in ("float64", "complex128"):
    return 1e-12
  if dtype in ("float32", "complex64"):
    return 1e-5 if precision == P.HIGHEST else 2e-3
  if dtype.startswith("float8"):
    return 1e-5
  return 1e-2


def random_operand(shape, dtype):
  if dtype in ("int8", "int32"):
    # int32 values kept small enough that sums stay exact in int32.
    hi = 128 if dtype == "int8" else 1000
    return rng.integers(-hi, hi, size=shape).astype(DTYPES[dtype])
  x = rng.standard_normal(shape)
  if "complex" in dtype:
    x = x + 1j * rng.standard_normal(shape)
  return x.astype(DTYPES[dtype])


def einsum_spec(lhs_rank, rhs_rank, dims):
  """The einsum subscripts of dot_general's definition: result is batch
  dims, then lhs free dims, then rhs free dims, each in operand order."""
  (lc, rc), (lb, rb) = dims
  letters = iter("abcdefghijklmnopqrstuvwxyz")
  lhs = [None] * lhs_rank
  rhs = [None] * rhs_rank
  for l, r in zip(lb, rb):
    lhs[l] = rhs[r] = next(letters)
  for l, r in zip(lc, rc):
    lhs[l] = rhs[r] = next(letters)
  for s in (lhs, rhs):
    for i, v in enumerate(s):
      if v is None:
        s[i] = next(letters)
  out = [lhs[i] for i in lb]
  out += [lhs[i] for i in range(lhs_rank) if i not in lb and i not in lc]
  out += [rhs[i] for i in range(rhs_rank) if i not in rb and i not in rc]
  return "".join(lhs) + "," + "".join(rhs) + "->" + "".join(out)


def reference(a, b, dims, dtype):
  spec = einsum_spec(a.ndim, b.ndim, dims)
  if dtype in ("int8", "int32"):
    return np.einsum(spec, a.astype(np.int64), b.astype(np.int64))
  wide = np.complex128 if "complex" in dtype else np.float64
  return np.einsum(spec, a.astype(wide), b.astype(wide))


def tf32_bound(a, b, dims, dtype):
  """The per-element rounding bound of TF32 products (see the docstring)."""
  spec = einsum_spec(a.ndim, b.ndim, dims)
  absprod = np.einsum(spec, np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))
  return (2.0 ** -8 if "complex" in dtype else 2.0 ** -9) * absprod


def compare(got, want, tol, bound=None):
  got = np.asarray(got)
  if got.shape != want.shape:
    raise AssertionError(f"shape {got.shape} != {want.shape}")
  if tol is None:
    if not np.array_equal(got.astype(np.int64), want):
      bad = np.flatnonzero(got.astype(np.int64) != want)
      raise AssertionError(f"{bad.size} elements differ; first at {bad[0]}: "
                           f"{got.ravel()[bad[0]]} != {want.ravel()[bad[0]]}")
    return
  wide = np.complex128 if np.iscomplexobj(got) else np.float64
  got = got.astype(wide)
  if np.isnan(got).any():
    raise AssertionError("NaN in the result")
  norm = np.linalg.norm(want)
  err = np.linalg.norm(got - want) / (norm if norm > 0 else 1.0)
  if bound is not None:
    excess = np.abs(got - want) - bound
    if excess.size and excess.max() > 0:
      at = int(np.argmax(excess))
      raise AssertionError(f"element {at}: |ours - ref| = {abs(got - want).ravel()[at]:.3g} "
                           f"above the TF32 bound {bound.ravel()[at]:.3g}")
    if err > tol:
      print(f"  rel_err={err:.2e} above {tol} from cancellation, within the TF32 bound")
      return
  if not err <= tol:
    raise AssertionError(f"relative error {err:.3g} > {tol}")
  print(f"  rel_err={err:.2e} {list(got.shape)}")


def dot_case(lhs_shape, rhs_shape, dims, dtype="float32", precision=None, out_type=None):
  def run():
    if not h.ours_is_active():
      raise AssertionError("the gpu backend is not jax-flagtree")
    a = random_operand(lhs_shape, dtype)
    b = random_operand(rhs_shape, dtype)
    pref = DTYPES[out_type] if out_type else None
    f = jax.jit(lambda x, y: jax.lax.dot_general(
        x, y, dims, precision=precision, preferred_element_type=pref))
    got = f(jnp.asarray(a), jnp.asarray(b)).block_until_ready()
    if out_type:
      assert got.dtype == np.dtype(DTYPES[out_type]), got.dtype
    want = reference(a, b, dims, dtype)
    exact = dtype in ("int8", "int32")
    tf32 = dtype in ("float32", "complex64") and precision != P.HIGHEST
    compare(np.asarray(got), want, None if exact else tolerance(dtype, precision),
            tf32_bound(a, b, dims, dtype) if tf32 else None)
  return run


MATMUL = (((1,), (0,)), ((), ()))   # [m,k] x [k,n]
LHS_T = (((0,), (0,)), ((), ()))    # [k,m] x [k,n]
RHS_T = (((1,), (1,)), ((), ()))    # [m,k] x [n,k]
BOTH_T = (((0,), (1,)), ((), ()))   # [k,m] x [n,k]
BATCHED = (((2,), (1,)), ((0,), (0,)))  # [b,m,k] x [b,k,n]

SHAPES = [(1, 1, 1), (7, 13, 5), (33, 65, 17), (128, 256, 64), (1, 300, 1), (257, 1, 129),
          (100, 48, 1)]


def layout_cases(dtype, precision=None, out_type=None, shapes=SHAPES):
  cases = {}
  for m, k, n in shapes:
    tag = f"{m}x{k}x{n}"
    cases[f"{tag}"] = dot_case((m, k), (k, n), MATMUL, dtype, precision, out_type)
    cases[f"{tag}_lhsT"] = dot_case((k, m), (k, n), LHS_T, dtype, precision, out_type)
    cases[f"{tag}_rhsT"] = dot_case((m, k), (n, k), RHS_T, dtype, precision, out_type)
    cases[f"{tag}_bothT"] = dot_case((k, m), (n, k), BOTH_T, dtype, precision, out_type)
  return cases


CASES = {}


def add(prefix, cases):
  for name, fn in cases.items():
    CASES[f"{prefix}/{name}"] = fn


for prec in (None, P.HIGH, P.HIGHEST):
  add(f"float32/{prec.name if prec else 'DEFAULT'}", layout_cases("float32", prec))
add("bfloat16", layout_cases("bfloat16"))
add("float16", layout_cases("float16", shapes=SHAPES[:4]))
add("float64", layout_cases("float64", shapes=SHAPES[:4]))
for prec in (None, P.HIGHEST):
  add(f"complex64/{prec.name if prec else 'DEFAULT'}",
      layout_cases("complex64", prec, shapes=SHAPES[:4]))
add("complex128", layout_cases("complex128", shapes=SHAPES[:3]))
add("int8_to_int32", layout_cases("int8", out_type="int32", shapes=SHAPES[:4]))
add("int32", layout_cases("int32", shapes=SHAPES[:3]))
for f8 in ("float8_e4m3fn", "float8_e5m2"):
  add(f"{f8}_to_float32", layout_cases(f8, out_type="float32", shapes=[(32, 64, 48),
                                                                        (7, 13, 5)]))

# Batch and contracting layouts beyond plain matrices.
for dt in ("float32", "bfloat16"):
  add(dt, {
      "batched": dot_case((3, 17, 19), (3, 19, 23), BATCHED, dt),
      "batched_size1": dot_case((1, 1, 19), (1, 19, 1), BATCHED, dt),
      # batch dim in the middle of both operands: 'mbk,kbn->bmn'
      "batch_not_leading": dot_case((9, 4, 20), (20, 4, 11), (((2,), (0,)), ((1,), (1,))), dt),
      # two batch dims and two contracting dims, in a different order per operand
      "two_batch_two_contract": dot_case((2, 5, 3, 7, 6), (6, 3, 2, 7, 4),
                                         (((3, 4), (3, 0)), ((0, 2), (2, 1))), dt),
      # several free dims each side
      "multi_free": dot_case((4, 5, 6), (6, 3, 2), (((2,), (0,)), ((), ())), dt),
      # contracting over everything: a scalar result
      "inner_product": dot_case((37,), (37,), (((0,), (0,)), ((), ())), dt),
      "outer_product": dot_case((9,), (13,), (((), ()), ((), ())), dt),
      "matvec": dot_case((31, 45), (45,), (((1,), (0,)), ((), ())), dt),
      "empty_contraction": dot_case((5, 0), (0, 4), MATMUL, dt),
      "empty_result": dot_case((0, 8), (8, 4), MATMUL, dt),
  })
add("complex64", {"batched": dot_case((2, 9, 10), (2, 10, 3), BATCHED, "complex64")})


def main():
  only = os.environ.get("DOT_ONLY")
  for name, fn in CASES.items():
    if only and not any(name.startswith(p) for p in only.split(",")):
      continue
    h.check(name, fn)
  h.finish()


if __name__ == "__main__":
  main()
