"""The TTIR matmul family under our plugin: jitted jnp.matmul, jnp.einsum and
lax.dot_general, with fused epilogues (bias, relu, gelu, logistic, residual,
scalar multiply, convert) and a fused operand convert, over shapes that are
not multiples of 16, size-1 dims, batch dims and transposed operands, in
float32 (DEFAULT and HIGHEST precision), bfloat16 and float16, against a
float64 numpy reference computed here from the (rounded) inputs.

Run as XLA_MODE=fl_only XLA_FLAGTREE_MATMUL=ttir python3 tests/gpu/test_matmul.py
(both are set here when unset). Each case also checks, in the route report
that --xla_dump_to writes, that its program ran its products as TTIR matmul
kernels and nothing on the library route.

Tolerance: max|ours - ref| <= tol * max|ref|, tol = 2e-5 * sqrt(K) for float32
under HIGHEST, 5e-3 for float32 under DEFAULT (TF32, as XLA's), 2e-2 for
bfloat16 and float16. Skips without a GPU or JAX. MATMUL_ONLY=a,b runs only
the named cases."""

import os
import tempfile

os.environ.setdefault("XLA_MODE", "fl_only")
os.environ.setdefault("XLA_FLAGTREE_MATMUL", "ttir")
DUMP = tempfile.mkdtemp(prefix="jft-matmul-")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_dump_to=" + DUMP).strip()

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import glob  # noqa: E402
import math  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

rng = np.random.default_rng(0)
DTYPES = {"float32": jnp.float32, "bfloat16": jnp.bfloat16, "float16": jnp.float16}
HIGHEST = jax.lax.Precision.HIGHEST


def require_ours():
  if not h.ours_is_active():
    raise AssertionError("the gpu backend is not jax-flagtree: "
                         + jax.devices()[0].client.platform_version)


def tolerance(dtype, precision, k):
  if dtype != "float32":
    return 2e-2
  if precision == HIGHEST:
    return 2e-5 * math.sqrt(k)
  return 5e-3


def rounded(x, dtype):
  """The input as the device holds it (rounded to `dtype`), in float64."""
  return np.asarray(jnp.asarray(x, DTYPES[dtype]).astype(jnp.float32), np.float64)


def gelu_tanh(x):
  return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def check_routes(name):
  """The program's route report: a TTIR matmul kernel, no library call."""
  reports = glob.glob(os.path.join(DUMP, "**", f"jit_{name}_*", "route_report.txt"),
                      recursive=True)
  if not reports:
    raise AssertionError(f"no route report for jit_{name} under {DUMP}")
  for path in reports:
    text = open(path).read()
    rows = [line.split() for line in text.splitlines()[1:] if line.startswith("fusion_")]
    if not any(r[1] == "ttir" and r[2] == "matmul" for r in rows):
      raise AssertionError(f"no ttir/matmul kernel in {path}:\n{text}")
    library = [r[0] for r in rows if r[1] == "library"]
    if library:
      raise AssertionError(f"library groups {library} in {path}:\n{text}")


def compare(name, got, want, tol):
  got = np.asarray(jnp.asarray(got).astype(jnp.float32), np.float64)
  if got.shape != want.shape:
    raise AssertionError(f"shape {got.shape} != {want.shape}")
  scale = max(float(np.max(np.abs(want))), 1e-30) if want.size else 1.0
  err = float(np.max(np.abs(got - want))) / scale if want.size else 0.0
  if not err <= tol:
    raise AssertionError(f"max error {err:.3g} of max|ref| > {tol:.3g}")
  print(f"  {name}: err={err:.2e} tol={tol:.1e} {list(got.shape)}")


def case(name, shapes, jax_fn, ref_fn, k, dtype="float32", precision=None,
         input_dtypes=None):
  """`jax_fn(*arrays)` jitted against `ref_fn(*float64 arrays)`; inputs drawn
  from a normal distribution and rounded to their dtypes."""
  def run():
    require_ours()
    dts = input_dtypes or [dtype] * len(shapes)
    host = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    args = [jnp.asarray(x, DTYPES[d]) for x, d in zip(host, dts)]
    exact = [rounded(x, d) for x, d in zip(host, dts)]

    def fn(*a):
      return jax_fn(*a)
    fn.__name__ = name  # names the module (jit_<name>) and its dump folder
    got = jax.jit(fn)(*args)
    got = jax.block_until_ready(got)
    want = ref_fn(*exact)
    if isinstance(want, tuple):  # several outputs, each compared
      for i, (g, w) in enumerate(zip(got, want)):
        compare(f"{name}[{i}]", g, w, tolerance(dtype, precision, k))
    else:
      compare(name, got, want, tolerance(dtype, precision, k))
    check_routes(name)
  return run


def matmul_case(name, m, k, n, dtype="float32", precision=None, epilogue=None):
  """x [m, k] @ w [k, n] with an optional epilogue on (y, bias, residual)."""
  ep = epilogue or (lambda y, b, r, np_: y)

  def jax_fn(x, w, b, r):
    return ep(jnp.matmul(x, w, precision=precision), b, r, jnp)

  def ref_fn(x, w, b, r):
    return ep(x @ w, b, r, np)
  return case(name, [(m, k), (k, n), (n,), (m, n)], jax_fn, ref_fn, k, dtype, precision)


def relu(y, b, r, xp):
  return xp.maximum(y + b, 0)


def gelu(y, b, r, xp):
  if xp is np:
    return gelu_tanh(y + b)
  return jax.nn.gelu(y + b, approximate=True)


def sigmoid_residual(y, b, r, xp):
  if xp is np:
    return 1 / (1 + np.exp(-y)) + r
  return jax.nn.sigmoid(y) + r


def scaled_tanh(y, b, r, xp):
  return xp.tanh(0.5 * y) + b


CASES = {
    # Plain products, f32 DEFAULT (TF32) and HIGHEST.
    "plain_f32": matmul_case("plain_f32", 64, 64, 64),
    "odd_f32": matmul_case("odd_f32", 17, 33, 5),
    "highest_odd_f32": matmul_case("highest_odd_f32", 130, 257, 65, precision=HIGHEST),
    "size1_m": matmul_case("size1_m", 1, 100, 37),
    "size1_k": matmul_case("size1_k", 19, 1, 23),
    "size1_all": matmul_case("size1_all", 1, 1, 1),
    "large_f32": matmul_case("large_f32", 300, 520, 260),
    # Epilogues.
    "bias_relu_f32": matmul_case("bias_relu_f32", 50, 30, 70, epilogue=relu),
    "bias_relu_highest": matmul_case("bias_relu_highest", 45, 77, 90, precision=HIGHEST,
                                     epilogue=relu),
    "bias_gelu_bf16": matmul_case("bias_gelu_bf16", 33, 65, 129, dtype="bfloat16",
                                  epilogue=gelu),
    "sigmoid_residual_f16": matmul_case("sigmoid_residual_f16", 40, 24, 56,
                                        dtype="float16", epilogue=sigmoid_residual),
    "scaled_tanh_f32": matmul_case("scaled_tanh_f32", 128, 96, 48, epilogue=scaled_tanh),
    "bias_relu_bf16": matmul_case("bias_relu_bf16", 100, 300, 200, dtype="bfloat16",
                                  epilogue=relu),
    "plain_f16": matmul_case("plain_f16", 70, 150, 90, dtype="float16"),
    # Batched and transposed operands through einsum and dot_general.
    "einsum_batched_bf16": case(
        "einsum_batched_bf16", [(3, 20, 40), (3, 40, 24)],
        lambda a, b: jnp.einsum("bmk,bkn->bmn", a, b),
        lambda a, b: np.einsum("bmk,bkn->bmn", a, b), 40, "bfloat16"),
    "einsum_transposed_f32": case(
        "einsum_transposed_f32", [(3, 40, 20), (3, 24, 40)],
        lambda a, b: jnp.einsum("bkm,bnk->bmn", a, b),
        lambda a, b: np.einsum("bkm,bnk->bmn", a, b), 40),
    "einsum_transposed_highest": case(
        "einsum_transposed_highest", [(2, 31, 18), (2, 9, 31)],
        lambda a, b: jnp.einsum("bkm,bnk->bmn", a, b, precision=HIGHEST),
        lambda a, b: np.einsum("bkm,bnk->bmn", a, b), 31, precision=HIGHEST),
    "dot_general_split_k": case(
        "dot_general_split_k", [(4, 6, 5), (5, 7, 4)],
        lambda a, b: jax.lax.dot_general(a, b, (((0, 2), (2, 0)), ((), ()))),
        lambda a, b: np.tensordot(a, b, axes=([0, 2], [2, 0])), 20),
    "dot_general_batch_middle": case(
        "dot_general_batch_middle", [(9, 2, 17), (17, 2, 11)],
        lambda a, b: jax.lax.dot_general(a, b, (((2,), (0,)), ((1,), (1,)))),
        lambda a, b: np.einsum("mbk,kbn->bmn", a, b), 17),
    "batched_bias_relu_bf16": case(
        "batched_bias_relu_bf16", [(3, 40, 20), (3, 24, 40), (24,)],
        lambda a, b, c: jnp.maximum(jnp.einsum("bkm,bnk->bmn", a, b) + c, 0),
        lambda a, b, c: np.maximum(np.einsum("bkm,bnk->bmn", a, b) + c, 0), 40,
        "bfloat16"),
    "vector_dot_f32": case(
        "vector_dot_f32", [(200,), (200,)], lambda a, b: jnp.dot(a, b),
        lambda a, b: np.asarray(np.dot(a, b)), 200),
    "matvec_f32": case(
        "matvec_f32", [(37, 50), (50,)], lambda a, b: jnp.dot(a, b),
        lambda a, b: a @ b, 50),
    # The dot's value also returned, and also read by a reduction.
    "returned_dot": case(
        "returned_dot", [(24, 40), (40, 36), (36,)],
        lambda a, b, c: (jnp.matmul(a, b), jnp.maximum(jnp.matmul(a, b) + c, 0)),
        lambda a, b, c: (a @ b, np.maximum(a @ b + c, 0)), 40),
    "dot_read_twice": case(
        "dot_read_twice", [(24, 40), (40, 36)],
        lambda a, b: (lambda y: (jnp.tanh(y), jnp.sum(y, axis=1)))(jnp.matmul(a, b)),
        lambda a, b: (np.tanh(a @ b), np.sum(a @ b, axis=1)), 40),
    # A convert feeding the dot (f32 -> bf16) and one after it (f32 -> bf16).
    "operand_convert": case(
        "operand_convert", [(33, 48), (48, 20)],
        lambda a, b: jnp.matmul(a.astype(jnp.bfloat16), b),
        lambda a, b: rounded(a.astype(np.float32), "bfloat16") @ b, 48, "bfloat16",
        input_dtypes=["float32", "bfloat16"]),
    "result_convert": case(
        "result_convert", [(40, 64), (64, 30)],
        lambda a, b: jnp.matmul(a, b).astype(jnp.bfloat16),
        lambda a, b: a @ b, 64, "bfloat16", input_dtypes=["float32", "float32"]),
}


def main():
  only = set(filter(None, os.environ.get("MATMUL_ONLY", "").split(",")))
  print(f"XLA_FLAGTREE_MATMUL={os.environ['XLA_FLAGTREE_MATMUL']} dumps under {DUMP}",
        flush=True)
  for name, fn in CASES.items():
    if only and name not in only:
      continue
    h.check(f"matmul_{name}", fn)
  h.finish()


if __name__ == "__main__":
  main()
