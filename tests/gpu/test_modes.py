"""The zoo in each XLA_MODE, each in its own process (test_zoo.py compares the
outputs with upstream's), and where the kernels ran, read off XLA_FLAGTREE_LOG:

  fl_only           every zoo program passes; no kernel on the native route
  back_unsupported  every program passes (the default: TTIR where it can)
  native            every program passes; every loop and reduction kernel is
                    native, none is TTIR
  back_fail         every program passes with XLA_FLAGTREE_FAIL_KERNELS naming
                    every kernel (fault injection: FlagTree "fails" each TTIR
                    kernel), so each goes native saying the TTIR compile failed

The kernel cache is content-addressed (the CUDA C or the TTIR, and the fault
injection, are in the key), so the modes share it. Run from the repository root with the plugin on PYTHONPATH:
    PYTHONPATH=<plugin>:tests/gpu python3 tests/gpu/test_modes.py
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from pjrt_harness import check, finish, require_gpu_and_jax

HERE = pathlib.Path(__file__).resolve().parent
ZOO_PROGRAMS = 20
# A kernel's log line: "jax-flagtree: NAME ROUTE/FAMILY ...".
_KERNEL = re.compile(r"^jax-flagtree: (\S+) (\w+)/(\w+) ", re.M)


def run_zoo(mode: str, extra: dict[str, str]) -> tuple[str, list[tuple[str, str, str]]]:
  env = dict(os.environ, XLA_MODE=mode, XLA_FLAGTREE_LOG="1", **extra)
  done = subprocess.run([sys.executable, str(HERE / "test_zoo.py")], env=env,
                        capture_output=True, text=True, timeout=900)
  output = done.stdout + done.stderr
  passed = len(re.findall(r"^PASS ", done.stdout, re.M))
  if done.returncode != 0 or passed != ZOO_PROGRAMS:
    failures = "\n".join(l for l in done.stdout.splitlines() if l.startswith("FAIL"))
    raise AssertionError(f"XLA_MODE={mode}: {passed}/{ZOO_PROGRAMS} zoo programs passed "
                         f"(exit {done.returncode})\n{failures}\n{output[-3000:]}")
  return output, _KERNEL.findall(output)


def routes(kernels, route: str) -> list[str]:
  return [name for name, r, _ in kernels if r == route]


def test_fl_only() -> None:
  _, kernels = run_zoo("fl_only", {})
  assert routes(kernels, "ttir"), "no TTIR kernel logged"
  assert not routes(kernels, "native"), f"native kernels in fl_only: {routes(kernels, 'native')}"


def test_back_unsupported() -> None:
  _, kernels = run_zoo("back_unsupported", {})
  assert routes(kernels, "ttir"), "no TTIR kernel logged"


def test_native() -> None:
  _, kernels = run_zoo("native", {})
  native = routes(kernels, "native")
  assert native, "no native kernel logged"
  loop_like = [n for n, r, fam in kernels if r == "ttir" and fam in ("loop", "reduction")]
  assert not loop_like, f"loop/reduction kernels left on TTIR in native mode: {loop_like}"
  print(f"  native mode: {len(native)} native kernels, {len(routes(kernels, 'ttir'))} TTIR")


def test_back_fail_fault_injection() -> None:
  output, kernels = run_zoo("back_fail", {"XLA_FLAGTREE_FAIL_KERNELS": "fusion_"})
  native = routes(kernels, "native")
  assert native, "no kernel moved to the native route"
  moved = output.count("[native: the TTIR kernel failed to compile")
  assert moved > 0, "no native kernel says the TTIR compile failed"
  print(f"  back_fail: {len(native)} native kernels, {moved} moved after a failed TTIR compile")


def main() -> None:
  require_gpu_and_jax()
  check("zoo_fl_only", test_fl_only)
  check("zoo_back_unsupported", test_back_unsupported)
  check("zoo_native", test_native)
  check("zoo_back_fail_fault_injection", test_back_fail_fault_injection)
  finish()


if __name__ == "__main__":
  main()
