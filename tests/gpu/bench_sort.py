"""Sorts on the GPU: correctness against numpy, then timings.

Checks (PASS/FAIL lines): stable argsorts (values and indices, bit for bit: NaN of
both signs, -0.0/+0.0, ties) and int32 ascending/descending sorts of rows of 3 to
20,000 elements, one row class each side of every internal boundary (32-lane
register steps, 4096-lane tiles). Timings (TIME lines; never asserted): a stable
argsort of 64 rows of 1024, 4096 and 8192 (first call, steady median, pipelined)
and the benchmark's jnp.sort of [1024, 8192].
Run once per setting, e.g. upstream, the default and XLA_FLAGTREE_SORT_REGISTERS=1:
    JAX_FLAGTREE_DISABLE=1 SORT_CHECKS=0 python3 tests/gpu/bench_sort.py
    XLA_MODE=fl_only PYTHONPATH=<plugin> python3 tests/gpu/bench_sort.py
SORT_CHECKS=0 / SORT_TIMING=0 leave out either part; a fresh JAX_FLAGTREE_CACHE_DIR
makes the first calls include the kernel compile.
"""

from __future__ import annotations

import os
import time

import numpy as np

from pjrt_harness import check, finish, require_gpu_and_jax

ROWS = [3, 31, 33, 100, 1024, 4097, 8192, 20000]


def same(got, want) -> None:
  got = np.asarray(got)
  assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
  if got.dtype.kind == "f":
    # Bit for bit: the sort moves values, so NaN signs and -0.0 must survive.
    bad = np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))
  else:
    bad = np.flatnonzero(got != want)
  assert bad.size == 0, f"{bad.size} elements differ, first at {bad[0]}"


def checks(rng) -> None:
  import jax
  import jax.numpy as jnp
  from jax import lax
  argsort = jax.jit(lambda a, i: lax.sort((a, i), dimension=1, is_stable=True, num_keys=1))
  ascending = jax.jit(lambda a: jnp.sort(a, axis=1))
  descending = jax.jit(lambda a: -jnp.sort(-a, axis=1))
  for n in ROWS:
    x = rng.standard_normal((3, n)).astype(np.float32)
    x[:, ::7] = np.round(x[:, ::7])  # ties
    if n > 5:
      x[0, 1], x[0, 4], x[1, 2], x[1, 3] = np.nan, -np.nan, -0.0, 0.0
    iota = np.broadcast_to(np.arange(n, dtype=np.int32), x.shape).copy()
    ints = rng.integers(-50, 50, (3, n)).astype(np.int32)

    def stable(x=x, iota=iota):
      values, indices = argsort(x, iota)
      order = np.argsort(x, axis=1, kind="stable")  # NaN last, as lax.sort
      same(indices, order.astype(np.int32))
      same(values, np.take_along_axis(x, order, 1))
    check(f"argsort_f32_{n}", stable)
    check(f"sort_i32_{n}", lambda ints=ints: same(ascending(ints), np.sort(ints, axis=1)))
    check(f"sort_i32_descending_{n}",
          lambda ints=ints: same(descending(ints), -np.sort(-ints, axis=1)))


def timed(f, *args, reps: int = 50) -> tuple[float, float, float]:
  import jax
  start = time.perf_counter()
  jax.block_until_ready(f(*args))
  first = time.perf_counter() - start
  waited = []
  for _ in range(reps):
    start = time.perf_counter()
    jax.block_until_ready(f(*args))
    waited.append(time.perf_counter() - start)
  start = time.perf_counter()
  outs = [f(*args) for _ in range(reps)]
  jax.block_until_ready(outs)
  return first, float(np.median(waited)) * 1e3, (time.perf_counter() - start) / reps * 1e3


def timings(rng) -> None:
  import jax
  import jax.numpy as jnp
  from jax import lax
  for n in (1024, 4096, 8192):
    x = jax.device_put(rng.standard_normal((64, n)).astype(np.float32))
    iota = jax.device_put(np.broadcast_to(np.arange(n, dtype=np.int32), (64, n)).copy())
    f = jax.jit(lambda a, i: lax.sort((a, i), dimension=1, is_stable=True, num_keys=1))
    first, median, pipelined = timed(f, x, iota)
    print(f"TIME argsort 64x{n}: first {first:.2f} s, median {median:.3f} ms, "
          f"pipelined {pipelined:.3f} ms", flush=True)
  x = jax.device_put(rng.standard_normal((1024, 8192)).astype(np.float32))
  first, median, pipelined = timed(jax.jit(lambda a: jnp.sort(a, axis=-1)), x)
  print(f"TIME jnp.sort 1024x8192: first {first:.2f} s, median {median:.3f} ms, "
        f"pipelined {pipelined:.3f} ms", flush=True)


def main() -> None:
  require_gpu_and_jax()
  rng = np.random.default_rng(0)
  # Timings first, so that their first calls compile from an empty cache.
  if os.environ.get("SORT_TIMING", "1") == "1":
    timings(rng)
  if os.environ.get("SORT_CHECKS", "1") == "1":
    checks(rng)
  finish()


if __name__ == "__main__":
  main()
