"""1000 put/get cycles of 64 MiB leave bytes_in_use where it started."""

import gc
import time

import pjrt_harness as h

h.require_gpu_and_jax()

import jax  # noqa: E402
import numpy as np  # noqa: E402

CYCLES = 1000
BYTES = 64 << 20


def bytes_in_use():
  return jax.devices()[0].memory_stats()["bytes_in_use"]


def cycles():
  host = np.random.default_rng(1).integers(0, 256, size=BYTES, dtype=np.uint8)
  gc.collect()
  start_bytes = bytes_in_use()
  start = time.perf_counter()
  peak = start_bytes
  for i in range(CYCLES):
    device = jax.device_put(host)
    back = np.asarray(device)
    if i % 250 == 0:
      assert back[12345] == host[12345]
      peak = max(peak, bytes_in_use())
    del device, back
  gc.collect()
  # Frees behind pending GPU work complete on the completion thread.
  deadline = time.time() + 10
  while bytes_in_use() != start_bytes and time.time() < deadline:
    time.sleep(0.01)
  end_bytes = bytes_in_use()
  elapsed = time.perf_counter() - start
  print(f"{CYCLES} cycles of {BYTES >> 20} MiB in {elapsed:.1f}s; bytes_in_use "
        f"{start_bytes} -> {end_bytes} (peak seen {peak})", flush=True)
  assert end_bytes == start_bytes, (start_bytes, end_bytes)
  assert peak <= start_bytes + 4 * BYTES, peak


h.check("put_get_cycles_64mib", cycles)
h.finish()
