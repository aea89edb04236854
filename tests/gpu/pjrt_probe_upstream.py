"""Prints the PJRT API version and slot count of the upstream CUDA plugin, the
reference our ABI declarations are checked against."""

import ctypes
import importlib.util
import pathlib

for name in ("jax_plugins.xla_cuda13", "jax_plugins.xla_cuda12"):
  spec = importlib.util.find_spec(name)
  if spec is None or spec.origin is None:
    continue
  library = pathlib.Path(spec.origin).parent / "xla_cuda_plugin.so"
  api = ctypes.CDLL(str(library)).GetPjrtApi
  api.restype = ctypes.c_void_p
  address = api()
  struct_size = ctypes.c_size_t.from_address(address).value
  major = ctypes.c_int.from_address(address + 32).value
  minor = ctypes.c_int.from_address(address + 36).value
  print(f"upstream {name}: PJRT API {major}.{minor}, struct_size {struct_size}, "
        f"{(struct_size - 40) // 8} slots")
