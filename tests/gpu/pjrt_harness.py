"""Tiny harness for the plugin's GPU tests (plain scripts, no pytest needed).

A test script calls `check(name, fn)` for each case; `fn` raises to fail and
calls `skip(reason)` to skip. Each result is one line ("PASS name", "FAIL name:
why", "SKIP name: why"), which run_all.sh counts. `finish()` exits non-zero
when anything failed.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import traceback

_results = {"PASS": 0, "FAIL": 0, "SKIP": 0}


class Skip(Exception):
  pass


def skip(reason: str) -> None:
  raise Skip(reason)


def check(name: str, fn) -> None:
  start = time.perf_counter()
  try:
    fn()
  except Skip as s:
    _results["SKIP"] += 1
    print(f"SKIP {name}: {s}", flush=True)
    return
  except Exception as e:  # a failure is reported, the script goes on
    _results["FAIL"] += 1
    print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    traceback.print_exc(file=sys.stdout)
    return
  _results["PASS"] += 1
  print(f"PASS {name} ({time.perf_counter() - start:.2f}s)", flush=True)


def require_gpu_and_jax() -> None:
  """Skips the whole script (exit 0 with SKIP lines) without a GPU or JAX."""
  reason = None
  if shutil.which("nvidia-smi") is None and not os.path.exists("/dev/nvidiactl"):
    reason = "no NVIDIA GPU on this machine"
  else:
    try:
      import jax  # noqa: F401
    except ImportError:
      reason = "JAX is not installed"
  if reason:
    print(f"SKIP {os.path.basename(sys.argv[0])}: {reason}", flush=True)
    sys.exit(0)


def ours_is_active() -> bool:
  import jax
  return "driver API" in jax.devices()[0].client.platform_version


def finish() -> None:
  print(f"{_results['PASS']} passed, {_results['FAIL']} failed, {_results['SKIP']} skipped",
        flush=True)
  sys.exit(1 if _results["FAIL"] else 0)
