"""Which of JAX's test files belong to which gate profile, and each profile's environment.

A profile is a set of test files plus the environment its tests run in:

  one_gpu  every GPU-runnable test file that does not need several devices
  x64      the numeric files of one_gpu, run with JAX_ENABLE_X64=1 (other dtype lists,
           other ids)
  two_gpu  the files that need several devices, run on a machine with two or more GPUs

A file is decided from its path and its text (standard library only, so this runs
anywhere and the CPU tests cover it). Every decision carries a reason, which `collect`
writes to files.json.
"""

from __future__ import annotations

import re

PROFILES = ("one_gpu", "x64", "two_gpu")

# Extra environment per profile (on top of the runner's own).
PROFILE_ENV = {
    "one_gpu": {},
    "x64": {"JAX_ENABLE_X64": "1"},
    "two_gpu": {},
}

# Devices a profile needs; the runner refuses a machine with fewer.
PROFILE_MIN_DEVICES = {"one_gpu": 1, "x64": 1, "two_gpu": 2}

# Not pytest GPU tests at all.
_EXCLUDED_DIRS = (("tests/mosaic/", "Mosaic TPU compiler tests"),
                  ("tests/filecheck/", "FileCheck lit tests, not pytest"))
_TPU_NAME = re.compile(r"(^|/)tpu_[^/]*$")

# Names that say a file is about several devices or processes.
_MULTI_NAME = re.compile(r"multi_device|multigpu|multiprocess|multi_process|distributed|"
                         r"colocated|ragged_collective|async_collectives")
# JAX marks tests that may need several accelerators with this pytest marker.
_MULTI_MARKER = re.compile(r"multiaccelerator")
# Guards that skip a test with fewer than 2 devices.
_DEVICE_GUARD = re.compile(
    r"device_count\(\)\s*<\s*[2-9]|len\(\s*jax\.(?:local_)?devices\(\)\s*\)\s*<\s*[2-9]|"
    r"device_count\(\)\s*>=\s*[2-9]|skip_if_fewer|jtu\.device_count_at_least|"
    r"requires\s+(?:at\s+least\s+)?[2-9]\s+devices|needs\s+(?:at\s+least\s+)?[2-9]\s+devices")
_TEST_DEF = re.compile(r"^\s*def test", re.M)
# A file whose tests are mostly guarded is a several-device file.
GUARD_MIN = 5
GUARD_SHARE = 0.05

# one_gpu files worth running again with 64-bit types on.
_X64_NAME = re.compile(r"(^|/)(lax_test|lax_numpy[a-z_]*_test|lax_autodiff_test|lax_vmap[a-z_]*_test|"
                       r"lax_scipy[a-z_]*_test|lax_control_flow_test|linalg_test|fft_test|"
                       r"scipy_[a-z_]+_test|random[a-z_]*_test|nn_test|dtypes_test|"
                       r"x64_context_test|eigh_test|svd_test|qdwh_test|ode_test|"
                       r"polynomial_test|cholesky_update_test|lobpcg_test|"
                       r"custom_(?:linear_solve|root)_test|line_search_test)\.py$")


def classify(path: str, text: str) -> tuple[str, str]:
  """(profile, reason) for a test file; profile is one_gpu, two_gpu or "excluded".
  x64 is derived from one_gpu by `in_x64`."""
  if not path.endswith("_test.py"):
    return "excluded", "not a *_test.py file"
  for prefix, why in _EXCLUDED_DIRS:
    if path.startswith(prefix):
      return "excluded", why
  if _TPU_NAME.search(path):
    return "excluded", "TPU-only (tpu_ prefix)"
  if _MULTI_NAME.search(path):
    return "two_gpu", "name says several devices or processes"
  if _MULTI_MARKER.search(text):
    return "two_gpu", "uses the multiaccelerator pytest marker"
  guards = len(_DEVICE_GUARD.findall(text))
  tests = max(1, len(_TEST_DEF.findall(text)))
  if guards >= GUARD_MIN and guards / tests >= GUARD_SHARE:
    return "two_gpu", f"{guards} fewer-than-2-devices guards over {tests} tests"
  return "one_gpu", "single-device file"


def in_x64(path: str) -> bool:
  return bool(_X64_NAME.search(path))


def files_for(profile: str, decisions: dict) -> list[str]:
  """The files of a profile from {path: (profile, reason)}, sorted."""
  if profile not in PROFILES:
    raise ValueError(f"unknown profile {profile!r}: one of {', '.join(PROFILES)}")
  if profile == "x64":
    return sorted(p for p, (prof, _) in decisions.items() if prof == "one_gpu" and in_x64(p))
  return sorted(p for p, (prof, _) in decisions.items() if prof == profile)
