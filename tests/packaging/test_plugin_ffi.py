"""The plugin module's FFI registration (python/jax_plugins/flagtree), against
stand-ins for xla_client, jaxlib's CUDA plugin helper and jaxlib's GPU modules.

xla_client queues the CUDA targets jaxlib registers during `import jax` and
hands the queue to the first CUDA handler. When upstream's plugin initialises
first, ours must register those targets itself, or programs calling them (a
complex eig, a pivoting tridiagonal solve, ...) fail to load."""

from __future__ import annotations

import importlib.util
import pathlib
import types
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_plugin_module():
  path = ROOT / "python" / "jax_plugins" / "flagtree" / "__init__.py"
  spec = importlib.util.spec_from_file_location("flagtree_plugin_under_test", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


class FakeXlaClient:
  def __init__(self, upstream_ran_first: bool):
    self._custom_callback_handler = {"CUDA": "upstream"} if upstream_ran_first else {}
    self._custom_type_id_handler = {}

  def register_custom_call_handler(self, platform, handler):
    self._custom_callback_handler[platform] = handler

  def register_custom_type_handler(self, platform, handler):
    self._custom_type_id_handler[platform] = handler


class FakeExtension:
  def __init__(self, refuse=()):
    self.calls = []
    self.refuse = set(refuse)

  def register_custom_call_target(self, c_api, name, fn, platform, api_version, traits=0):
    if name in self.refuse:
      raise RuntimeError(f"cannot register {name}")
    self.calls.append((c_api, name, fn, platform, api_version))

  def register_custom_type(self, c_api, name, value):
    pass

  def ffi_types(self):
    return {}

  def ffi_handlers(self):
    return {"xla_ffi_python_gpu_callback": "callback"}


def jaxlib_modules():
  by_platform = lambda cuda: types.SimpleNamespace(
      registrations=lambda: {"CUDA": cuda, "ROCM": [("hip_target", "rocm", 1)]})
  rnn = types.SimpleNamespace(registrations=lambda: {"cudnn_rnn": "rnn", "cudnn_rnn_bwd_ffi": "bwd"})
  triton = types.SimpleNamespace(get_custom_call=lambda: "legacy",
                                 registrations=lambda: {"triton_ffi": "tffi"})
  return {
      "jaxlib.gpu_solver": by_platform([("cuhybrid_eig_comp", "eig", 1),
                                        ("cusolver_getrf_ffi", "getrf", 1)]),
      "jaxlib.gpu_linalg": by_platform([("cu_lu_pivots_to_permutation", "perm", 1)]),
      "jaxlib.gpu_sparse": by_platform([("cu_tridiagonal_solve_perturbed", "gtsv", 1)]),
      "jaxlib.gpu_rnn": types.SimpleNamespace(_cuda_rnn=rnn),
      "jaxlib.gpu_triton": types.SimpleNamespace(_cuda_triton=triton),
  }


class RegisterFfiTest(unittest.TestCase):
  def setUp(self):
    self.plugin = load_plugin_module()

  def registered(self, extension):
    return {(name, fn, api) for _, name, fn, _, api in extension.calls}

  def test_upstream_first_registers_jaxlibs_targets_again(self):
    client, extension = FakeXlaClient(upstream_ran_first=True), FakeExtension()
    self.plugin.register_ffi("c_api", client, extension, modules=jaxlib_modules())
    self.assertEqual(
        self.registered(extension),
        {("xla_ffi_python_gpu_callback", "callback", 1), ("cuhybrid_eig_comp", "eig", 1),
         ("cusolver_getrf_ffi", "getrf", 1), ("cu_lu_pivots_to_permutation", "perm", 1),
         ("cu_tridiagonal_solve_perturbed", "gtsv", 1), ("cudnn_rnn", "rnn", 0),
         ("cudnn_rnn_bwd_ffi", "bwd", 1), ("triton_kernel_call", "legacy", 0),
         ("triton_ffi", "tffi", 1)})
    self.assertTrue(all(c_api == "c_api" and platform == "CUDA"
                        for c_api, _, _, platform, _ in extension.calls))
    self.assertNotEqual(client._custom_callback_handler["CUDA"], "upstream")

  def test_ours_first_leaves_the_queue_to_xla_client(self):
    client, extension = FakeXlaClient(upstream_ran_first=False), FakeExtension()
    self.plugin.register_ffi("c_api", client, extension, modules=jaxlib_modules())
    self.assertEqual(self.registered(extension), {("xla_ffi_python_gpu_callback", "callback", 1)})
    self.assertIn("CUDA", client._custom_callback_handler)

  def test_a_refused_target_does_not_stop_the_rest(self):
    client = FakeXlaClient(upstream_ran_first=True)
    extension = FakeExtension(refuse={"cudnn_rnn"})
    with self.assertLogs(level="WARNING"):
      self.plugin.register_ffi("c_api", client, extension, modules=jaxlib_modules())
    names = {name for name, _, _ in self.registered(extension)}
    self.assertNotIn("cudnn_rnn", names)
    self.assertIn("triton_kernel_call", names)

  def test_modules_jax_did_not_import_contribute_nothing(self):
    self.assertEqual(self.plugin.jaxlib_cuda_targets({}), [])


if __name__ == "__main__":
  unittest.main()
