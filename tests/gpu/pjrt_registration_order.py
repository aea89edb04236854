"""Ours is the 'cuda' backend whichever plugin module JAX initialises first."""

import subprocess
import sys

import pjrt_harness as h

h.require_gpu_and_jax()

SCRIPT = """
import importlib, numpy as np
first, second = {order!r}
for name in (first, second):
  importlib.import_module(name).initialize()
import jax
version = jax.devices()[0].client.platform_version
assert "driver API" in version, version
x = jax.device_put(np.arange(5, dtype=np.int32))
assert (np.asarray(x) == np.arange(5)).all()
# A target jaxlib registers during `import jax` (the hybrid eig runs LAPACK on
# the host through an FFI handler): it reaches ours whichever plugin ran first.
a = np.array([[2.0, 1.0], [-1.0, 3.0]], np.float32)
got = np.sort_complex(np.asarray(jax.jit(jax.numpy.linalg.eigvals)(a)))
assert np.allclose(got, np.sort_complex(np.linalg.eigvals(a)), rtol=1e-5), got
print("ours active:", jax.devices(), version)
"""


def order(first, second):
  def run():
    try:
      __import__("jax_plugins.xla_cuda13")
    except ImportError:
      h.skip("the upstream CUDA plugin is not installed")
    result = subprocess.run([sys.executable, "-c", SCRIPT.format(order=(first, second))],
                            capture_output=True, text=True, timeout=120)
    print(result.stdout.strip()[-500:], result.stderr.strip()[-1500:], flush=True)
    assert result.returncode == 0, result.returncode
  return run


h.check("ours_first", order("jax_plugins.flagtree", "jax_plugins.xla_cuda13"))
h.check("upstream_first", order("jax_plugins.xla_cuda13", "jax_plugins.flagtree"))
h.finish()
