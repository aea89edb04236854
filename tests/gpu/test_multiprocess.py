"""Two processes of one jax.distributed job, one GPU each, in fl_only.

The parent starts two workers (this script with `--worker ID PORT`), each
seeing one GPU through CUDA_VISIBLE_DEVICES, which call
jax.distributed.initialize on a localhost coordinator. JAX then creates our
client with node_id/num_nodes and the job's key-value store; the plugin
exchanges device lists through it (src/pjrt/device_exchange.h) and hands the
runtime a clique-id exchange over it (src/pjrt/kv_clique_ids.h).

Checks, each a PASS in the parent only when both workers pass it:
* `discovery`: 2 processes, 2 devices, 1 local; global ids 0 (process 0) and
  1 (process 1); every device's process_index.
* `local_jit`: a one-device jit on the local GPU (2 * x) against numpy.
* `psum`, `all_gather`, `ppermute`, `all_to_all`: pmap over both processes'
  devices, each process passing its row of the same seeded array, against
  numpy: the sum of the rows; both rows stacked; the other process's row;
  row p of every device's blocks (out[p][d] = x[d][p]).
JAX 0.11 runs pmap as jit of a shard_map, which reaches the plugin as its
global view: one sdy.manual_computation over the mesh, compiled as its body
(src/frontend/sdy/localize_manual.h). Should the plugin refuse it instead (its
"global view" error), those checks report SKIP quoting it
(MULTIPROCESS_STRICT=1 counts that as a failure). Skips below 2 GPUs."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

STRICT = os.environ.get("MULTIPROCESS_STRICT") == "1"
CHECKS = ("discovery", "local_jit", "psum", "all_gather", "ppermute", "all_to_all")
TIMEOUT_S = 240


def gpu_count() -> int:
  if shutil.which("nvidia-smi") is None:
    return 0
  listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
  return sum(1 for line in listed.stdout.splitlines() if line.startswith("GPU "))


# ---- worker: one process of the job ----


def worker(process_id: int, port: int) -> None:
  import jax
  import numpy as np

  jax.distributed.initialize(coordinator_address=f"127.0.0.1:{port}", num_processes=2,
                             process_id=process_id)
  rng = np.random.default_rng(7)  # the same arrays in both processes
  rows = rng.standard_normal((2, 5)).astype(np.float32)
  pairs = rng.standard_normal((2, 3)).astype(np.float32)
  blocks = rng.standard_normal((2, 2, 3)).astype(np.float32)
  p = process_id

  def discovery():
    if not h.ours_is_active():
      raise AssertionError("the gpu backend is not jax-flagtree")
    assert jax.process_count() == 2, jax.process_count()
    assert jax.process_index() == p, jax.process_index()
    assert jax.device_count() == 2, jax.devices()
    assert jax.local_device_count() == 1, jax.local_devices()
    assert [d.id for d in jax.devices()] == [0, 1], jax.devices()
    assert [d.process_index for d in jax.devices()] == [0, 1], jax.devices()
    assert jax.local_devices()[0].id == p, jax.local_devices()

  def local_jit():
    x = np.arange(6, dtype=np.float32)
    got = jax.jit(lambda v: v * 2)(jax.device_put(x, jax.local_devices()[0]))
    np.testing.assert_array_equal(np.asarray(got), x * 2)

  def pmapped(fn, local):
    try:
      return np.asarray(jax.pmap(fn, axis_name="i")(local[None]))[0]
    except Exception as e:  # noqa: BLE001
      if "global view" in str(e) and not STRICT:
        h.skip(f"refused as documented (global view): {str(e).splitlines()[0][:300]}")
      raise

  def psum():
    got = pmapped(lambda v: jax.lax.psum(v, "i"), rows[p])
    np.testing.assert_allclose(got, rows.sum(axis=0), rtol=1e-6, atol=1e-6)

  def all_gather():
    got = pmapped(lambda v: jax.lax.all_gather(v, "i"), pairs[p])
    np.testing.assert_array_equal(got, pairs)

  def ppermute():
    got = pmapped(lambda v: jax.lax.ppermute(v, "i", perm=[(0, 1), (1, 0)]), rows[p])
    np.testing.assert_array_equal(got, rows[1 - p])

  def all_to_all():
    got = pmapped(lambda v: jax.lax.all_to_all(v, "i", split_axis=0, concat_axis=0),
                  blocks[p])
    np.testing.assert_array_equal(got, blocks[:, p])

  for name, fn in zip(CHECKS, (discovery, local_jit, psum, all_gather, ppermute,
                               all_to_all)):
    h.check(name, fn)
  jax.distributed.shutdown()
  h.finish()


# ---- parent ----


def free_port() -> int:
  with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def run_job() -> list[tuple[int, str]]:
  port = free_port()
  workers = []
  for process_id in range(2):
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(process_id))
    workers.append(subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), "--worker", str(process_id), str(port)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
  results = []
  deadline = time.monotonic() + TIMEOUT_S  # one budget for the whole job
  for w in workers:
    try:
      out, _ = w.communicate(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
      w.kill()
      out, _ = w.communicate()
      out += f"\n(worker killed after {TIMEOUT_S} s)"
    results.append((w.returncode, out))
  return results


def main() -> None:
  h.require_gpu_and_jax()
  if gpu_count() < 2:
    reason = f"needs 2 GPUs, this machine has {gpu_count()}"
    for name in CHECKS:
      h.check(name, lambda: h.skip(reason))
    h.finish()
  results = run_job()
  outcomes = [dict() for _ in results]
  line = re.compile(r"^(PASS|FAIL|SKIP) (\w+)(.*)$")
  for process_id, (rc, out) in enumerate(results):
    print(f"-- worker {process_id} (exit {rc})", flush=True)
    for text in out.splitlines():
      print(f"  [{process_id}] {text}", flush=True)  # indented: not counted twice
      m = line.match(text)
      if m and m.group(2) in CHECKS:
        outcomes[process_id][m.group(2)] = (m.group(1), m.group(3).lstrip(": "))

  def verdict(name):
    def fn():
      seen = [o.get(name) for o in outcomes]
      missing = [i for i, s in enumerate(seen) if s is None]
      if missing:
        raise AssertionError(f"worker(s) {missing} never reported {name} "
                             f"(exit codes {[rc for rc, _ in results]})")
      failed = [f"worker {i}: {s[1]}" for i, s in enumerate(seen) if s[0] == "FAIL"]
      if failed:
        raise AssertionError("; ".join(failed))
      skipped = [f"worker {i}: {s[1]}" for i, s in enumerate(seen) if s[0] == "SKIP"]
      if skipped:
        h.skip(skipped[0])
    return fn

  for name in CHECKS:
    h.check(name, verdict(name))
  h.finish()


if __name__ == "__main__":
  if len(sys.argv) == 4 and sys.argv[1] == "--worker":
    worker(int(sys.argv[2]), int(sys.argv[3]))
  else:
    main()
