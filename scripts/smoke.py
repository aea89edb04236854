"""The smoke program: tanh(x * 1.25 + 0.5) over 256 floats through the plugin.

Asserts that JAX's default backend is `gpu`, that our plugin (not upstream
XLA) serves it, and that the result matches numpy. Run with XLA_MODE=fl_only
to prove the numeric work went through the TTIR route.
"""

import os
import sys

import jax
import jax.numpy as jnp
import numpy as np


def main() -> int:
    backend = jax.default_backend()
    assert backend == "gpu", f"default backend is {backend!r}, not 'gpu'"
    version = jax.devices()[0].client.platform_version
    assert "driver API" in version, f"upstream XLA is serving the GPU ({version!r})"
    x = np.random.default_rng(0).standard_normal(256).astype(np.float32)
    y = np.asarray(jax.jit(lambda v: jnp.tanh(v * 1.25 + 0.5))(x))
    expected = np.tanh(x.astype(np.float64) * 1.25 + 0.5)
    error = np.max(np.abs(y - expected))
    assert error < 1e-6, f"max abs error {error}"
    print(f"smoke: ok on {jax.devices()[0]} ({version}); XLA_MODE="
          f"{os.environ.get('XLA_MODE', 'back_unsupported')}; max abs error {error:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
