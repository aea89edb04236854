"""DLPack exchange and JAX's memory settings under our plugin.

DLPack: jax -> torch -> jax and cupy -> jax -> cupy round trips keep the
values and make no copy (the data pointers are equal, as DLPack promises for
the same device); a torch tensor changed after jax imported it is seen by jax
(the jax array is a view); deleting the jax view leaves torch's memory alone.

Memory (each in a child process, since the settings are read when the client
is created): XLA_PYTHON_CLIENT_MEM_FRACTION=0.25 gives bytes_limit = 25 % of
the GPU (as upstream) and an array past it fails with RESOURCE_EXHAUSTED;
XLA_PYTHON_CLIENT_PREALLOCATE=false reserves little of the GPU while the
default reserves most of it; XLA_PYTHON_CLIENT_ALLOCATOR=platform computes
right, counts its bytes and gives a freed array's memory back to the driver.
The GPU's total and free memory are read through torch (an independent view
of the driver). Skips without a GPU or JAX; each case skips without the
framework it needs (torch, cupy).
"""

import json
import os
import subprocess
import sys
import textwrap

# This process only exchanges small arrays: it must not hold most of the GPU
# while the children measure what their settings reserve.
os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import numpy as np  # noqa: E402

GiB = 1 << 30


def need(module):
  try:
    return __import__(module)
  except Exception as e:  # not installed, or built for another CUDA
    h.skip(f"{module} is not importable here: {e}")


def jax_to_torch_to_jax():
  torch = need("torch")
  import jax
  import jax.numpy as jnp
  x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4) * 1.5
  x.block_until_ready()
  t = torch.from_dlpack(x)
  assert t.is_cuda, t.device
  assert t.data_ptr() == x.unsafe_buffer_pointer(), "jax -> torch copied"
  np.testing.assert_array_equal(t.cpu().numpy(), np.arange(12, dtype=np.float32).reshape(3, 4) * 1.5)
  y = jax.dlpack.from_dlpack(t)
  assert y.unsafe_buffer_pointer() == t.data_ptr(), "torch -> jax copied"
  np.testing.assert_array_equal(np.asarray(y), np.asarray(x))
  # Computing on the imported array works like on any other.
  np.testing.assert_allclose(np.asarray(jax.jit(lambda a: a * 2 + 1)(y)),
                             np.asarray(x) * 2 + 1)


def torch_view_sees_later_writes():
  torch = need("torch")
  import jax
  t = torch.arange(8, dtype=torch.float32, device="cuda")
  y = jax.dlpack.from_dlpack(t)
  assert y.unsafe_buffer_pointer() == t.data_ptr(), "torch -> jax copied"
  t.add_(100)  # on torch's stream, after the import
  torch.cuda.synchronize()
  np.testing.assert_array_equal(np.asarray(y), np.arange(8, dtype=np.float32) + 100)
  # Deleting jax's view never frees torch's memory.
  y.delete()
  torch.cuda.synchronize()
  np.testing.assert_array_equal(t.cpu().numpy(), np.arange(8, dtype=np.float32) + 100)
  t.add_(1)
  np.testing.assert_array_equal(t.cpu().numpy(), np.arange(8, dtype=np.float32) + 101)


def cupy_to_jax_to_cupy():
  cupy = need("cupy")
  import jax.numpy as jnp
  c = cupy.arange(10, dtype=cupy.int32) * 3
  y = jnp.from_dlpack(c)
  assert y.unsafe_buffer_pointer() == c.data.ptr, "cupy -> jax copied"
  np.testing.assert_array_equal(np.asarray(y), np.arange(10, dtype=np.int32) * 3)
  back = cupy.from_dlpack(y)
  assert back.data.ptr == c.data.ptr, "jax -> cupy copied"
  np.testing.assert_array_equal(cupy.asnumpy(back), np.arange(10, dtype=np.int32) * 3)
  # A jax result goes to cupy without a copy too.
  z = (y + 1).block_until_ready()
  cz = cupy.from_dlpack(z)
  assert cz.data.ptr == z.unsafe_buffer_pointer(), "jax -> cupy copied"
  np.testing.assert_array_equal(cupy.asnumpy(cz), np.arange(10, dtype=np.int32) * 3 + 1)


# ------------------------------------------------------------------ memory

CHILD = textwrap.dedent("""
    import json, sys, time, gc
    import torch
    torch.cuda.init()
    free0, total = torch.cuda.mem_get_info()
    import jax, jax.numpy as jnp
    dev = jax.devices()[0]
    x = jnp.ones((1024, 1024), jnp.float32).block_until_ready()
    free1, _ = torch.cuda.mem_get_info()
    out = {"total": total, "free_before": free0, "free_after_client": free1,
           "platform_version": dev.client.platform_version,
           "stats": dev.memory_stats()}
    mode = sys.argv[1]
    if mode == "limit":
      too_big = int(0.30 * total) // 4
      try:
        jnp.zeros((too_big,), jnp.float32).block_until_ready()
        out["past_limit"] = "allocated"
      except Exception as e:
        out["past_limit"] = str(e)[:400]
    if mode == "platform":
      out["sum"] = float(jnp.sum(x * 2))
      big = jnp.zeros((GIB // 4,), jnp.float32).block_until_ready()
      out["in_use_with_big"] = dev.memory_stats()["bytes_in_use"]
      free_big, _ = torch.cuda.mem_get_info()
      big.delete(); gc.collect(); time.sleep(0.5)
      free_freed, _ = torch.cuda.mem_get_info()
      out["returned"] = free_freed - free_big
      out["in_use_after"] = dev.memory_stats()["bytes_in_use"]
    print("RESULT " + json.dumps(out))
""").replace("GIB", str(GiB))


def child(mode, **env):
  need("torch")
  environ = dict(os.environ)
  for name in ("XLA_PYTHON_CLIENT_MEM_FRACTION", "XLA_CLIENT_MEM_FRACTION",
               "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR"):
    environ.pop(name, None)
  environ.update(env)
  out = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True,
                       timeout=240, env=environ)
  lines = [l for l in out.stdout.splitlines() if l.startswith("RESULT ")]
  if out.returncode != 0 or not lines:
    raise AssertionError(f"child ({env}) failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
  result = json.loads(lines[-1][len("RESULT "):])
  if "driver API" not in result["platform_version"]:
    h.skip("the child's cuda backend is not our plugin")
  return result


def mem_fraction_quarter():
  r = child("limit", XLA_PYTHON_CLIENT_MEM_FRACTION="0.25")
  limit, total = r["stats"]["bytes_limit"], r["total"]
  assert abs(limit - 0.25 * total) <= 0.01 * total, (limit, total)
  assert "RESOURCE_EXHAUSTED" in r["past_limit"], r["past_limit"]


def default_fraction_and_preallocation():
  r = child("plain")
  limit, total = r["stats"]["bytes_limit"], r["total"]
  assert abs(limit - 0.75 * total) <= 0.01 * total, (limit, total)
  taken = r["free_before"] - r["free_after_client"]
  # Upstream reserves the whole limit up front; we leave slack for the driver.
  assert taken >= 0.6 * total, f"preallocation took only {taken / GiB:.1f} GiB of {total / GiB:.1f}"


def no_preallocation_reserves_little():
  r = child("plain", XLA_PYTHON_CLIENT_PREALLOCATE="false")
  taken = r["free_before"] - r["free_after_client"]
  assert taken < 2 * GiB, f"PREALLOCATE=false still took {taken / GiB:.2f} GiB"
  assert r["stats"]["bytes_in_use"] >= 4 * 1024 * 1024, r["stats"]


def platform_allocator():
  r = child("platform", XLA_PYTHON_CLIENT_ALLOCATOR="platform")
  assert r["sum"] == 2.0 * 1024 * 1024, r["sum"]
  assert r["in_use_with_big"] >= GiB + 4 * 1024 * 1024, r["in_use_with_big"]
  assert r["in_use_after"] == r["in_use_with_big"] - GiB, r
  # cuMemFree hands the gigabyte back to the driver (nothing cached).
  assert r["returned"] >= 0.9 * GiB, f"only {r['returned'] / GiB:.2f} GiB came back"
  taken = r["free_before"] - r["free_after_client"]
  assert taken < 2 * GiB, f"the platform allocator reserved {taken / GiB:.2f} GiB"


if not h.ours_is_active():
  h.check("plugin", lambda: h.skip("our plugin is not the active cuda backend"))
else:
  h.check("jax_torch_jax_round_trip_without_copies", jax_to_torch_to_jax)
  h.check("torch_view_sees_later_writes", torch_view_sees_later_writes)
  h.check("cupy_jax_cupy_round_trip_without_copies", cupy_to_jax_to_cupy)
  h.check("mem_fraction_0.25_limits_the_pool", mem_fraction_quarter)
  h.check("default_fraction_and_preallocation", default_fraction_and_preallocation)
  h.check("preallocate_false_reserves_little", no_preallocation_reserves_little)
  h.check("platform_allocator", platform_allocator)
h.finish()
