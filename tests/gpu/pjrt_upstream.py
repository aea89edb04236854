"""With JAX_FLAGTREE_DISABLE=1 the upstream CUDA plugin still works here."""

import os

os.environ["JAX_FLAGTREE_DISABLE"] = "1"

import pjrt_harness as h

h.require_gpu_and_jax()

import jax  # noqa: E402
import numpy as np  # noqa: E402


def upstream_runs():
  print(jax.devices(), jax.devices()[0].client.platform_version, flush=True)
  assert jax.default_backend() == "gpu"
  assert not h.ours_is_active()
  x = jax.device_put(np.arange(16, dtype=np.float32))
  y = np.asarray(jax.jit(lambda v: v * 2 + 1)(x))
  assert np.array_equal(y, np.arange(16, dtype=np.float32) * 2 + 1)


h.check("upstream_plugin_runs", upstream_runs)
h.finish()
