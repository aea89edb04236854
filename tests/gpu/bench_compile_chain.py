"""First-call time of a chain of N elementwise ops (sin, tanh, multiply-add on 4,096
floats: one fused kernel for us), each N in a fresh process, ours then upstream
(JAX_FLAGTREE_DISABLE=1), so compile cost is compared as the program grows.

  python3 tests/gpu/bench_compile_chain.py [--n 30,100,300,1000] [--timeout 180]

Prints one JSON line per (N, side): first_call_s, or the error / timeout, and a last
line with ours / upstream per N. The plugin must be importable (PYTHONPATH), as for the
other GPU tests; without JAX it says so and exits 0.
"""
import argparse
import json
import os
import subprocess
import sys
import time

CHILD = r"""
import sys, time
import jax, jax.numpy as jnp
n = int(sys.argv[1])
def chain(x):
  for i in range(n):
    x = (jnp.sin, jnp.tanh, lambda v: v * 1.0001 + 0.5)[i % 3](x)
  return x
x = jnp.linspace(-1.0, 1.0, 4096, dtype=jnp.float32)
x.block_until_ready()
t0 = time.perf_counter()
jax.jit(chain)(x).block_until_ready()
print("FIRST_CALL_S", time.perf_counter() - t0, jax.default_backend())
"""


def run_one(n: int, side: str, timeout: float) -> dict:
  env = dict(os.environ)
  if side == "upstream":
    env["JAX_FLAGTREE_DISABLE"] = "1"
  rec = {"n": n, "side": side}
  start = time.perf_counter()
  try:
    out = subprocess.run([sys.executable, "-c", CHILD, str(n)], env=env, capture_output=True,
                         text=True, timeout=timeout)
  except subprocess.TimeoutExpired:
    rec["error"] = f"no result in {timeout:.0f} s"
    return rec
  rec["process_s"] = round(time.perf_counter() - start, 2)
  for line in out.stdout.splitlines():
    if line.startswith("FIRST_CALL_S"):
      rec["first_call_s"] = round(float(line.split()[1]), 3)
  if "first_call_s" not in rec:
    rec["error"] = (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1][:300]
  return rec


def main() -> int:
  parser = argparse.ArgumentParser()
  parser.add_argument("--n", default="30,100,300,1000")
  parser.add_argument("--timeout", type=float, default=180)
  args = parser.parse_args()
  try:
    import jax  # noqa: F401
  except ImportError:
    print("SKIP bench_compile_chain: JAX is not installed")
    return 0
  ratios = {}
  for n in (int(v) for v in args.n.split(",") if v):
    times = {}
    for side in ("ours", "upstream"):
      rec = run_one(n, side, args.timeout)
      print(json.dumps(rec), flush=True)
      times[side] = rec.get("first_call_s")
    if times["ours"] and times["upstream"]:
      ratios[n] = round(times["ours"] / times["upstream"], 2)
  print("ours/upstream first call:", json.dumps(ratios))
  return 0


if __name__ == "__main__":
  sys.exit(main())
