#!/usr/bin/env python3
"""Builds the jax-flagtree wheel: the PJRT plugin library and the Python files.

    python3 scripts/build_wheel.py [--build-dir build-wheel] [--out dist] [--jobs N]

The plugin is built in Release as a small CMake project holding only the
folders it needs (the compile pipeline, the runtime and pjrt), so a
half-written folder elsewhere in the tree cannot stop a wheel. The platform tag is read from the library:
manylinux_2_N where GLIBC_2.N is the newest glibc symbol version it needs.
Install with `pip install dist/jax_flagtree-*.whl` (add --no-deps offline).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAME = "jax_flagtree"
VERSION = "0.1.0"
LIBRARY = "libjax_flagtree_pjrt.so"

PLUGIN_PROJECT = """cmake_minimum_required(VERSION 3.25)
project(jax_flagtree_plugin LANGUAGES CXX C)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
add_compile_options(-Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
set(JFT_ROOT "{root}")
include_directories(${{JFT_ROOT}}/src)
add_subdirectory(${{JFT_ROOT}}/src/support support)
add_subdirectory(${{JFT_ROOT}}/src/ir ir)
add_subdirectory(${{JFT_ROOT}}/src/frontend frontend)
add_subdirectory(${{JFT_ROOT}}/src/passes passes)
add_subdirectory(${{JFT_ROOT}}/src/fusion fusion)
add_subdirectory(${{JFT_ROOT}}/src/codegen codegen)
add_subdirectory(${{JFT_ROOT}}/src/kernel_compiler kernel_compiler)
add_subdirectory(${{JFT_ROOT}}/src/runtime runtime)
add_subdirectory(${{JFT_ROOT}}/src/compiler compiler)
add_subdirectory(${{JFT_ROOT}}/src/pjrt pjrt)
"""


def run(command: list[str]) -> None:
  print("+", " ".join(command), flush=True)
  subprocess.run(command, check=True)


def build_library(build_dir: pathlib.Path, jobs: int) -> pathlib.Path:
  project = build_dir / "plugin-project"
  project.mkdir(parents=True, exist_ok=True)
  (project / "CMakeLists.txt").write_text(PLUGIN_PROJECT.format(root=ROOT.as_posix()))
  binary = build_dir / "plugin-build"
  run(["cmake", "-S", str(project), "-B", str(binary), "-G", "Ninja",
       "-DCMAKE_BUILD_TYPE=Release"])
  run(["ninja", "-C", str(binary), f"-j{jobs}", "jax_flagtree_pjrt"])
  return binary / "pjrt" / LIBRARY


def glibc_tag(library: pathlib.Path) -> str:
  """manylinux tag from the newest GLIBC_2.N symbol version the library needs."""
  text = ""
  for tool in (["objdump", "-T"], ["readelf", "--version-info", "--wide"]):
    try:
      text = subprocess.run(tool + [str(library)], check=True, capture_output=True,
                            text=True).stdout
      break
    except (OSError, subprocess.CalledProcessError):
      continue
  versions = [int(m) for m in re.findall(r"GLIBC_2\.(\d+)", text)]
  if not versions:
    sys.exit(f"cannot read the glibc versions {library} needs (objdump/readelf missing?)")
  return f"manylinux_2_{max(max(versions), 17)}_x86_64"


def record_line(path: str, data: bytes) -> str:
  digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
  return f"{path},sha256={digest},{len(data)}"


def wheel_files(library: pathlib.Path) -> dict[str, bytes]:
  files: dict[str, bytes] = {}
  python = ROOT / "python"
  for source in sorted((python / "jax_plugins" / "flagtree").rglob("*.py")):
    files[source.relative_to(python).as_posix()] = source.read_bytes()
  for source in sorted((python / "jax_flagtree").rglob("*.py")):
    files[source.relative_to(python).as_posix()] = source.read_bytes()
  files[f"jax_plugins/flagtree/{LIBRARY}"] = library.read_bytes()
  return files


def metadata_files(platform: str) -> dict[str, bytes]:
  info = f"{NAME}-{VERSION}.dist-info"
  metadata = (f"Metadata-Version: 2.1\nName: jax-flagtree\nVersion: {VERSION}\n"
              "Summary: PJRT plugin running JAX on the GPU through FlagTree/Triton\n"
              "Requires-Python: >=3.10\nRequires-Dist: jax\n")
  wheel = (f"Wheel-Version: 1.0\nGenerator: jax-flagtree build_wheel.py\n"
           f"Root-Is-Purelib: false\nTag: py3-none-{platform}\n")
  return {
      f"{info}/METADATA": metadata.encode(),
      f"{info}/WHEEL": wheel.encode(),
      f"{info}/entry_points.txt": b"[jax_plugins]\nflagtree = jax_plugins.flagtree\n",
      f"{info}/top_level.txt": b"jax_flagtree\njax_plugins\n",
  }


def write_wheel(out_dir: pathlib.Path, library: pathlib.Path) -> pathlib.Path:
  platform = glibc_tag(library)
  files = wheel_files(library)
  files.update(metadata_files(platform))
  info = f"{NAME}-{VERSION}.dist-info"
  record = "\n".join(record_line(p, d) for p, d in files.items())
  record += f"\n{info}/RECORD,,\n"
  out_dir.mkdir(parents=True, exist_ok=True)
  wheel = out_dir / f"{NAME}-{VERSION}-py3-none-{platform}.whl"
  for stale in out_dir.glob(f"{NAME}-*.whl"):
    stale.unlink()
  with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
    for path, data in files.items():
      entry = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
      entry.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
      entry.compress_type = zipfile.ZIP_DEFLATED
      archive.writestr(entry, data)
    archive.writestr(f"{info}/RECORD", record)
  return wheel


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--build-dir", default=str(ROOT / "build-wheel"))
  parser.add_argument("--out", default=str(ROOT / "dist"))
  parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
  parser.add_argument("--library", help="use this prebuilt library instead of building")
  args = parser.parse_args()
  if args.library:
    library = pathlib.Path(args.library)
  else:
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
      sys.exit("cmake and ninja are needed to build the plugin")
    library = build_library(pathlib.Path(args.build_dir).resolve(), args.jobs)
  wheel = write_wheel(pathlib.Path(args.out), library)
  print(wheel)


if __name__ == "__main__":
  main()
