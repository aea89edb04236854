"""device_put then np.asarray returns the same bytes, for every dtype JAX has on
GPU, shapes from scalar to 5-D, and sizes from 0 elements to 1 GiB."""

import pjrt_harness as h

h.require_gpu_and_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

DTYPE_NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
               "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
               "complex128", "float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz",
               "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3",
               "float8_e8m0fnu"]
SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 3, 4), (2, 3, 4, 5), (2, 1, 3, 4, 5), (4, 0, 3)]

jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)


def random_array(dtype, shape):
  count = int(np.prod(shape, dtype=np.int64))
  if dtype == np.bool_:
    return rng.integers(0, 2, size=shape).astype(np.bool_)
  raw = rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8)
  return raw.view(dtype).reshape(shape)


def assert_same_bytes(host, back):
  assert back.dtype == host.dtype, (back.dtype, host.dtype)
  assert back.shape == host.shape, (back.shape, host.shape)
  assert back.tobytes() == host.tobytes(), "bytes differ"


def roundtrip(dtype_name):
  dtype = getattr(jnp, dtype_name, None)
  if dtype is None:
    h.skip(f"this JAX has no {dtype_name}")
  dtype = np.dtype(dtype)

  def run():
    for shape in SHAPES:
      host = random_array(dtype, shape)
      device = jax.device_put(host)
      device.block_until_ready()
      assert device.devices() == {jax.devices()[0]}
      assert_same_bytes(host, np.asarray(device))
  return run


def transposed_input():
  host = random_array(np.dtype(np.float32), (64, 48)).T  # not C-contiguous
  assert not host.flags.c_contiguous
  assert_same_bytes(np.ascontiguousarray(host), np.asarray(jax.device_put(host)))


def one_gib():
  host = random_array(np.dtype(np.uint8), (1 << 30,))
  device = jax.device_put(host)
  back = np.asarray(device)
  assert np.array_equal(back, host)
  del device


def device_to_device_copy():
  host = random_array(np.dtype(np.int32), (1000, 3))
  first = jax.device_put(host)
  second = jax.device_put(first, jax.devices()[-1], may_alias=False)
  second.block_until_ready()
  assert_same_bytes(host, np.asarray(second))


def pinned_host_memory():
  d = jax.devices()[0]
  pinned = jax.sharding.SingleDeviceSharding(d, memory_kind="pinned_host")
  on_device = jax.sharding.SingleDeviceSharding(d, memory_kind="device")
  host = random_array(np.dtype(np.float32), (257, 3))
  x = jax.device_put(host, pinned)
  assert x.sharding.memory_kind == "pinned_host", x.sharding
  assert_same_bytes(host, np.asarray(x))
  y = jax.device_put(x, on_device)
  assert y.sharding.memory_kind == "device", y.sharding
  assert_same_bytes(host, np.asarray(y))
  z = jax.device_put(y, pinned)
  assert_same_bytes(host, np.asarray(z))


for name in DTYPE_NAMES:
  h.check(f"roundtrip_{name}", roundtrip(name))
h.check("transposed_input", transposed_input)
h.check("one_gib_uint8", one_gib)
h.check("device_to_device_copy", device_to_device_copy)
h.check("pinned_host_memory", pinned_host_memory)
h.finish()
