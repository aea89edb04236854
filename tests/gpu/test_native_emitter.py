"""The native route's CUDA C (src/codegen/native) on the GPU, beside the TTIR route.

For every zoo program, `jft native --json` gives each loop and reduction
group's native kernel (CUDA C, parameters, launch) and the TTIR route's kernel
of the same group. Each native kernel is compiled by cupy (cupy.RawKernel:
NVRTC through cupy, a compiler path independent of our binding), run on random
inputs, and its outputs compared with the TTIR kernel's, compiled by the
compile worker (Triton) and launched on the same inputs:
  integers, bool: exact;  floats: NaN and infinity positions equal, relative error
  norm |a - b| / |b| <= 1e-5 for float32/float64 (the routes reassociate
  reductions and round library functions differently), 2e-2 for
  bfloat16/float16 (one rounding apart); complex: each part as its float type.
`jft native --compile` also compiles every kernel through our own NVRTC binding
(src/runtime/gpu/nvrtc.h).

Run from the repository root on the GPU machine:
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release && \
      cmake --build build-gpu --target jft && \
      python3 tests/gpu/test_native_emitter.py --jft build-gpu/tools/jft
Skips (saying why) without cupy, a GPU or the jft binary; the TTIR comparison
skips without Triton. NATIVE_ONLY=prog,... picks zoo programs.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "python"))

from pjrt_harness import check, finish, skip  # noqa: E402

try:
  import numpy as np
except ImportError as missing:
  check("native_emitter", lambda: skip(f"needs numpy: {missing}"))
  finish()

ZOO = ROOT / "tests" / "fixtures" / "zoo"
STORAGE = {"i1": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
           "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
           "f16": np.uint16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64,
           "complex<f32>": np.complex64, "complex<f64>": np.complex128}


def as_float(dtype: str, values: np.ndarray) -> np.ndarray:
  """Stored values as float64 for comparing (f16/bf16 from their bit patterns)."""
  if dtype == "bf16":
    return (values.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
  if dtype == "f16":
    return values.view(np.float16).astype(np.float64)
  return values.astype(np.float64)


def random_input(dtype: str, shape, rng) -> np.ndarray:
  shape = tuple(shape)
  if dtype == "i1":
    return rng.integers(0, 2, shape).astype(np.uint8)
  if dtype in ("f32", "f64"):
    return rng.standard_normal(shape).astype(STORAGE[dtype])
  if dtype.startswith("complex"):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(STORAGE[dtype])
  if dtype == "f16":
    return rng.standard_normal(shape).astype(np.float16).view(np.uint16)
  if dtype == "bf16":
    bits = rng.standard_normal(shape).astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
  info = np.iinfo(STORAGE[dtype])
  return rng.integers(max(info.min, -1000), min(info.max, 1000) + 1, shape).astype(STORAGE[dtype])


def find_jft(given: str | None) -> pathlib.Path | None:
  for candidate in (given, os.environ.get("JFT_BIN"), "build-gpu/tools/jft", "build/tools/jft"):
    if candidate and (ROOT / candidate).exists():
      return ROOT / candidate
  return None


class TtirRunner:
  """The TTIR route's kernel of a group: the compile worker's cubin, launched by cupy."""

  def __init__(self):
    from jax_flagtree import worker  # needs triton
    self.worker = worker
    self.dir = tempfile.mkdtemp(prefix="jft-native-ttir-")

  def run(self, cupy, kernel, buffers):
    binary, ext, _, metadata, _ = self.worker.run_pipeline(
        kernel["ttir"], {"backend": "cuda", "arch": "90", "warp_size": 32},
        {"num_warps": kernel["ttir_num_warps"], "num_stages": 1, "num_ctas": 1})
    meta = metadata if isinstance(metadata, dict) else vars(metadata)
    if meta.get("global_scratch_size", 0) or meta.get("profile_scratch_size", 0):
      skip("the TTIR kernel needs scratch memory (not provided by this harness)")
    path = os.path.join(self.dir, kernel["ttir_name"] + "." + ext)
    with open(path, "wb") as f:
      f.write(binary)
    function = cupy.RawModule(path=path).get_function(kernel["ttir_name"])
    shared = int(meta.get("shared", 0) or 0)
    if shared > 48 * 1024:
      function.max_dynamic_shared_size_bytes = shared
    # Triton appends the global and profile scratch pointers: null here.
    args = tuple(buffers) + (np.uint64(0), np.uint64(0))
    function(tuple(kernel["ttir_grid"]), (32 * kernel["ttir_num_warps"], 1, 1), args,
             shared_mem=shared)


def compare(name: str, dtype: str, got: np.ndarray, want: np.ndarray) -> None:
  if dtype.startswith("complex"):
    part = "f32" if dtype == "complex<f32>" else "f64"
    compare(name + ".real", part, got.real.copy(), want.real.copy())
    compare(name + ".imag", part, got.imag.copy(), want.imag.copy())
    return
  if dtype not in ("f16", "bf16", "f32", "f64"):
    bad = np.flatnonzero(got.reshape(-1) != want.reshape(-1))
    if bad.size:
      i = bad[0]
      raise AssertionError(f"{name}: {bad.size} elements differ, first at {i}: "
                           f"{got.reshape(-1)[i]} vs {want.reshape(-1)[i]}")
    return
  a, b = as_float(dtype, got).reshape(-1), as_float(dtype, want).reshape(-1)
  if not np.array_equal(np.isnan(a), np.isnan(b)):
    raise AssertionError(f"{name}: NaN positions differ")
  if not np.array_equal(np.isinf(a), np.isinf(b)) or np.any(a[np.isinf(a)] != b[np.isinf(b)]):
    raise AssertionError(f"{name}: infinities differ")
  ok = np.isfinite(b)
  if not ok.any():
    return
  # The relative error norm, as test_zoo.py measures it: the routes round
  # and reassociate differently, elementwise errors near zero mean nothing.
  tolerance = 2e-2 if dtype in ("f16", "bf16") else 1e-5
  scale = np.linalg.norm(b[ok])
  error = np.linalg.norm(a[ok] - b[ok]) / (scale if scale > 0 else 1.0)
  if error > tolerance:
    i = int(np.argmax(np.abs(a[ok] - b[ok])))
    raise AssertionError(f"{name}: relative error norm {error:.3g} > {tolerance} "
                         f"(worst {a[ok][i]!r} vs {b[ok][i]!r})")


def main() -> None:
  parser = argparse.ArgumentParser()
  parser.add_argument("--jft", help="the jft binary (default: build-gpu/tools/jft)")
  args = parser.parse_args()
  try:
    import cupy
    cupy.cuda.runtime.getDeviceCount()
  except Exception as e:  # no cupy or no GPU
    check("native_emitter", lambda: skip(f"needs cupy and a GPU: {type(e).__name__}: {e}"))
    finish()
  jft = find_jft(args.jft)
  if jft is None:
    check("native_emitter", lambda: skip("no jft binary: build the 'jft' target (see the "
                                          "docstring) or pass --jft"))
    finish()
  try:
    ttir = TtirRunner()
  except Exception as e:
    ttir = None
    print(f"note: no TTIR comparison ({type(e).__name__}: {e}); native kernels only run")
  only = [p for p in os.environ.get("NATIVE_ONLY", "").split(",") if p]
  programs = sorted(p.name for p in ZOO.iterdir() if (p / "program.mlirbc").exists())
  rng = np.random.default_rng(0)
  for program in programs:
    if only and program not in only:
      continue
    path = ZOO / program / "program.mlirbc"

    def compiled_by_our_binding(path=path):
      run = subprocess.run([str(jft), "native", "--compile", str(path)], capture_output=True,
                           text=True)
      if run.returncode != 0:
        raise AssertionError(run.stderr[-2000:])
    check(f"{program}: every native kernel compiles through our NVRTC binding",
          compiled_by_our_binding)

    listing = subprocess.run([str(jft), "native", "--json", str(path)], capture_output=True,
                             text=True)
    if listing.returncode != 0:
      def listing_failed(message=listing.stderr[-2000:]):
        raise AssertionError(message)
      check(f"{program}: jft native --json", listing_failed)
      continue
    emitted = json.loads(listing.stdout)
    for refused in emitted["refused"]:
      print(f"note: {program}/{refused['fusion']} refused: {refused['error']}")
    for kernel in emitted["kernels"]:
      def one(kernel=kernel):
        params = kernel["params"]
        inputs = [random_input(p["dtype"], p["shape"], rng) for p in params if not p["output"]]
        outs = [p for p in params if p["output"]]

        def launch_native():
          buffers = [cupy.asarray(x) for x in inputs]
          buffers += [cupy.full(tuple(p["shape"]), 0xAB, dtype=STORAGE[p["dtype"]])
                      if STORAGE[p["dtype"]] in (np.uint8, np.uint16) else
                      cupy.zeros(tuple(p["shape"]), dtype=STORAGE[p["dtype"]]) for p in outs]
          function = cupy.RawKernel(kernel["source"], kernel["name"], options=("--std=c++17",))
          if kernel["grid"][0]:
            function(tuple(kernel["grid"]), (32 * kernel["num_warps"], 1, 1), tuple(buffers))
          cupy.cuda.runtime.deviceSynchronize()
          return [cupy.asnumpy(b) for b in buffers[len(inputs):]]

        native = launch_native()
        if ttir is None or "ttir" not in kernel:
          skip("ran; no TTIR kernel to compare with" if ttir is not None else
               "ran; Triton is absent, nothing to compare with")
        buffers = [cupy.asarray(x) for x in inputs]
        buffers += [cupy.zeros(tuple(p["shape"]), dtype=STORAGE[p["dtype"]]) for p in outs]
        if kernel["ttir_grid"][0]:
          ttir.run(cupy, kernel, buffers)
        cupy.cuda.runtime.deviceSynchronize()
        reference = [cupy.asnumpy(b) for b in buffers[len(inputs):]]
        for p, got, want in zip(outs, native, reference):
          compare(f"{kernel['name']}.{p['name']}", p["dtype"], got, want)
      check(f"{program}/{kernel['name']} ({kernel['family']}) native = TTIR", one)
  finish()


if __name__ == "__main__":
  main()
