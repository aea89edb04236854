"""A compile worker killed mid-compile (SIGKILL, as the OOM killer does) costs
the user nothing but time: the kernel it held is compiled again on a fresh
worker and the jitted call returns the right numbers.

The script runs a child Python process that jits one large program of many
distinct kernels (a fresh kernel cache, so every kernel is compiled) with
XLA_FLAGTREE_LOG=1. Meanwhile this process watches the child's compile workers
(its child processes running jax_flagtree.worker) and SIGKILLs up to two of
them while they compile (a worker running ptxas, or a running one that has
spent more CPU time than importing the compiler takes). At most two kills keep every
kernel within the pool's two retries. Checks: the child's results equal
numpy's, at least one worker was killed mid-compile, and the child's log names
each lost worker's pid, signal 9 and the retry.

Run from the repository root on the GPU machine:
    python3 tests/gpu/test_worker_loss.py
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

KERNELS = 48
MAX_KILLS = 2
# CPU seconds after which a worker is past importing the compiler for sure.
BUSY_CPU_SECONDS = 6.0


def child() -> None:
  import jax
  import jax.numpy as jnp
  import numpy as np

  # Each row count gives its own kernels (shapes are in the TTIR), so none of
  # them is a cache hit of another.
  inputs = [np.linspace(-1.0, 1.0, (i + 3) * 67, dtype=np.float32).reshape(i + 3, 67)
            for i in range(KERNELS)]

  @jax.jit
  def program(xs):
    return [jnp.sum(jnp.tanh(x * (i + 1)) + jnp.exp(-x * x), axis=1) for i, x in enumerate(xs)]

  got = program([jnp.asarray(x) for x in inputs])
  for i, (x, g) in enumerate(zip(inputs, got)):
    want = np.sum(np.tanh(x * (i + 1)) + np.exp(-x * x), axis=1)
    np.testing.assert_allclose(np.asarray(g), want, rtol=2e-5, atol=2e-5,
                               err_msg=f"output {i}")
  print("RESULT OK", flush=True)


def children_of(pid: int) -> list:
  found = []
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      with open(f"/proc/{entry}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
      continue
    if int(fields[1]) == pid:
      found.append(int(entry))
  return found


def cmdline(pid: int) -> str:
  try:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
      return f.read().replace(b"\0", b" ").decode(errors="replace")
  except OSError:
    return ""


def running(pid: int) -> bool:
  """In state R: a worker waiting for its next request sleeps in a read."""
  try:
    with open(f"/proc/{pid}/stat") as f:
      return f.read().rsplit(")", 1)[1].split()[0] == "R"
  except OSError:
    return False


def cpu_seconds(pid: int) -> float:
  try:
    with open(f"/proc/{pid}/stat") as f:
      fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
  except OSError:
    return 0.0


def parent() -> None:
  sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
  import pjrt_harness as h

  h.require_gpu_and_jax()
  try:
    import triton  # noqa: F401
  except ImportError:
    print("SKIP test_worker_loss: triton is not installed", flush=True)
    sys.exit(0)

  cache = tempfile.mkdtemp(prefix="jft-worker-loss-cache-")
  env = dict(os.environ, XLA_FLAGTREE_LOG="1", JAX_FLAGTREE_CACHE_DIR=cache)
  log_path = os.path.join(cache, "child.log")
  kills = []  # (pid, how we knew it was compiling)

  def run():
    with open(log_path, "w") as log:
      proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--child"],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
      deadline = time.time() + 540
      while proc.poll() is None and time.time() < deadline:
        if len(kills) < MAX_KILLS:
          for worker in children_of(proc.pid):
            if "jax_flagtree.worker" not in cmdline(worker):
              continue
            if any(worker == pid for pid, _ in kills):
              continue
            busy = children_of(worker)
            if busy:
              why = "running " + cmdline(busy[0]).split(" ")[0]
            elif cpu_seconds(worker) > BUSY_CPU_SECONDS and running(worker):
              why = f"{cpu_seconds(worker):.1f} CPU seconds in"
            else:
              continue
            os.kill(worker, signal.SIGKILL)
            kills.append((worker, why))
            break
        time.sleep(0.02)
      if proc.poll() is None:
        proc.kill()
        proc.wait()
        raise AssertionError("the child did not finish within 540 s")
      return proc.returncode

  returncode = None

  def call_survives():
    nonlocal returncode
    returncode = run()
    output = open(log_path).read()
    print(f"killed: {kills}", flush=True)
    if returncode != 0 or "RESULT OK" not in output:
      raise AssertionError(f"child exited {returncode}; its output ends with:\n{output[-4000:]}")

  def workers_were_killed_mid_compile():
    if returncode is None:
      h.skip("the call did not run")
    if not kills:
      raise AssertionError("the program compiled before any worker could be killed: "
                           "make it larger")

  def retries_are_logged():
    if not kills:
      h.skip("no worker was killed")
    output = open(log_path).read()
    lines = [line for line in output.splitlines() if "compile worker lost" in line]
    for line in lines:
      print("  " + line, flush=True)
    for pid, _ in kills:
      if not any(f"(pid {pid}) was killed by signal 9" in line and "retry" in line
                 for line in lines):
        raise AssertionError(f"no log line for worker {pid}")

  h.check("a jitted call survives compile workers killed mid-compile", call_survives)
  h.check("workers were killed while compiling", workers_were_killed_mid_compile)
  h.check("each lost worker is logged with its signal and the retry", retries_are_logged)
  h.finish()


if __name__ == "__main__":
  if sys.argv[1:] == ["--child"]:
    child()
  else:
    parent()
