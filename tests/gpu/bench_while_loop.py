"""Per-iteration cost of a while loop whose trip count is only known on the device
(each iteration reads its predicate on the host), and jax.scipy.linalg.eigh_tridiagonal
(bisection loops), ours then upstream (JAX_FLAGTREE_DISABLE=1), each in a fresh process.

  python3 tests/gpu/bench_while_loop.py [--iterations 2000] [--timeout 300]

Prints one JSON line per side with the steady-state microseconds per iteration (the
median of 5 calls after a warm-up, divided by the trip count) and the eigh_tridiagonal
time (first call, then the median of 3), and a last line with upstream / ours ratios.
The plugin must be importable (PYTHONPATH), as for the other GPU tests; without JAX it
says so and exits 0.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CHILD = r"""
import json, statistics, sys, time
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
trips = int(sys.argv[1])

@jax.jit
def loop(limit, x):
  def body(state):
    i, v = state
    return i + 1, jnp.sin(v) * 0.5 + 0.25
  return lax.while_loop(lambda s: s[0] < limit, body, (jnp.int32(0), x))[1]

x = jnp.linspace(-1.0, 1.0, 256, dtype=jnp.float32)
limit = jnp.int32(trips)
loop(limit, x).block_until_ready()
times = []
for _ in range(5):
  t0 = time.perf_counter()
  loop(limit, x).block_until_ready()
  times.append(time.perf_counter() - t0)
per_iteration_us = statistics.median(times) / trips * 1e6

rng = np.random.default_rng(0)
alpha = rng.uniform(size=100).astype(np.float32)
beta = rng.uniform(size=99).astype(np.float32)
solve = jax.jit(lambda a, b: jax.scipy.linalg.eigh_tridiagonal(a, b, eigvals_only=True))
t0 = time.perf_counter()
solve(alpha, beta).block_until_ready()
first = time.perf_counter() - t0
again = []
for _ in range(3):
  t0 = time.perf_counter()
  solve(alpha, beta).block_until_ready()
  again.append(time.perf_counter() - t0)
print("RESULT " + json.dumps({"per_iteration_us": round(per_iteration_us, 2),
                              "eigh_tridiagonal_first_s": round(first, 3),
                              "eigh_tridiagonal_s": round(statistics.median(again), 4),
                              "backend": jax.default_backend()}))
"""


def run_side(side: str, trips: int, timeout: float) -> dict:
  env = dict(os.environ)
  if side == "upstream":
    env["JAX_FLAGTREE_DISABLE"] = "1"
  rec = {"side": side}
  try:
    out = subprocess.run([sys.executable, "-c", CHILD, str(trips)], env=env,
                         capture_output=True, text=True, timeout=timeout)
  except subprocess.TimeoutExpired:
    rec["error"] = f"no result in {timeout:.0f} s"
    return rec
  for line in out.stdout.splitlines():
    if line.startswith("RESULT "):
      rec.update(json.loads(line[len("RESULT "):]))
  if "per_iteration_us" not in rec:
    rec["error"] = (out.stderr.strip().splitlines() or ["no output"])[-1][:300]
  return rec


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--iterations", type=int, default=2000)
  parser.add_argument("--timeout", type=float, default=300)
  args = parser.parse_args()
  try:
    import jax  # noqa: F401
  except ImportError:
    print("skip: JAX is not installed")
    return
  results = {side: run_side(side, args.iterations, args.timeout)
             for side in ("ours", "upstream")}
  for rec in results.values():
    print(json.dumps(rec), flush=True)
  ours, up = results["ours"], results["upstream"]
  ratios = {}
  for key in ("per_iteration_us", "eigh_tridiagonal_s", "eigh_tridiagonal_first_s"):
    if key in ours and key in up and ours[key] > 0:
      ratios[key] = round(up[key] / ours[key], 3)
  print(json.dumps({"upstream_over_ours": ratios}))


if __name__ == "__main__":
  main()
