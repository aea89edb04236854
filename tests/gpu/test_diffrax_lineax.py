"""Libraries that check errors through host callbacks (equinox's error_if),
under our plugin in XLA_MODE=fl_only: a diffrax diffeqsolve with an adaptive
PIDController on exponential decay and on a harmonic oscillator against the
closed forms, and a lineax linear_solve (LU) against numpy.linalg.solve.
Skips without a GPU, JAX, diffrax or lineax."""

import os

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import numpy as np  # noqa: E402


def need(module: str):
  try:
    return __import__(module)
  except ImportError:
    h.skip(f"{module} is not installed")


def diffrax_decay_and_oscillator():
  diffrax = need("diffrax")
  import jax.numpy as jnp
  import jax

  def solve(vector_field, y0, t1):
    term = diffrax.ODETerm(vector_field)
    return diffrax.diffeqsolve(
        term, diffrax.Tsit5(), t0=0.0, t1=t1, dt0=0.01, y0=y0,
        stepsize_controller=diffrax.PIDController(rtol=1e-7, atol=1e-9),
        saveat=diffrax.SaveAt(ts=jnp.linspace(0.0, t1, 11)), max_steps=100000)

  decay = jax.jit(lambda y0: solve(lambda t, y, args: -0.7 * y, y0, 3.0))(jnp.float32(2.0))
  ts = np.linspace(0.0, 3.0, 11)
  np.testing.assert_allclose(np.asarray(decay.ys), 2.0 * np.exp(-0.7 * ts), rtol=2e-5)
  osc = jax.jit(lambda y0: solve(lambda t, y, args: jnp.stack([y[1], -4.0 * y[0]]), y0, 5.0))(
      jnp.array([1.0, 0.0], jnp.float32))
  ts = np.linspace(0.0, 5.0, 11)
  np.testing.assert_allclose(np.asarray(osc.ys)[:, 0], np.cos(2 * ts), atol=5e-5)
  np.testing.assert_allclose(np.asarray(osc.ys)[:, 1], -2 * np.sin(2 * ts), atol=1e-4)
  assert int(osc.stats["num_accepted_steps"]) > 10


def lineax_solve():
  lineax = need("lineax")
  import jax
  import jax.numpy as jnp
  rng = np.random.default_rng(0)
  a = rng.standard_normal((16, 16)).astype(np.float32) + 16 * np.eye(16, dtype=np.float32)
  b = rng.standard_normal(16).astype(np.float32)

  @jax.jit
  def solve(a, b):
    return lineax.linear_solve(lineax.MatrixLinearOperator(a), b, solver=lineax.LU()).value

  np.testing.assert_allclose(np.asarray(solve(a, b)), np.linalg.solve(a.astype(np.float64), b),
                             rtol=1e-4, atol=1e-5)


if not h.ours_is_active():
  h.check("plugin", lambda: h.skip("our plugin is not the active cuda backend"))
else:
  h.check("diffrax_pid_controller", diffrax_decay_and_oscillator)
  h.check("lineax_linear_solve", lineax_solve)
h.finish()
