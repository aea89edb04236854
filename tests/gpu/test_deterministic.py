"""--xla_gpu_exclude_nondeterministic_ops=true: scatters whose result depends
on the order of colliding updates apply them in StableHLO's order (update
index order), bit-identical run to run and equal to numpy's ufunc.at, which
applies them one by one in that order in the array's own dtype:
  - float32 x.at[idx].add(g) over whole rows (an embedding gradient), many
    duplicate rows and values mixing 1e8 and 1.0 so that the summation order
    changes the float32 result (checked on the data itself);
  - float32 x.at[idx].multiply(g) (a compare-and-swap loop without the flag);
  - lax.scatter_add with windows of 3 along a 1-D operand, whose windows of
    different rows overlap at different offsets (one program walks every
    update);
and the kernels compiled for them (through --xla_dump_to) hold no atomics.

Run as XLA_MODE=fl_only python3 tests/gpu/test_deterministic.py
"""

import glob
import os
import tempfile

os.environ.setdefault("XLA_MODE", "fl_only")
DUMP = tempfile.mkdtemp(prefix="jft-deterministic-")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") +
                           " --xla_gpu_exclude_nondeterministic_ops=true" +
                           " --xla_dump_to=" + DUMP).strip()

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
import numpy as np  # noqa: E402

RUNS = 5
rng = np.random.default_rng(7)


def require_ours():
  if jax.default_backend() != "gpu":
    raise AssertionError(f"default backend is {jax.default_backend()!r}, not 'gpu'")
  if not h.ours_is_active():
    raise AssertionError("the gpu backend is not jax-flagtree: "
                         + jax.devices()[0].client.platform_version)


def bits(a):
  return np.asarray(a).view(np.uint32)


def same_every_run(fn, args, want):
  """Runs `fn` RUNS times (fresh device copies each time): every result has
  the bits of the first, and those are the bits of `want`."""
  first = None
  for run in range(RUNS):
    got = np.asarray(fn(*[jnp.asarray(a) for a in args]))
    if first is None:
      first = got
    elif not np.array_equal(bits(got), bits(first)):
      diff = np.flatnonzero(bits(got) != bits(first))
      raise AssertionError(f"run {run} differs from run 0 at {diff.size} elements, "
                           f"first at {diff[0]}: {got.flat[diff[0]]!r} vs "
                           f"{first.flat[diff[0]]!r}")
  if first.shape != want.shape or first.dtype != want.dtype:
    raise AssertionError(f"{first.dtype}{first.shape} vs {want.dtype}{want.shape}")
  if not np.array_equal(bits(first), bits(want)):
    diff = np.flatnonzero(bits(first) != bits(want))
    raise AssertionError(f"{diff.size} elements differ from the in-order reference, "
                         f"first at {diff[0]}: {first.flat[diff[0]]!r} vs "
                         f"{want.flat[diff[0]]!r}")


def order_matters(ref_fn, *args):
  """The test data is only meaningful if applying the updates in reverse
  order gives another float32 result."""
  forward = ref_fn(*args)
  backward = ref_fn(*[a[::-1] if i > 0 else a for i, a in enumerate(args)])
  if np.array_equal(bits(forward), bits(backward)):
    raise AssertionError("test data too tame: the update order does not change the result")


def updates_kernels_have_no_atomics(name):
  files = glob.glob(os.path.join(DUMP, "**", f"jit_{name}_*", "*_updates.ttir"),
                    recursive=True)
  if not files:
    raise AssertionError(f"no *_updates.ttir for jit_{name} under {DUMP}")
  for path in files:
    text = open(path).read()
    if "tt.atomic" in text:
      raise AssertionError(f"{path} still uses atomics")
    if "scf.for" not in text:
      raise AssertionError(f"{path} has no in-order loop")


def mixed_magnitudes(shape):
  choice = rng.integers(0, 4, size=shape)
  big = np.where(rng.integers(0, 2, size=shape) == 0, 1e8, -1e8)
  small = rng.standard_normal(shape) * 3.0
  return np.select([choice == 0, choice == 1, choice == 2], [big, 1.0, small],
                   0.5).astype(np.float32)


def add_ref(x, idx, g):
  out = x.copy()
  np.add.at(out, idx, g)
  return out


def mul_ref(x, idx, g):
  out = x.copy()
  np.multiply.at(out, idx, g)
  return out


def embedding_add():
  require_ours()
  rows, cols, n = 16, 64, 4096
  x = mixed_magnitudes((rows, cols))
  idx = rng.integers(0, rows, size=n).astype(np.int32)
  g = mixed_magnitudes((n, cols))
  order_matters(add_ref, x, idx, g)

  def scatter_add_rows(x, idx, g):
    return x.at[idx].add(g)

  same_every_run(jax.jit(scatter_add_rows), (x, idx, g), add_ref(x, idx, g))
  updates_kernels_have_no_atomics("scatter_add_rows")


def wide_rows_add():
  """Rows of 3000: the window spreads over three programs."""
  require_ours()
  rows, cols, n = 4, 3000, 512
  x = mixed_magnitudes((rows, cols))
  idx = rng.integers(0, rows, size=n).astype(np.int32)
  g = mixed_magnitudes((n, cols))
  order_matters(add_ref, x, idx, g)

  def scatter_add_wide(x, idx, g):
    return x.at[idx].add(g)

  same_every_run(jax.jit(scatter_add_wide), (x, idx, g), add_ref(x, idx, g))
  updates_kernels_have_no_atomics("scatter_add_wide")


def multiply():
  require_ours()
  rows, cols, n = 8, 32, 2048
  x = rng.uniform(0.5, 2.0, size=(rows, cols)).astype(np.float32)
  idx = rng.integers(0, rows, size=n).astype(np.int32)
  g = rng.uniform(0.9, 1.1, size=(n, cols)).astype(np.float32)
  order_matters(mul_ref, x, idx, g)

  def scatter_mul_rows(x, idx, g):
    return x.at[idx].multiply(g)

  same_every_run(jax.jit(scatter_mul_rows), (x, idx, g), mul_ref(x, idx, g))
  updates_kernels_have_no_atomics("scatter_mul_rows")


def overlapping_windows():
  """operand [10], windows of 3 starting at idx[r] (all in [0, 7]): row r
  adds upd[r, o] to element idx[r] + o; StableHLO's order is r outer, and
  two rows reach one element at different offsets."""
  require_ours()
  n = 300
  x = mixed_magnitudes((10,))
  idx = rng.integers(0, 8, size=(n, 1)).astype(np.int32)
  upd = mixed_magnitudes((n, 3))

  def ref(x, idx, upd):
    out = x.copy()
    for r in range(idx.shape[0]):
      for o in range(3):
        out[idx[r, 0] + o] = np.float32(out[idx[r, 0] + o] + upd[r, o])
    return out

  order_matters(ref, x, idx, upd)
  dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(),
                                   scatter_dims_to_operand_dims=(0,))

  def scatter_add_windows(x, idx, upd):
    return lax.scatter_add(x, idx, upd, dn)

  same_every_run(jax.jit(scatter_add_windows), (x, idx, upd), ref(x, idx, upd))
  updates_kernels_have_no_atomics("scatter_add_windows")


h.check("deterministic_scatter_add_embedding_rows", embedding_add)
h.check("deterministic_scatter_add_wide_rows", wide_rows_add)
h.check("deterministic_scatter_multiply", multiply)
h.check("deterministic_scatter_add_overlapping_windows", overlapping_windows)
h.finish()
