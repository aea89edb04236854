"""--xla_gpu_autotune_level for dot_general under our plugin.

Two fresh processes (this script run with `child`) jit the same matmuls with
XLA_FLAGS="--xla_gpu_autotune_level=2 --xla_dump_to=<dir>", XLA_MODE=fl_only
and one shared, initially empty JAX_FLAGTREE_CACHE_DIR:
  - every result matches a float64 numpy reference computed from the rounded
    inputs (max|ours - ref| <= tol * max|ref|: 2e-2 for bf16/f16, 2e-5*sqrt(K)
    for f32 HIGHEST, 5e-3 for f32 DEFAULT);
  - in the first process the route report of each dot (bf16, f16, f32
    HIGHEST, f32 DEFAULT) ends the dot's row with "autotuned: <winner> (<t> us)
    over N candidates" and the row's route agrees with the winner (library, or
    ttir/matmul with the winner's BLOCK_MxBLOCK_NxBLOCK_K as its tile);
  - the second process reads every decision from the cache ("autotuned
    (cached): " with the same winner) and its compiles take less time in all.
Skips without a GPU, JAX or Triton. Run: python3 tests/gpu/test_autotune.py"""

import glob
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import pjrt_harness as h

NOTE = re.compile(r"autotuned( \(cached\))?: (library|ttir (\d+x\d+x\d+) w\d+ s\d+) "
                  r"\(([0-9.]+) us\) over (\d+) candidates")
OPEN = ["plain_bf16", "relu_f16", "batched_bf16", "highest_f32", "default_f32"]


def cases():
  import jax
  import jax.numpy as jnp
  import numpy as np
  highest = jax.lax.Precision.HIGHEST
  return {
      # name: (shapes, dtype, jax fn, numpy fn, k, precision)
      "plain_bf16": ([(512, 512), (512, 512)], jnp.bfloat16, lambda a, b: a @ b,
                     lambda a, b: a @ b, 512, None),
      "relu_f16": ([(300, 200), (200, 100), (100,)], jnp.float16,
                   lambda a, b, c: jnp.maximum(a @ b + c, 0),
                   lambda a, b, c: np.maximum(a @ b + c, 0), 200, None),
      "batched_bf16": ([(4, 128, 64), (4, 64, 256)], jnp.bfloat16,
                       lambda a, b: jnp.einsum("bmk,bkn->bmn", a, b),
                       lambda a, b: np.einsum("bmk,bkn->bmn", a, b), 64, None),
      "highest_f32": ([(256, 128), (128, 384)], jnp.float32,
                      lambda a, b: jnp.matmul(a, b, precision=highest),
                      lambda a, b: a @ b, 128, highest),
      "default_f32": ([(128, 128), (128, 128)], jnp.float32, lambda a, b: a @ b,
                      lambda a, b: a @ b, 128, None),
  }


def child():
  """Runs every case in this process; prints PASS/FAIL lines and one
  `COMPILE name seconds` line per case."""
  import jax
  import jax.numpy as jnp
  import numpy as np
  rng = np.random.default_rng(0)
  if not h.ours_is_active():
    print("FAIL autotune_child: the gpu backend is not jax-flagtree: "
          + jax.devices()[0].client.platform_version)
    return
  for name, (shapes, dtype, jax_fn, np_fn, k, precision) in cases().items():
    def run(name=name, shapes=shapes, dtype=dtype, jax_fn=jax_fn, np_fn=np_fn, k=k,
            precision=precision):
      host = [rng.standard_normal(s).astype(np.float32) for s in shapes]
      args = [jnp.asarray(x, dtype) for x in host]
      exact = [np.asarray(a.astype(jnp.float32), np.float64) for a in args]

      def fn(*a):
        return jax_fn(*a)
      fn.__name__ = name  # the module is jit_<name>, and so is its dump folder
      start = time.perf_counter()
      compiled = jax.jit(fn).lower(*args).compile()
      print(f"COMPILE {name} {time.perf_counter() - start:.3f}", flush=True)
      got = np.asarray(jax.block_until_ready(compiled(*args)).astype(jnp.float32),
                       np.float64)
      want = np_fn(*exact)
      if dtype != jnp.float32:
        tol = 2e-2
      elif precision is not None:
        tol = 2e-5 * k ** 0.5
      else:
        tol = 5e-3
      err = float(np.max(np.abs(got - want))) / max(float(np.max(np.abs(want))), 1e-30)
      if got.shape != want.shape or not err <= tol:
        raise AssertionError(f"{name}: shape {got.shape} vs {want.shape}, "
                             f"max error {err:.3g} of max|ref| > {tol:.3g}")
      print(f"  {name}: err={err:.2e} tol={tol:.1e}")
    h.check(f"autotune_result_{name}", run)


def report_of(dump, name):
  paths = glob.glob(os.path.join(dump, "**", f"jit_{name}_*", "route_report.txt"),
                    recursive=True)
  if not paths:
    raise AssertionError(f"no route report for jit_{name} under {dump}")
  return "\n".join(open(p).read() for p in sorted(paths))


def decision(text, name):
  """(cached, winner) of the one autotuned row, after checking that the row's
  route (and tile, for a TTIR winner) agrees with the winner."""
  notes = [(line, NOTE.search(line)) for line in text.splitlines()]
  notes = [(line, m) for line, m in notes if m]
  if len(notes) != 1:
    raise AssertionError(f"{name}: expected one autotuned row, got {len(notes)}:\n{text}")
  line, m = notes[0]
  if int(m.group(5)) < 2:
    raise AssertionError(f"{name}: fewer than 2 candidates: {line}")
  row = line.split()
  table = line[:m.start()]  # the row's own columns (ops may hold spaces)
  winner = m.group(2)
  if winner == "library":
    if row[1] != "library":
      raise AssertionError(f"{name}: the library won but the row is {row[1]}: {line}")
  elif row[1] != "ttir" or row[2] != "matmul" or f" {m.group(3)} " not in table:
    raise AssertionError(f"{name}: winner {winner} but the row is {row[1]}/{row[2]} "
                         f"without tile {m.group(3)}: {line}")
  return bool(m.group(1)), winner


def run_child(dump, cache):
  env = dict(os.environ)
  env.update({"XLA_MODE": "fl_only", "XLA_FLAGTREE_LOG": "1",
              "JAX_FLAGTREE_CACHE_DIR": cache,
              "XLA_FLAGS": f"--xla_gpu_autotune_level=2 --xla_dump_to={dump}"})
  env.pop("XLA_FLAGTREE_MATMUL", None)  # auto: the route is open
  out = subprocess.run([sys.executable, os.path.abspath(__file__), "child"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=140)
  print(out.stdout, flush=True)  # the child's PASS/FAIL lines count with ours
  times = {}
  for line in out.stdout.splitlines():
    if line.startswith("COMPILE "):
      _, name, seconds = line.split()
      times[name] = float(seconds)
  return out.returncode, times


def main():
  h.require_gpu_and_jax()
  if importlib.util.find_spec("triton") is None:
    print("SKIP test_autotune.py: Triton is not installed", flush=True)
    sys.exit(0)
  root = tempfile.mkdtemp(prefix="jft-autotune-")
  cache = os.path.join(root, "cache")
  first_dump, second_dump = os.path.join(root, "first"), os.path.join(root, "second")
  rc1, first = run_child(first_dump, cache)
  rc2, second = run_child(second_dump, cache)
  winners = {}

  def first_process():
    if rc1 != 0 or len(first) != len(OPEN):
      raise AssertionError(f"first child: status {rc1}, compiled {sorted(first)}")
    for name in OPEN:
      cached, winner = decision(report_of(first_dump, name), name)
      if cached:
        raise AssertionError(f"{name}: cached in a fresh cache directory")
      winners[name] = winner
      print(f"  {name}: {winner}, compile {first[name]:.2f}s")

  def second_process():
    if rc2 != 0 or len(second) != len(OPEN):
      raise AssertionError(f"second child: status {rc2}, compiled {sorted(second)}")
    for name in OPEN:
      cached, winner = decision(report_of(second_dump, name), name)
      if not cached or winner != winners.get(name):
        raise AssertionError(f"{name}: second process says cached={cached} {winner}, "
                             f"first chose {winners.get(name)}")
    before = sum(first[n] for n in OPEN)
    after = sum(second[n] for n in OPEN)
    print(f"  compile of the open cases: {before:.2f}s measuring, {after:.2f}s cached")
    if not after < before:
      raise AssertionError(f"cached compiles took {after:.2f}s, measured {before:.2f}s")
    print(json.dumps({"winners": winners}))

  h.check("autotune_first_process_measures", first_process)
  h.check("autotune_second_process_reuses_cache", second_process)
  h.finish()


if __name__ == "__main__":
  if sys.argv[1:] == ["child"]:
    child()
    h.finish()
  main()
