"""Horizontal fusion on the GPU: programs whose small independent loop groups
run as one combined launch (hfusion_*), their outputs against numpy. Each case
also reads the route report our compiler dumps (--xla_dump_to) and requires
the rows that say "in hfusion_...", so a case fails if the groups stop being
combined, not only if the values are wrong.

  independent   three elementwise outputs of different shapes and types
  fori_body     a fori_loop carrying a counter and two vectors of different
                shapes (the body's groups, one launch per iteration, in the
                loop's two sets of carried slots)
  past_a_reduce updates of four small "parameters" scaled by a global norm:
                the run passes over nothing that reads its outputs

Run from the repository root on the GPU machine with the wheel installed:
    python3 tests/gpu/test_horizontal.py
Skips without a GPU or JAX, or when our plugin is not the active backend."""

import os
import pathlib
import tempfile

os.environ.setdefault("XLA_MODE", "fl_only")
DUMP = tempfile.mkdtemp(prefix="jft_horizontal_")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_dump_to=" + DUMP).strip()

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import numpy as np  # noqa: E402


def joined_rows(module: str) -> int:
  """Rows of `module`'s route report that joined a combined launch."""
  reports = list(pathlib.Path(DUMP).glob(f"{module}_*/route_report.txt"))
  if not reports:
    raise AssertionError(f"no route report dumped for {module} under {DUMP}")
  return sum(r.read_text().count(" in hfusion_") for r in reports)


def close(got, want, rtol=2e-6, atol=1e-6):
  np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=rtol, atol=atol)


def case_independent():
  import jax
  import jax.numpy as jnp

  def hfuse_independent(x, y, z):
    return jnp.sin(x) * 2.0, y * 3 + 1, jnp.exp(z) - 1.0

  rng = np.random.default_rng(0)
  x = rng.standard_normal(100).astype(np.float32)
  y = rng.integers(-50, 50, (7, 3)).astype(np.int32)
  z = rng.standard_normal(257).astype(np.float32)
  a, b, c = jax.jit(hfuse_independent)(x, y, z)
  close(a, np.sin(x.astype(np.float64)) * 2.0)
  np.testing.assert_array_equal(np.asarray(b), y * 3 + 1)
  close(c, np.expm1(z.astype(np.float64)), rtol=2e-6, atol=5e-7)  # exp(z) - 1 in float32
  if joined_rows("jit_hfuse_independent") < 1:
    raise AssertionError("no group joined a combined launch")


def case_fori_body():
  import jax
  import jax.numpy as jnp

  def hfuse_fori(v, w):
    def body(i, carry):
      v, w = carry
      return jnp.sin(v) * 0.9 + i.astype(jnp.float32), w * 1.5 - 1.0
    return jax.lax.fori_loop(0, 9, body, (v, w))

  rng = np.random.default_rng(1)
  v = rng.standard_normal(128).astype(np.float32)
  w = rng.standard_normal((3, 5)).astype(np.float32)
  got_v, got_w = jax.jit(hfuse_fori)(v, w)
  want_v, want_w = v.copy(), w.copy()
  for i in range(9):  # in float32, as the program computes
    want_v = (np.sin(want_v) * np.float32(0.9) + np.float32(i)).astype(np.float32)
    want_w = (want_w * np.float32(1.5) - np.float32(1.0)).astype(np.float32)
  close(got_v, want_v.astype(np.float64), rtol=1e-5, atol=1e-5)
  close(got_w, want_w.astype(np.float64))
  if joined_rows("jit_hfuse_fori") < 1:
    raise AssertionError("the loop body's groups were not combined")


def case_past_a_reduce():
  import jax
  import jax.numpy as jnp

  def hfuse_update(params, grads):
    norm = jnp.sqrt(sum(jnp.sum(g * g) for g in grads.values()))
    return {k: params[k] - 0.1 * grads[k] / norm for k in params}

  rng = np.random.default_rng(2)
  shapes = {"a": (64,), "b": (8, 16), "c": (300,), "d": (5, 5)}
  params = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
  grads = {k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()}
  got = jax.jit(hfuse_update)(params, grads)
  norm = np.sqrt(sum(np.sum(g.astype(np.float64) ** 2) for g in grads.values()))
  for k in shapes:
    close(got[k], params[k] - 0.1 * grads[k].astype(np.float64) / norm, rtol=1e-5)
  if joined_rows("jit_hfuse_update") < 1:
    raise AssertionError("the updates were not combined")


def main():
  if not h.ours_is_active():
    print("SKIP test_horizontal: our plugin is not the active backend", flush=True)
    return
  h.check("independent", case_independent)
  h.check("fori_body", case_fori_body)
  h.check("past_a_reduce", case_past_a_reduce)
  h.finish()


if __name__ == "__main__":
  main()
