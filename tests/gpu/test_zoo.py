"""Every zoo program through the plugin, outputs compared with upstream's outN.npy.

Each fixture's StableHLO text (program.mlir) is compiled through JAX's client
(which serializes it to the portable artifact our plugin receives, exactly as
jax.jit does) and run on the fixture's inputs. The reference is the output
upstream XLA computed on an H200 (outN.npy, bfloat16 stored as float32).

Tolerances (relative error norm |ours - ref| / |ref|, as device/METHOD.md
measures it), per output element type:
  float32/float64: 2e-5   (different but correctly rounded libm functions);
                   1e-3 for programs whose float32 dots run as TF32 (TF32_PROGRAMS)
  bfloat16/float16: 1e-2  (one rounding of the 8/11-bit mantissa apart)
  integers, bool:   exact
NaN positions must match exactly for floats.

Which programs must pass and which must fail with the listed-ops error is set
by ZOO_EXPECT (name=pass|fail,...; default: EXPECTED below). With
XLA_MODE=fl_only (set by run_all.sh for this test) a failing program must raise
an error naming its unsupported ops, never crash the process.
"""

from __future__ import annotations

import os
import pathlib
import re
import sys

import numpy as np

from pjrt_harness import check, finish, ours_is_active, require_gpu_and_jax, skip

ZOO = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "zoo"

# Every zoo program: the loop, reduction and indexing families, complex
# values, and the library route's GEMMs, convolutions, FFTs and solvers.
EXPECTED_PASS = {"smoke", "softmax", "layernorm", "shapes", "mixed_dtypes", "random_normal",
                 "mlp", "attention", "transformer_block", "mlp_train_step",
                 "transformer_train_step", "fori", "while_dyn", "cond",
                 "gather_scatter", "sort_topk", "argmax_cumsum", "linalg", "conv2d", "fft"}

TOLERANCE = {"float32": 2e-5, "float64": 2e-5, "bfloat16": 1e-2, "float16": 1e-2}
# Programs whose float32 dots run as TF32 (precision DEFAULT) on both sides:
# cuBLASLt and XLA's GEMMs round the 10-bit-mantissa products differently, so
# their float32 outputs agree to TF32 accuracy (device/METHOD.md: near 3e-4).
TF32_PROGRAMS = {"mlp", "attention", "transformer_block", "mlp_train_step",
                 "transformer_train_step", "linalg", "conv2d"}
TF32_TOLERANCE = 1e-3

_TENSOR = re.compile(r"tensor<([^>]*)>")


def _parse_tensor(text: str) -> tuple[tuple[int, ...], str]:
  parts = text.split("x")
  dims = tuple(int(p) for p in parts[:-1])
  return dims, parts[-1]


def signature(program_text: str) -> tuple[list, list]:
  """(argument types, result types) of @main, as (dims, element) pairs."""
  line = next(l for l in program_text.splitlines() if "func.func public @main" in l)
  args_text, results_text = line.split("->", 1)
  args = [_parse_tensor(t) for t in _TENSOR.findall(args_text)]
  results = [_parse_tensor(t) for t in _TENSOR.findall(results_text)]
  return args, results


def numpy_dtype(element: str):
  import ml_dtypes
  table = {
      "f32": np.float32, "f64": np.float64, "f16": np.float16,
      "bf16": ml_dtypes.bfloat16, "i1": np.bool_, "i8": np.int8, "i16": np.int16,
      "i32": np.int32, "i64": np.int64, "ui8": np.uint8, "ui16": np.uint16,
      "ui32": np.uint32, "ui64": np.uint64,
  }
  if element not in table:
    raise ValueError(f"no numpy type for {element}")
  return table[element]


def compile_fixture(name: str):
  import jax
  from jax._src import xla_bridge
  from jax._src.lib import xla_client

  backend = xla_bridge.get_backend()
  device = jax.devices()[0]
  text = (ZOO / name / "program.mlir").read_text()
  options = xla_client.CompileOptions()
  devices = xla_client.DeviceList((device,))
  return backend.compile_and_load(text, devices, options), text


def execute(executable, arrays):
  import jax
  device = jax.devices()[0]
  buffers = [jax.device_put(a, device) for a in arrays]
  if hasattr(executable, "execute_sharded"):
    results = executable.execute_sharded(buffers)
    outputs = results.disassemble_into_single_device_arrays()
    return [np.asarray(o[0]) for o in outputs]
  return [np.asarray(o) for o in executable.execute(buffers)]


def tolerance(name: str, kind: str) -> float:
  if kind == "float32" and name in TF32_PROGRAMS:
    return TF32_TOLERANCE
  return TOLERANCE[kind]


def compare(name: str, index: int, ours: np.ndarray, ref: np.ndarray, element: str) -> None:
  if ours.shape != ref.shape:
    raise AssertionError(f"{name} out{index}: shape {ours.shape} != {ref.shape}")
  kind = np.dtype(ours.dtype).name
  if kind in TOLERANCE:
    a = ours.astype(np.float64)
    b = ref.astype(np.float64)
    if not np.array_equal(np.isnan(a), np.isnan(b)):
      raise AssertionError(f"{name} out{index}: NaN positions differ")
    finite = ~np.isnan(b)
    a, b = a[finite], b[finite]
    norm = np.linalg.norm(b)
    err = np.linalg.norm(a - b) / (norm if norm > 0 else 1.0)
    if not err <= tolerance(name, kind):
      worst = int(np.argmax(np.abs(a - b)))
      raise AssertionError(
          f"{name} out{index} ({element}): relative error {err:.3g} > {tolerance(name, kind):g};"
          f" worst element {worst}: ours {a[worst]!r} ref {b[worst]!r}")
    print(f"  {name} out{index} {element}{list(ours.shape)} rel_err={err:.2e}")
  else:
    if not np.array_equal(ours, ref.astype(ours.dtype)):
      bad = int(np.sum(ours != ref.astype(ours.dtype)))
      raise AssertionError(f"{name} out{index} ({element}): {bad} elements differ")
    print(f"  {name} out{index} {element}{list(ours.shape)} exact")


def run_program(name: str) -> None:
  text = (ZOO / name / "program.mlir").read_text()
  args, results = signature(text)
  inputs = []
  for i, (dims, element) in enumerate(args):
    data = np.load(ZOO / name / f"in{i}.npy")
    inputs.append(data.astype(numpy_dtype(element)).reshape(dims))
  executable, _ = compile_fixture(name)
  outputs = execute(executable, inputs)
  if len(outputs) != len(results):
    raise AssertionError(f"{name}: {len(outputs)} outputs, expected {len(results)}")
  for i, (ours, (dims, element)) in enumerate(zip(outputs, results)):
    ref = np.load(ZOO / name / f"out{i}.npy")
    compare(name, i, ours, ref, element)


def expect_listed_error(name: str) -> None:
  try:
    compile_fixture(name)
  except Exception as e:  # the compile error JAX raises for a plugin error
    text = str(e)
    if "cannot be compiled" not in text or "stablehlo." not in text:
      raise AssertionError(f"{name}: error does not list unsupported ops: {text[:300]}")
    first = text.strip().splitlines()[0] if text.strip() else ""
    print(f"  {name}: {first[:200]}")
    return
  raise AssertionError(f"{name}: compiled, but it holds ops no route supports yet")


def expectations() -> dict[str, str]:
  names = sorted(p.name for p in ZOO.iterdir() if (p / "program.mlir").exists())
  expect = {n: ("pass" if n in EXPECTED_PASS else "fail") for n in names}
  for item in filter(None, os.environ.get("ZOO_EXPECT", "").split(",")):
    n, _, v = item.partition("=")
    expect[n] = v
  return expect


def main() -> None:
  require_gpu_and_jax()
  only = set(filter(None, os.environ.get("ZOO_ONLY", "").split(",")))
  upstream = not ours_is_active()
  for name, outcome in expectations().items():
    if only and name not in only:
      continue
    if upstream or outcome == "pass":
      check(f"zoo_{name}", lambda n=name: run_program(n))
    else:
      check(f"zoo_{name}_listed_error", lambda n=name: expect_listed_error(n))
  finish()


if __name__ == "__main__":
  main()
