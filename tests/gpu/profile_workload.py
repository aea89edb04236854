"""Where a benchmark workload's GPU time goes, kernel by kernel.

Runs one workload of a benchmark folder (a `workloads.py` whose `workloads()` maps
names to `(fn, make_args, bytes, flops)`), warms it up, then traces STEPS calls
queued back to back with `jax.profiler.trace` and reads the profile back with
`jax.profiler.ProfileData`. Prints, per call: the wall time, the GPU busy time (the
union of kernel intervals), the kernel count, and the kernels summed by name, largest
first (`KERNEL` lines: microseconds per call, launches per call, name). Run it once for
upstream and once for ours in the same device call and compare the tables:

    JAX_FLAGTREE_DISABLE=1 python3 tests/gpu/profile_workload.py --bench DIR --only gpt_train_flax
    PYTHONPATH=<plugin> python3 tests/gpu/profile_workload.py --bench DIR --only gpt_train_flax

A benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import glob
import os
import sys
import tempfile
import time


def kernel_events(data):
  """GPU kernel events of every device plane's stream lines."""
  events = []
  for plane in data.planes:
    if not plane.name.startswith("/device:GPU"):
      continue
    for line in plane.lines:
      if line.name.startswith("Stream #"):
        events.extend(line.events)
  return events


def busy_ns(events) -> int:
  """Length of the union of the events' intervals."""
  spans = sorted((e.start_ns, e.start_ns + e.duration_ns) for e in events)
  total, end = 0, None
  for start, stop in spans:
    if end is None or start > end:
      total += stop - start
      end = stop
    elif stop > end:
      total += stop - end
      end = stop
  return total


def main() -> int:
  ap = argparse.ArgumentParser()
  ap.add_argument("--bench", required=True, help="folder holding workloads.py")
  ap.add_argument("--only", required=True, help="workload name")
  ap.add_argument("--steps", type=int, default=5)
  ap.add_argument("--top", type=int, default=30)
  ap.add_argument("--label", default="")
  a = ap.parse_args()
  sys.path.insert(0, os.path.abspath(a.bench))
  import jax
  from jax.profiler import ProfileData
  from workloads import workloads

  fn, make_args, _, _ = workloads()[a.only]
  args = make_args()
  f = jax.jit(fn)
  t0 = time.perf_counter()
  jax.block_until_ready(f(*args))
  first = time.perf_counter() - t0
  for _ in range(3):
    jax.block_until_ready(f(*args))
  directory = tempfile.mkdtemp(prefix="jft_profile_")
  with jax.profiler.trace(directory):
    t0 = time.perf_counter()
    outs = [f(*args) for _ in range(a.steps)]
    jax.block_until_ready(outs)
    wall = (time.perf_counter() - t0) / a.steps
  files = glob.glob(os.path.join(directory, "**", "*.xplane.pb"), recursive=True)
  if not files:
    print(f"no profile written under {directory}")
    return 1
  events = kernel_events(ProfileData.from_file(files[0]))
  by_name: dict[str, list[int]] = collections.defaultdict(list)
  for e in events:
    by_name[e.name].append(e.duration_ns)
  steps = a.steps
  label = a.label or jax.default_backend()
  print(f"PROFILE {label} {a.only}: first call {first:.2f} s, wall {wall * 1e3:.3f} ms/call, "
        f"GPU busy {busy_ns(events) / steps / 1e3:.1f} us/call, "
        f"kernel time {sum(e.duration_ns for e in events) / steps / 1e3:.1f} us/call, "
        f"{len(events) / steps:.0f} kernels/call")
  rows = sorted(by_name.items(), key=lambda kv: -sum(kv[1]))
  for name, durations in rows[:a.top]:
    print(f"KERNEL {label} {sum(durations) / steps / 1e3:9.1f} us "
          f"{len(durations) / steps:5.1f}x  {name[:140]}")
  rest = rows[a.top:]
  if rest:
    print(f"KERNEL {label} {sum(sum(d) for _, d in rest) / steps / 1e3:9.1f} us "
          f"{sum(len(d) for _, d in rest) / steps:5.1f}x  ({len(rest)} other names)")
  return 0


if __name__ == "__main__":
  sys.exit(main())
