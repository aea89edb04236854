"""Pallas Triton kernels (jax.experimental.pallas.pallas_call on GPU, lowered
to custom_call @__gpu$xla.gpu.triton with the module as MLIR bytecode) under
our plugin in XLA_MODE=fl_only, against numpy: an elementwise add, a tiled
matmul on a 2-D grid (f32 with tf32 products, bf16), a row softmax, and a
kernel with input_output_aliases (the aliased input array keeps its value,
as it is not donated). Each compiled program's route report must show the
Pallas kernel on ttir/pallas.
Skips without a GPU, JAX, Pallas or Triton."""

import glob
import os
import tempfile

os.environ.setdefault("XLA_MODE", "fl_only")
_DUMP = tempfile.mkdtemp(prefix="jft-pallas-dump-")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + f" --xla_dump_to={_DUMP}").strip()

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

try:
  import triton  # noqa: F401
except ImportError:
  print("SKIP test_pallas.py: Triton is not installed (the compile worker needs it)", flush=True)
  raise SystemExit(0)
try:
  from jax.experimental import pallas as pl
except ImportError as e:
  print(f"SKIP test_pallas.py: jax.experimental.pallas is not importable ({e})", flush=True)
  raise SystemExit(0)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

RNG = np.random.default_rng(0)


def require_ours():
  if not h.ours_is_active():
    h.skip("the jax-flagtree plugin is not the active cuda backend")


def route_reports():
  text = ""
  for path in glob.glob(os.path.join(_DUMP, "**", "*route*"), recursive=True):
    with open(path, errors="replace") as f:
      text += f.read()
  return text


def expect_pallas_route():
  report = route_reports()
  assert "pallas" in report, f"no ttir/pallas group in the route reports under {_DUMP}"


def close(got, want, rel, what):
  got = np.asarray(got, np.float64)
  want = np.asarray(want, np.float64)
  assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
  scale = max(np.max(np.abs(want)), 1e-30)
  err = np.max(np.abs(got - want)) / scale
  assert err <= rel, f"{what}: max error {err:.3g} of the largest value (allowed {rel})"


# ------------------------------------------------------------------ kernels


def add_kernel(x_ref, y_ref, o_ref):
  o_ref[...] = x_ref[...] + y_ref[...]


def pallas_add(x, y, block=256):
  return pl.pallas_call(
      add_kernel,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(x.shape[0] // block,),
      in_specs=[pl.BlockSpec((block,), lambda i: (i,)), pl.BlockSpec((block,), lambda i: (i,))],
      out_specs=pl.BlockSpec((block,), lambda i: (i,)),
  )(x, y)


def matmul_kernel(x_ref, y_ref, o_ref, *, bk):
  bm, bn = o_ref.shape
  k = x_ref.shape[1]

  def body(i, acc):
    a = x_ref[:, pl.ds(i * bk, bk)]
    b = y_ref[pl.ds(i * bk, bk), :]
    return acc + jnp.dot(a, b, preferred_element_type=jnp.float32)

  acc = jax.lax.fori_loop(0, k // bk, body, jnp.zeros((bm, bn), jnp.float32))
  o_ref[...] = acc.astype(o_ref.dtype)


def pallas_matmul(x, y, bm=64, bn=64, bk=32):
  m, k = x.shape
  n = y.shape[1]
  return pl.pallas_call(
      lambda a, b, o: matmul_kernel(a, b, o, bk=bk),
      out_shape=jax.ShapeDtypeStruct((m, n), x.dtype),
      grid=(m // bm, n // bn),
      in_specs=[pl.BlockSpec((bm, k), lambda i, j: (i, 0)),
                pl.BlockSpec((k, bn), lambda i, j: (0, j))],
      out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),
  )(x, y)


def softmax_kernel(x_ref, o_ref):
  x = x_ref[...].astype(jnp.float32)
  e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
  o_ref[...] = (e / jnp.sum(e, axis=1, keepdims=True)).astype(o_ref.dtype)


def pallas_softmax(x, rows=8):
  return pl.pallas_call(
      softmax_kernel,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(x.shape[0] // rows,),
      in_specs=[pl.BlockSpec((rows, x.shape[1]), lambda i: (i, 0))],
      out_specs=pl.BlockSpec((rows, x.shape[1]), lambda i: (i, 0)),
  )(x)


def scale_in_place_kernel(x_ref, y_ref, o_ref):
  # o_ref is x_ref's memory: read it, then overwrite it.
  o_ref[...] = x_ref[...] * 3.0 + y_ref[...]


def pallas_scale_in_place(x, y, block=128):
  return pl.pallas_call(
      scale_in_place_kernel,
      out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
      grid=(x.shape[0] // block,),
      in_specs=[pl.BlockSpec((block,), lambda i: (i,)), pl.BlockSpec((block,), lambda i: (i,))],
      out_specs=pl.BlockSpec((block,), lambda i: (i,)),
      input_output_aliases={0: 0},
  )(x, y)


# ------------------------------------------------------------------ checks


def check_add():
  require_ours()
  x = RNG.standard_normal(4096).astype(np.float32)
  y = RNG.standard_normal(4096).astype(np.float32)
  got = jax.jit(pallas_add)(x, y)
  np.testing.assert_array_equal(np.asarray(got), x + y)
  # Fused with our own kernels around it: exp before, a sum after.
  got = jax.jit(lambda a, b: jnp.sum(pallas_add(jnp.exp(a), b) * 2.0))(x, y)
  close(got, np.sum((np.exp(x.astype(np.float64)) + y) * 2.0), 1e-5, "exp -> add -> sum")
  expect_pallas_route()


def check_matmul(dtype, rel):
  require_ours()
  m, k, n = 256, 128, 192
  a = RNG.standard_normal((m, k)).astype(np.float32)
  b = RNG.standard_normal((k, n)).astype(np.float32)
  x, y = jnp.asarray(a, dtype), jnp.asarray(b, dtype)
  got = jax.jit(pallas_matmul)(x, y)
  want = np.asarray(x, np.float64) @ np.asarray(y, np.float64)
  assert got.dtype == dtype
  close(got, want, rel, f"{jnp.dtype(dtype).name} matmul")
  expect_pallas_route()


def check_softmax():
  require_ours()
  x = (RNG.standard_normal((64, 256)) * 4).astype(np.float32)
  got = np.asarray(jax.jit(pallas_softmax)(x), np.float64)
  e = np.exp(x - x.max(axis=1, keepdims=True))
  want = e / e.sum(axis=1, keepdims=True)
  np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
  np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=1e-5)
  expect_pallas_route()


def check_aliased_output():
  require_ours()
  x_host = RNG.standard_normal(1024).astype(np.float32)
  y_host = RNG.standard_normal(1024).astype(np.float32)
  x = jnp.asarray(x_host)
  got = jax.jit(pallas_scale_in_place)(x, jnp.asarray(y_host))
  np.testing.assert_allclose(np.asarray(got), x_host * 3.0 + y_host, rtol=1e-6, atol=1e-6)
  # x was not donated: it keeps its value.
  np.testing.assert_array_equal(np.asarray(x), x_host)
  # Donated: the result may take x's memory; the value is the same.
  x2 = jnp.asarray(x_host)
  donated = jax.jit(pallas_scale_in_place, donate_argnums=0)(x2, jnp.asarray(y_host))
  np.testing.assert_allclose(np.asarray(donated), x_host * 3.0 + y_host, rtol=1e-6, atol=1e-6)
  expect_pallas_route()


def check_device_kind():
  # Pallas picks its target from the device kind; ours must name the GPU.
  kind = jax.devices()[0].device_kind
  assert kind.startswith("NVIDIA") or kind.startswith("Tesla"), f"device_kind {kind!r}"


h.check("pallas_device_kind", check_device_kind)
h.check("pallas_add_f32", check_add)
# f32 products run as tf32 in Pallas' Triton dot by default.
h.check("pallas_matmul_f32", lambda: check_matmul(jnp.float32, 2e-2))
h.check("pallas_matmul_bf16", lambda: check_matmul(jnp.bfloat16, 2e-2))
h.check("pallas_softmax_rows", check_softmax)
h.check("pallas_input_output_aliases", check_aliased_output)
h.finish()
