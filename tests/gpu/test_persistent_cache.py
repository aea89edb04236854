"""JAX's persistent compilation cache under our plugin: executables are
serialized (PJRT_Executable_Serialize) into jax_compilation_cache_dir and a
second process loads them (PJRT_Executable_DeserializeAndLoad) instead of
compiling. Each process is a child, so nothing is shared but the cache
directory:
  1. a sort + matmul program is jitted: cache files are written, results
     equal numpy's;
  2. a fresh process gets the same results with a cache hit and no miss
     (jax's monitoring events), and reports its time to first result;
  3. every cache entry's serialized executable gets one byte flipped (the
     entry recompressed as jax wrote it): our loader refuses it (checksum),
     jax warns and recompiles, and the results are still right.
Skips without a GPU or JAX, or when our plugin is not the active backend."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pjrt_harness as h

h.require_gpu_and_jax()

import numpy as np  # noqa: E402

CHILD = textwrap.dedent("""
    import json, sys, time, warnings
    import numpy as np
    import jax, jax.numpy as jnp
    from jax import monitoring
    jax.config.update("jax_compilation_cache_dir", sys.argv[1])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
    events = {}
    def listen(event, **kwargs):
      events[event] = events.get(event, 0) + 1
    monitoring.register_event_listener(listen)

    @jax.jit
    def f(x, a, b):
      s = jnp.sort(x)
      return s, a @ b, jnp.sort(a @ b, axis=1)

    rng = np.random.default_rng(0)
    x = rng.standard_normal(1000).astype(np.float32)
    a = rng.standard_normal((64, 48)).astype(np.float32)
    b = rng.standard_normal((48, 32)).astype(np.float32)
    with warnings.catch_warnings(record=True) as caught:
      warnings.simplefilter("always")
      start = time.perf_counter()
      out = jax.block_until_ready(f(x, a, b))
      took = time.perf_counter() - start
    np.savez(sys.argv[2], *[np.asarray(o) for o in out])
    print("RESULT " + json.dumps({
        "seconds": took,
        "hits": events.get("/jax/compilation_cache/cache_hits", 0),
        "misses": events.get("/jax/compilation_cache/cache_misses", 0),
        "warnings": [str(w.message) for w in caught],
        "platform_version": jax.devices()[0].client.platform_version,
    }))
""")


def run_child(cache_dir: str, out_path: str) -> dict:
  proc = subprocess.run([sys.executable, "-c", CHILD, cache_dir, out_path],
                        capture_output=True, text=True, timeout=300,
                        env=dict(os.environ))
  if proc.returncode != 0:
    raise AssertionError(f"child failed:\n{proc.stdout}\n{proc.stderr[-4000:]}")
  lines = [l for l in proc.stdout.splitlines() if l.startswith("RESULT ")]
  assert lines, f"child printed no result:\n{proc.stdout}\n{proc.stderr[-2000:]}"
  return json.loads(lines[-1][len("RESULT "):])


def check_results(out_path: str) -> None:
  rng = np.random.default_rng(0)
  x = rng.standard_normal(1000).astype(np.float32)
  a = rng.standard_normal((64, 48)).astype(np.float32)
  b = rng.standard_normal((48, 32)).astype(np.float32)
  got = np.load(out_path)
  product = a.astype(np.float64) @ b.astype(np.float64)
  np.testing.assert_array_equal(got["arr_0"], np.sort(x))
  # float32 products at DEFAULT precision run on TF32 tensor cores (ours and
  # upstream's): about 1e-3 relative per term, sqrt(K) of them summed.
  np.testing.assert_allclose(got["arr_1"], product, rtol=1e-2, atol=5e-2)
  np.testing.assert_allclose(got["arr_2"], np.sort(product, axis=1), rtol=1e-2, atol=5e-2)


def entries(cache_dir: str) -> list:
  names = [n for n in os.listdir(cache_dir) if not n.endswith("-atime")]
  return [os.path.join(cache_dir, n) for n in names
          if os.path.isfile(os.path.join(cache_dir, n))]


def corrupt(path: str) -> None:
  # jax's own codec, so the entry still decompresses and only our bytes are bad.
  from jax._src import compilation_cache as cc
  data = cc.decompress_executable(open(path, "rb").read())
  blob = bytearray(data)
  blob[4 + (len(blob) - 4) // 2] ^= 0x5A  # after jax's 4-byte compile time
  open(path, "wb").write(cc.compress_executable(bytes(blob)))


def persistent_cache():
  with tempfile.TemporaryDirectory() as tmp:
    cache_dir = os.path.join(tmp, "cache")
    os.makedirs(cache_dir)
    first = run_child(cache_dir, os.path.join(tmp, "first.npz"))
    if "driver API" not in first["platform_version"]:
      h.skip("our plugin is not the active cuda backend")
    check_results(os.path.join(tmp, "first.npz"))
    written = entries(cache_dir)
    assert written, f"no cache file written; warnings: {first['warnings']}"
    assert first["misses"] >= 1, first
    assert not any("persistent compilation cache" in w for w in first["warnings"]), first

    second = run_child(cache_dir, os.path.join(tmp, "second.npz"))
    check_results(os.path.join(tmp, "second.npz"))
    assert second["hits"] >= 1 and second["misses"] == 0, second
    assert not any("persistent compilation cache" in w for w in second["warnings"]), second
    print(f"TIME first process {first['seconds']:.2f} s, "
          f"second (cache hit) {second['seconds']:.2f} s", flush=True)

    for path in entries(cache_dir):
      corrupt(path)
    third = run_child(cache_dir, os.path.join(tmp, "third.npz"))
    check_results(os.path.join(tmp, "third.npz"))
    assert third["hits"] == 0 and third["misses"] >= 1, third
    refusals = [w for w in third["warnings"] if "Error reading persistent" in w]
    assert refusals, third
    assert any("checksum" in w and "compiled again" in w for w in refusals), refusals
    print(f"TIME corrupt entry recompiled in {third['seconds']:.2f} s", flush=True)


h.check("persistent_compilation_cache", persistent_cache)
h.finish()
