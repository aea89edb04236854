"""Our plugin is JAX's GPU backend: devices, descriptions, memories, stats."""

import pjrt_harness as h

h.require_gpu_and_jax()

import jax  # noqa: E402


def default_backend_is_ours():
  devices = jax.devices()
  print(devices, jax.default_backend(), flush=True)
  assert jax.default_backend() == "gpu", jax.default_backend()
  assert devices and all(d.platform == "gpu" for d in devices), devices
  assert h.ours_is_active(), devices[0].client.platform_version


def device_description():
  d = jax.devices()[0]
  print(repr(d), d.device_kind, d.client.platform_version, flush=True)
  assert repr(d) == "CudaDevice(id=0)", repr(d)
  assert "NVIDIA" in d.device_kind or "H" in d.device_kind, d.device_kind
  major, minor = (int(x) for x in d.compute_capability.split("."))
  assert (major, minor) >= (7, 0), d.compute_capability
  assert d.core_count > 0, d.core_count
  assert d.local_hardware_id == 0
  assert d.process_index == 0


def memories():
  d = jax.devices()[0]
  assert d.default_memory().kind == "device", d.default_memory()
  kinds = sorted(m.kind for m in d.addressable_memories())
  assert kinds == ["device", "pinned_host"], kinds


def memory_stats():
  stats = jax.devices()[0].memory_stats()
  print(stats, flush=True)
  assert stats["bytes_in_use"] >= 0
  assert stats["bytes_limit"] > 0


for name, fn in [("default_backend_is_ours", default_backend_is_ours),
                 ("device_description", device_description), ("memories", memories),
                 ("memory_stats", memory_stats)]:
  h.check(name, fn)
h.finish()
