"""jax.profiler as jax[cuda] users see it, through our PJRT profiler extension.

`jax.profiler.trace(tmpdir)` around a jitted matmul followed by elementwise
work, then the written `.xplane.pb` read back with jaxlib's
`jax.profiler.ProfileData`: a "/device:GPU:0" plane exists (CUPTI found by
our registration in the nvidia-cuda-cupti wheel), its stream lines hold a
kernel of ours (named after its fusion: the route report's kernel names) and
a GEMM (the cuBLASLt library's kernel, or our TTIR matmul), each with a
positive duration inside the range of the host events of the same profile
(jaxlib normalises every plane's clock to the session's start); the derived "XLA Modules" line names the jitted function. Prints
the upstream-comparable facts (plane names, event counts) as INFO.

Run from the repository root on the GPU machine, plugin installed:
  python3 tests/gpu/test_profiler.py
Skips without a GPU or JAX. `JFT_PROFILER_API_SIZE=80` selects the original
8-entry PLUGIN_Profiler_Api for a jaxlib built against that header (jaxlib
logs "Unexpected PLUGIN_Profiler_Api size" when the sizes differ).
"""

import glob
import os
import re
import tempfile
import time

import pjrt_harness as h

h.require_gpu_and_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

_state = {}
# Words in the names of cuBLAS/cuBLASLt GEMM kernels (sm90_xmma_gemm_...,
# cutlass_..., nvjet_...).
VENDOR_WORDS = ("gemm", "xmma", "cutlass", "nvjet", "cublas")


def f(a, b):
  return jnp.tanh(a @ b) * 2.0 + 1.0


def run_traced():
  if not h.ours_is_active():
    h.skip("the cuda backend is not jax-flagtree's")
  a = jnp.asarray(np.random.default_rng(0).standard_normal((512, 512), np.float32))
  b = jnp.asarray(np.random.default_rng(1).standard_normal((512, 512), np.float32))
  jitted = jax.jit(f)
  jitted(a, b).block_until_ready()  # compile outside the trace
  directory = tempfile.mkdtemp(prefix="jft_profile_")
  window_start = time.time_ns()
  with jax.profiler.trace(directory):
    for _ in range(3):
      out = jitted(a, b)
    out.block_until_ready()
  window_end = time.time_ns()
  files = glob.glob(os.path.join(directory, "**", "*.xplane.pb"), recursive=True)
  assert files, f"no .xplane.pb under {directory}"
  from jax.profiler import ProfileData
  _state["data"] = ProfileData.from_file(files[0])
  _state["window"] = (window_start, window_end)
  print(f"INFO profile {files[0]}", flush=True)


def gpu_plane():
  data = _state.get("data")
  if data is None:
    h.skip("no profile was written")
  planes = {p.name: p for p in data.planes}
  print(f"INFO planes {sorted(planes)}", flush=True)
  assert "/device:GPU:0" in planes, (
      f"no GPU plane (planes: {sorted(planes)}); is libcupti found? "
      "(JFT_CUPTI_LIBRARY, nvidia-cuda-cupti wheel)")
  return planes["/device:GPU:0"]


def stream_events():
  events = []
  for line in gpu_plane().lines:
    if line.name.startswith("Stream #"):
      events.extend(line.events)
  return events


def check_gpu_plane():
  plane = gpu_plane()
  lines = [line.name for line in plane.lines]
  print(f"INFO GPU lines {lines}", flush=True)
  assert any(name.startswith("Stream #") for name in lines), lines


def check_kernels_named():
  names = sorted({e.name for e in stream_events()})
  print(f"INFO GPU event names {names[:20]}", flush=True)
  def vendor(n):
    return any(word in n.lower() for word in VENDOR_WORDS)
  # Ours: the plain identifiers our kernels are named by (their fusion's name).
  ours = [n for n in names if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) and not vendor(n)
          and not n.startswith(("Memcpy", "Memset"))]
  assert ours, f"no kernel of ours among {names}"
  gemm = [n for n in names if vendor(n) or "matmul" in n.lower() or "dot" in n.lower()]
  assert gemm, f"no GEMM kernel among {names}"


def host_event_range():
  """Earliest start and latest end of the host planes' events. jaxlib may
  normalise every plane's times to the session's start, so GPU events are
  compared with the host events of the same profile, not with time.time_ns()."""
  starts, ends = [], []
  for plane in _state["data"].planes:
    if plane.name.startswith("/device:"):
      continue
    for line in plane.lines:
      for e in line.events:
        starts.append(e.start_ns)
        ends.append(e.start_ns + e.duration_ns)
  return (min(starts), max(ends)) if starts else None


def check_durations_in_window():
  events = stream_events()
  assert events, "no GPU events"
  host = host_event_range()
  gpu = (min(e.start_ns for e in events), max(e.start_ns + e.duration_ns for e in events))
  print(f"INFO host events {host}, GPU events {gpu}, wall window {_state['window']}",
        flush=True)
  assert host is not None, "no host events to compare the GPU clock with"
  for e in events:
    assert e.duration_ns > 0, f"{e.name}: duration {e.duration_ns}"
    assert host[0] - 1e6 <= e.start_ns <= host[1] + 1e6, (
        f"{e.name} starts at {e.start_ns}, outside the host events' range {host}")


def check_module_line():
  lines = {line.name: line for line in gpu_plane().lines}
  first = stream_events()[:3]
  print(f"INFO first stream events' stats "
        f"{[(e.name, list(getattr(e, 'stats', []))) for e in first]}", flush=True)
  if "XLA Modules" not in lines:
    raise AssertionError(f"no 'XLA Modules' line among {sorted(lines)}")
  names = {e.name for e in lines["XLA Modules"].events}
  print(f"INFO modules {sorted(names)}", flush=True)
  assert any("f" in n for n in names), names
  assert len(list(lines["XLA Modules"].events)) >= 3, "one event per traced run"


h.check("trace a jitted matmul + elementwise", run_traced)
h.check("a /device:GPU:0 plane with stream lines", check_gpu_plane)
h.check("our kernels and a GEMM by name", check_kernels_named)
h.check("positive durations inside the trace window", check_durations_in_window)
h.check("each run on the XLA Modules line", check_module_line)
h.finish()
