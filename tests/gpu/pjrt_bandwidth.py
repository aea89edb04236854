"""Host-to-device and device-to-host bandwidth for a 1 GiB array, through
whichever plugin is active (run_all.sh runs it once per plugin)."""

import time

import pjrt_harness as h

h.require_gpu_and_jax()

import jax  # noqa: E402
import numpy as np  # noqa: E402

BYTES = 1 << 30
REPEATS = 5


def measure():
  import os
  which = "ours" if h.ours_is_active() else "upstream"
  if which == "ours" and os.environ.get("JFT_PINNED_STAGING") == "0":
    which = "ours (driver pageable path, JFT_PINNED_STAGING=0)"
  host = np.random.default_rng(2).integers(0, 256, size=BYTES, dtype=np.uint8)
  jax.device_put(host).block_until_ready()  # warm-up
  h2d, d2h = [], []
  for _ in range(REPEATS):
    start = time.perf_counter()
    device = jax.device_put(host)
    device.block_until_ready()
    h2d.append(time.perf_counter() - start)
    start = time.perf_counter()
    back = np.asarray(device)  # a fresh array: no cached host copy
    d2h.append(time.perf_counter() - start)
    assert back[BYTES - 1] == host[BYTES - 1]
    del device, back
  gbps = lambda seconds: BYTES / seconds / 1e9  # noqa: E731
  print(f"BANDWIDTH {which}: H2D {gbps(min(h2d)):.1f} GB/s (median "
        f"{gbps(sorted(h2d)[REPEATS // 2]):.1f}), D2H {gbps(min(d2h)):.1f} GB/s (median "
        f"{gbps(sorted(d2h)[REPEATS // 2]):.1f}), 1 GiB, best of {REPEATS}", flush=True)


def host_reference():
  """What the host alone manages: first-touch writes and a warm memcpy of 1 GiB."""
  start = time.perf_counter()
  fresh = np.empty(BYTES, np.uint8)
  fresh.fill(1)
  touch = time.perf_counter() - start
  source = np.ones(BYTES, np.uint8)
  start = time.perf_counter()
  np.copyto(fresh, source)
  copy = time.perf_counter() - start
  print(f"HOST first-touch write {BYTES / touch / 1e9:.1f} GB/s, warm memcpy "
        f"{BYTES / copy / 1e9:.1f} GB/s (one thread)", flush=True)


h.check("bandwidth_1gib", measure)
h.check("host_reference", host_reference)
h.finish()
