"""jax.lax.rng_bit_generator and JAX's rbg PRNG under our plugin
(XLA_MODE=fl_only) against upstream XLA bit for bit: the same cases run in a
child process on the upstream CUDA plugin (JAX_FLAGTREE_DISABLE=1) and every
output and output key must be identical. Algorithms DEFAULT, PHILOX and
THREE_FRY; uint8/16/32/64 outputs of shapes scalar to 3-d, odd sizes, empty;
keys whose 64-bit counter word is about to wrap; and jax.random bits,
uniform and normal with jax_default_prng_impl=rbg / unsafe_rbg (floats from
erf_inv within 2e-6).
Skips without a GPU or JAX."""

import os
import subprocess
import sys
import tempfile

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import numpy as np  # noqa: E402

SHAPES = [(), (1,), (7,), (4, 6), (3, 5, 7), (0,), (1000,), (129, 33)]
DTYPES = ["uint8", "uint16", "uint32", "uint64"]
ALGORITHMS = ["DEFAULT", "PHILOX", "THREE_FRY"]
KEYS = {
    "random": np.array([0x9E3779B9, 0x7F4A7C15, 0x12345678, 0xDEADBEEF], np.uint32),
    # u32[4] -> u64[2] little-endian: the counter word (state[1]) is
    # 2^64 - 3, so Philox's counter carries into the high word.
    "wrapping": np.array([5, 6, 0xFFFFFFFD, 0xFFFFFFFF], np.uint32),
    "zero": np.zeros(4, np.uint32),
}


def compute_all():
  """Every case's outputs, keyed by name (run in both processes)."""
  import jax
  import jax.numpy as jnp
  jax.config.update("jax_enable_x64", True)
  out = {}
  for alg in ALGORITHMS:
    algorithm = getattr(jax.lax.RandomAlgorithm, "RNG_" + alg)
    for dt in DTYPES:
      for shape in SHAPES:
        f = jax.jit(lambda k, s=shape, d=dt, a=algorithm:
                    jax.lax.rng_bit_generator(k, s, dtype=d, algorithm=a))
        for key_name, key in KEYS.items():  # one compile, three keys
          new_key, bits = f(jnp.asarray(key))
          name = f"{alg}/{key_name}/{dt}/{'x'.join(map(str, shape)) or 'scalar'}"
          out[name + "/key"] = np.asarray(new_key)
          out[name + "/bits"] = np.asarray(bits)
  for impl in ("rbg", "unsafe_rbg"):
    jax.config.update("jax_default_prng_impl", impl)
    k = jax.random.key(42)
    out[f"{impl}/bits"] = np.asarray(jax.jit(lambda k: jax.random.bits(k, (5, 77)))(k))
    out[f"{impl}/uniform"] = np.asarray(
        jax.jit(lambda k: jax.random.uniform(k, (1024,), jnp.float32))(k))
    out[f"{impl}/normal"] = np.asarray(
        jax.jit(lambda k: jax.random.normal(k, (33, 65), jnp.float32))(k))
    sub = jax.jit(lambda k: jax.random.key_data(jax.random.split(k, 3)))(k)
    out[f"{impl}/split"] = np.asarray(sub)
  return out


def main():
  target = os.environ.get("RNG_SAVE_TO")
  if target:  # the child: upstream's results
    np.savez(target, **compute_all())
    return
  with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "upstream.npz")
    env = dict(os.environ, JAX_FLAGTREE_DISABLE="1", RNG_SAVE_TO=path)
    env.pop("XLA_MODE", None)
    child = subprocess.run([sys.executable, __file__], env=env, capture_output=True,
                           text=True, timeout=600)
    if child.returncode != 0:
      h.check("rng_upstream_reference",
              lambda: (_ for _ in ()).throw(AssertionError(child.stderr[-2000:])))
      h.finish()
    upstream = dict(np.load(path))

  def ours():
    if not h.ours_is_active():
      raise AssertionError("the gpu backend is not jax-flagtree")
    return compute_all()

  results = {}
  h.check("rng_runs_on_ours", lambda: results.update(ours()))
  groups = {}
  for name in upstream:
    groups.setdefault(name.rsplit("/", 1)[0] if name.count("/") > 1 else name, []).append(name)
  for group, names in sorted(groups.items()):
    def same(names=names):
      for n in names:
        if n not in results:
          raise AssertionError(f"{n}: not computed")
        a, b = results[n], upstream[n]
        if a.shape != b.shape or a.dtype != b.dtype:
          raise AssertionError(f"{n}: {a.dtype}{a.shape} vs upstream {b.dtype}{b.shape}")
        if a.dtype.kind == "f":
          # Bits and uniform floats are exact; normal goes through erf_inv's
          # polynomial, where a contracted multiply-add may differ by an ulp.
          if not np.allclose(a, b, rtol=2e-6, atol=2e-6):
            raise AssertionError(f"{n}: max difference {np.max(np.abs(a - b))}")
        elif not np.array_equal(a, b):
          bad = np.flatnonzero(a.ravel() != b.ravel())
          raise AssertionError(f"{n}: {bad.size} elements differ; first at {bad[0]}: "
                               f"{a.ravel()[bad[0]]} vs upstream {b.ravel()[bad[0]]}")
    h.check(f"rng/{group}", same)
  h.finish()


if __name__ == "__main__":
  main()
