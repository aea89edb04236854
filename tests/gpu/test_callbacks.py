"""Host callbacks inside jax.jit under our plugin (XLA_MODE=fl_only): each one
is a custom call @xla_ffi_python_gpu_callback run by jaxlib's handler through
our FFI route. jax.debug.print inside a while loop (its lines in iteration
order, in a child process so stdout is captured whole); ordered io_callback
(host-side calls in program order); pure_callback under vmap against numpy; a
callback that raises reaches the caller as an error carrying its message (as
upstream XLA reports it); a callback that itself runs jax does not deadlock.
Skips without a GPU or JAX."""

import os
import subprocess
import sys
import textwrap

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import numpy as np  # noqa: E402


def debug_print_in_loop():
  code = textwrap.dedent("""
      import jax, jax.numpy as jnp
      def body(c):
        i, x = c
        jax.debug.print("step {i} x={x}", i=i, x=x)
        return i + 1, x * 2.0
      f = jax.jit(lambda x: jax.lax.while_loop(lambda c: c[0] < 4, body, (0, x)))
      i, x = f(jnp.float32(1.5))
      jax.block_until_ready(x)
      print("done", int(i), float(x))
  """)
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=240, env=dict(os.environ))
  if out.returncode != 0:
    raise AssertionError(f"child failed:\n{out.stdout}\n{out.stderr[-3000:]}")
  lines = [l for l in out.stdout.splitlines() if l.startswith(("step", "done"))]
  expected = [f"step {i} x={1.5 * 2 ** i}" for i in range(4)] + ["done 4 24.0"]
  assert lines == expected, f"got {lines}, expected {expected}"


def ordered_io_callback():
  import jax
  import jax.numpy as jnp
  from jax.experimental import io_callback
  seen = []

  def record(x):
    seen.append(np.asarray(x).copy())
    return np.asarray(x).sum(dtype=np.float32)

  @jax.jit
  def f(x):
    a = io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x, ordered=True)
    b = io_callback(record, jax.ShapeDtypeStruct((), jnp.float32), x * 10, ordered=True)
    return a + b

  x = np.arange(6, dtype=np.float32).reshape(2, 3)
  for _ in range(2):
    got = float(f(x))
  np.testing.assert_allclose(got, x.sum() * 11, rtol=1e-6)
  assert len(seen) == 4, len(seen)
  for k, want in enumerate([x, x * 10, x, x * 10]):
    np.testing.assert_array_equal(seen[k], want)


def pure_callback_vmap():
  import jax
  import jax.numpy as jnp

  def host_sin(x):
    return np.sin(np.asarray(x)).astype(np.float32)

  def f(x):
    return jax.pure_callback(host_sin, jax.ShapeDtypeStruct(x.shape, jnp.float32), x,
                             vmap_method="sequential") + 1.0

  x = np.linspace(-3, 3, 24, dtype=np.float32).reshape(4, 6)
  got = np.asarray(jax.jit(jax.vmap(f))(x))
  np.testing.assert_allclose(got, np.sin(x) + 1.0, rtol=1e-6, atol=1e-6)


def raising_callback():
  import jax
  import jax.numpy as jnp

  def bad(x):
    raise ValueError("callback refused its input")

  f = jax.jit(lambda x: jax.pure_callback(bad, jax.ShapeDtypeStruct((), jnp.float32), x))
  try:
    jax.block_until_ready(f(jnp.float32(1.0)))
  except Exception as e:  # upstream: XlaRuntimeError naming the Python error
    assert "callback refused its input" in str(e), str(e)
    return
  raise AssertionError("the callback's exception did not reach the caller")


def callback_calling_jax():
  import jax
  import jax.numpy as jnp
  inner = jax.jit(lambda y: y * 3.0 + 1.0)

  def host(x):
    return np.asarray(inner(np.asarray(x)))

  f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct((5,), jnp.float32), x) - 1)
  x = np.arange(5, dtype=np.float32)
  got = np.asarray(f(x))
  np.testing.assert_allclose(got, x * 3.0, rtol=1e-6)


def checkify_error_check():
  import jax
  import jax.numpy as jnp
  from jax.experimental import checkify

  def g(x):
    checkify.check(jnp.all(x > 0), "x must be positive, got {}", x[0])
    return jnp.log(x)

  f = jax.jit(checkify.checkify(g))
  err, out = f(jnp.array([1.0, 2.0]))
  assert err.get() is None, err.get()
  np.testing.assert_allclose(np.asarray(out), np.log([1.0, 2.0]), rtol=1e-6)
  err, _ = f(jnp.array([-1.0, 2.0]))
  assert err.get() is not None and "x must be positive" in err.get(), err.get()


if not h.ours_is_active():
  h.check("plugin", lambda: h.skip("our plugin is not the active cuda backend"))
else:
  h.check("debug_print_in_while_loop", debug_print_in_loop)
  h.check("ordered_io_callback", ordered_io_callback)
  h.check("pure_callback_under_vmap", pure_callback_vmap)
  h.check("raising_callback_reaches_caller", raising_callback)
  h.check("callback_calling_jax", callback_calling_jax)
  h.check("checkify_in_jit", checkify_error_check)
h.finish()
