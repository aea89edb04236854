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

TF32 rounding (ttir): f32 DEFAULT products whose operands are all 1 + 2^-11
(a tie) or 1 + 3 * 2^-12 (above half a TF32 ulp) must give what rounding the
operands to TF32 to nearest (ties away) predicts, 8 (1 + 2^-10)^2 per output
for k = 8, where truncation would give exactly 8; products of positive
operands must stay within the round-to-nearest error bound elementwise and
show no truncation bias on average.

With XLA_FLAGTREE_MATMUL=library the script runs the library epilogue cases
instead (src/fusion/library_epilogue.h): f32 x @ w + b then relu (2-D and
batched), bf16 relu(x @ w) fused into the cuBLASLt product (the route report
shows one library group whose call ends "bias relu" / "relu" and no TTIR
kernel), a bf16 bias that must stay a separate loop kernel, all against
float64 numpy; and a NaN probe that reports what cuBLASLt's RELU epilogue
makes of a NaN product (StableHLO keeps NaN) without failing.

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


# ---------------------------------------------------------------- TF32 rounding

TF32_ULP = 2.0**-10  # TF32's unit in the last place at 1.0


def tf32_rna(x):
  """f32 values rounded to TF32 to nearest, ties away (finite inputs)."""
  bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
  bits = ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32)
  return bits.view(np.float32).astype(np.float64)


def run_f32(name, fn, *host):
  fn.__name__ = name
  got = jax.block_until_ready(jax.jit(fn)(*[jnp.asarray(x, jnp.float32) for x in host]))
  return np.asarray(got, np.float64)


def tf32_constant_case(name, value):
  """x [16, 8] @ w [8, 16], every operand `value`: each output is 8 * t^2
  with t = `value` rounded to TF32 (1 + 2^-10 here), exact in f32 whatever
  the summation order; truncation gives 8 exactly."""
  def run():
    require_ours()
    x = np.full((16, 8), value, np.float32)
    w = np.full((8, 16), value, np.float32)
    got = run_f32(name, lambda a, b: jnp.matmul(a, b), x, w)
    t = float(tf32_rna(np.float32(value)))
    if t != 1 + TF32_ULP:
      raise AssertionError(f"reference rounding of {value!r} gave {t!r}")
    want = 8 * t * t  # 8 + 2^-6 + 2^-17
    truncated = 8.0
    bad = np.abs(got - want) > 4 * 2.0**-20  # a few f32 ulps at 8
    if bad.any():
      i = np.argwhere(bad)[0]
      raise AssertionError(f"out{list(i)} = {got[tuple(i)]!r}, want {want!r} (rounded "
                           f"operands; truncated operands give {truncated!r})")
    print(f"  {name}: all {got.size} outputs {got[0, 0]!r} (truncation: {truncated})")
    check_routes(name)
  return run


def tf32_positive_case(name, m, k, n):
  """Operands uniform in [1, 2): truncation would pull every product down
  by about 2^-11 relative per operand; rounding to nearest leaves no bias.
  Elementwise, |ours - ref| <= (2 * 2^-11 + 2^-22 + (k + 1) 2^-24) (|x| @ |w|):
  each rounded operand is off by at most 2^-11 relative, the f32 sum adds at
  most k + 1 roundings of 2^-24 (the standard gamma_k bound)."""
  def run():
    require_ours()
    x = rng.uniform(1, 2, (m, k)).astype(np.float32)
    w = rng.uniform(1, 2, (k, n)).astype(np.float32)
    got = run_f32(name, lambda a, b: jnp.matmul(a, b), x, w)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    ref = x64 @ w64
    bound = (2 * 2.0**-11 + 2.0**-22 + (k + 1) * 2.0**-24) * (np.abs(x64) @ np.abs(w64))
    excess = np.abs(got - ref) - bound
    if (excess > 0).any():
      i = np.unravel_index(int(np.argmax(excess)), excess.shape)
      raise AssertionError(f"out{list(i)} = {got[i]!r} is {abs(got[i] - ref[i]):.3g} "
                           f"from float64 {ref[i]!r}, bound {bound[i]:.3g}")
    # Against the operands rounded by hand the error is f32 summation only.
    exact = tf32_rna(x) @ tf32_rna(w)
    rel_exact = float(np.max(np.abs(got - exact) / exact))
    if rel_exact > (k + 1) * 2.0**-24:
      raise AssertionError(f"max relative error {rel_exact:.3g} against the TF32-rounded "
                           f"operands' product > {(k + 1) * 2.0**-24:.3g}")
    bias = float(np.mean((got - ref) / ref))
    if abs(bias) > 1e-4:  # truncation: about -7e-4
      raise AssertionError(f"mean relative error {bias:.3g}: operands truncated, "
                           "not rounded to nearest")
    print(f"  {name}: mean rel err {bias:.2e}, max rel err vs TF32-rounded product "
          f"{rel_exact:.2e}")
    check_routes(name)
  return run


CASES.update({
    "tf32_tie_f32": tf32_constant_case("tf32_tie_f32", 1 + 2.0**-11),
    "tf32_above_half_f32": tf32_constant_case("tf32_above_half_f32", 1 + 3 * 2.0**-12),
    "tf32_positive_f32": tf32_positive_case("tf32_positive_f32", 96, 200, 80),
})

# ---------------------------------------------------------------- library epilogues


def check_library_routes(name, epilogue):
  """One library group whose call text ends with `epilogue` ("bias relu",
  "relu"; "" for none) and no TTIR kernel; for epilogue None, one library
  group without a fused epilogue and a TTIR loop kernel after it."""
  reports = glob.glob(os.path.join(DUMP, "**", f"jit_{name}_*", "route_report.txt"),
                      recursive=True)
  if not reports:
    raise AssertionError(f"no route report for jit_{name} under {DUMP}")
  for path in reports:
    text = open(path).read()
    lines = [line for line in text.splitlines()[1:] if line.startswith("fusion_")]
    library = [line for line in lines if line.split()[1] == "library"]
    ttir = [line for line in lines if line.split()[1] == "ttir"]
    if len(library) != 1:
      raise AssertionError(f"{len(library)} library groups in {path}:\n{text}")
    call = library[0][library[0].index("cublaslt"):].split("  ")[0].strip()
    fused = " ".join(w for w in call.split() if w in ("bias", "relu", "gelu"))
    if epilogue is None:
      if fused or not ttir:
        raise AssertionError(f"want an unfused product and a loop kernel in {path}:\n{text}")
    elif fused != epilogue or ttir:
      raise AssertionError(f"want one library call with '{epilogue}' and no TTIR kernel "
                           f"in {path}:\n{text}")
    print(f"  {name}: {call}")


def library_case(name, shapes, jax_fn, ref_fn, dtype, epilogue, tol):
  def run():
    require_ours()
    host = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    args = [jnp.asarray(x, DTYPES[dtype]) for x in host]
    exact = [rounded(x, dtype) for x in host]

    def fn(*a):
      return jax_fn(*a)
    fn.__name__ = name
    got = jax.block_until_ready(jax.jit(fn)(*args))
    compare(name, got, ref_fn(*exact), tol)
    check_library_routes(name, epilogue)
  return run


def relu_nan_probe():
  """x @ w then relu with a NaN in x's first row: StableHLO's maximum keeps
  the NaN; cuBLASLt documents RELU as max(x, 0) only. Reports which one the
  device does; the other rows are checked against numpy."""
  require_ours()
  name = "library_relu_nan_f32"
  x = rng.standard_normal((8, 16)).astype(np.float32)
  w = rng.standard_normal((16, 8)).astype(np.float32)
  x[0, 3] = np.nan
  got = run_f32(name, lambda a, b: jnp.maximum(jnp.matmul(a, b), 0), x, w)
  want = np.maximum(x.astype(np.float64) @ w.astype(np.float64), 0)
  compare(name + "[1:]", got[1:], want[1:], 5e-3)
  row = got[0]
  if np.isnan(row).all():
    print(f"  {name}: cuBLASLt's RELU epilogue keeps NaN (as StableHLO's maximum)")
  else:
    print(f"  {name}: cuBLASLt's RELU epilogue turns NaN into {row[~np.isnan(row)][:1]} "
          "(as reported on NVIDIA's forum; XLA fuses the same epilogue; unfused "
          "StableHLO keeps NaN)")
  check_library_routes(name, "relu")


def bias_relu(a, b, c, xp):
  return xp.maximum(a @ b + c, 0)


LIBRARY_CASES = {
    "library_bias_relu_f32": library_case(
        "library_bias_relu_f32", [(50, 30), (30, 70), (70,)],
        lambda a, b, c: bias_relu(a, b, c, jnp), lambda a, b, c: bias_relu(a, b, c, np),
        "float32", "bias relu", 5e-3),
    "library_bias_f32": library_case(
        "library_bias_f32", [(33, 65), (65, 17), (17,)],
        lambda a, b, c: a @ b + c, lambda a, b, c: a @ b + c, "float32", "bias", 5e-3),
    "library_batched_bias_relu_f32": library_case(
        "library_batched_bias_relu_f32", [(3, 20, 40), (3, 40, 24), (24,)],
        lambda a, b, c: jnp.maximum(jnp.einsum("bmk,bkn->bmn", a, b) + c, 0),
        lambda a, b, c: np.maximum(np.einsum("bmk,bkn->bmn", a, b) + c, 0),
        "float32", "bias relu", 5e-3),
    "library_relu_bf16": library_case(
        "library_relu_bf16", [(40, 64), (64, 48)],
        lambda a, b: jnp.maximum(a @ b, 0), lambda a, b: np.maximum(a @ b, 0),
        "bfloat16", "relu", 2e-2),
    # A bf16 bias would be added before the product's rounding: not fused.
    "library_bias_relu_bf16": library_case(
        "library_bias_relu_bf16", [(40, 64), (64, 48), (48,)],
        lambda a, b, c: bias_relu(a, b, c, jnp), lambda a, b, c: bias_relu(a, b, c, np),
        "bfloat16", None, 2e-2),
    "library_relu_nan_f32": relu_nan_probe,
}


def main():
  only = set(filter(None, os.environ.get("MATMUL_ONLY", "").split(",")))
  route = os.environ["XLA_FLAGTREE_MATMUL"]
  print(f"XLA_FLAGTREE_MATMUL={route} dumps under {DUMP}", flush=True)
  cases = LIBRARY_CASES if route == "library" else CASES
  for name, fn in cases.items():
    if only and name not in only:
      continue
    h.check(f"matmul_{name}", fn)
  h.finish()


if __name__ == "__main__":
  main()
