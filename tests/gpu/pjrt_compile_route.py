"""Compiling says clearly that the route is missing, and --xla_dump_to captures
the program and its compile options."""

import os
import pathlib
import tempfile

import pjrt_harness as h

DUMP = tempfile.mkdtemp(prefix="jft_dump_")
os.environ["XLA_FLAGS"] = f"--xla_dump_to={DUMP}"

h.require_gpu_and_jax()

import jax  # noqa: E402
import numpy as np  # noqa: E402


def clear_error_and_dump():
  x = jax.device_put(np.arange(8, dtype=np.float32))
  try:
    jax.jit(lambda v: v * 2 + 1)(x)
  except Exception as e:  # JAX wraps the plugin's error
    message = str(e)
  else:
    raise AssertionError("compilation unexpectedly succeeded")
  print(message.splitlines()[0][:300], flush=True)
  assert "compiler route" in message, message[:500]
  files = sorted(p.name for p in pathlib.Path(DUMP).iterdir())
  print(files, flush=True)
  assert any(name.endswith(".mlir") for name in files), files
  assert any(name.endswith(".compile_options.pb") for name in files), files
  program = next(p for p in pathlib.Path(DUMP).iterdir() if p.name.endswith(".mlir"))
  assert program.read_bytes()[:4] == b"ML\xefR", program.read_bytes()[:8]


h.check("compile_error_and_dump", clear_error_and_dump)
h.finish()
