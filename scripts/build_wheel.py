#!/usr/bin/env python3
"""Builds the jax-flagtree wheel: the PJRT plugin library, the jft command and the Python files.

    python3 scripts/build_wheel.py [--build-dir build-wheel] [--out dist] [--jobs N]

The plugin is built in Release as a small CMake project holding only the
folders it needs (the compile pipeline, the runtime and pjrt), so a
half-written folder elsewhere in the tree cannot stop a wheel. The platform tag is read from the library:
manylinux_2_N where GLIBC_2.N is the newest glibc symbol version it needs.
Install with `pip install dist/jax_flagtree-*.whl` (add --no-deps offline).

The version carries the source commit (`0.1.0+g<7 hex digits>`, `.dirty` when
tracked files have uncommitted changes: a PEP 440 local version). Beside the
wheel it writes `SHA256SUMS` (the `sha256sum -c` format, for the wheel and the
manifest) and `build_manifest.json`: the source commit, its tree and the tree
of the files actually built (they differ when dirty), the toolchain (the
compiler CMake used, cmake, ninja, python), the JAX / PJRT C API / StableHLO
versions the plugin targets, the dependency ranges, and every packaged file
with its SHA-256 and size.

The wheel installs the `jft` command: a console script calling
jax_flagtree.jft_command, which execs the packaged binary (so it also works
from a `pip install --target` folder on PYTHONPATH, as `python -m
jax_flagtree.jft_command`). Triton is not a hard dependency: FlagTree
provides the `triton` package under the same name, so upstream Triton is the
`triton` extra, and the plugin checks at start that one is installed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAME = "jax_flagtree"
BASE_VERSION = "0.1.0"
LIBRARY = "libjax_flagtree_pjrt.so"
JFT_IN_WHEEL = "jax_flagtree/bin/jft"
# What the plugin is built and tested against. The JAX range follows the PJRT
# C API and StableHLO versions below; Triton (or FlagTree, which installs
# itself as the `triton` package) compiles the kernels and is checked by the
# plugin when it starts.
SUPPORTED_JAX = ">=0.11,<0.12"
TRITON_REQUIREMENT = "triton>=3.6,<4"
STABLEHLO_VERSION = "1.20.0"
REQUIREMENTS = [f"jax{SUPPORTED_JAX}", f"jaxlib{SUPPORTED_JAX}"]
EXTRAS = {"triton": [TRITON_REQUIREMENT]}

PLUGIN_PROJECT = """cmake_minimum_required(VERSION 3.25)
project(jax_flagtree_plugin LANGUAGES CXX C)
set(CMAKE_CXX_STANDARD 20)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_POSITION_INDEPENDENT_CODE ON)
add_compile_options(-Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
set(JFT_ROOT "{root}")
include_directories(${{JFT_ROOT}}/src)
# src/CMakeLists.txt is the one list of the project's libraries.
add_subdirectory(${{JFT_ROOT}}/src src)
add_subdirectory(${{JFT_ROOT}}/tools tools)
"""


def run(command: list[str]) -> None:
  print("+", " ".join(command), flush=True)
  subprocess.run(command, check=True)


def git(*args: str) -> str | None:
  try:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()
  except (OSError, subprocess.CalledProcessError):
    return None


def worktree_tree() -> str | None:
  """The git tree of the tracked files as they are on disk (what `git
  write-tree` would write after `git add -u`), computed in a scratch index so
  the checkout's own index is left alone."""
  with tempfile.TemporaryDirectory() as scratch:
    index = os.path.join(scratch, "index")
    env = dict(os.environ, GIT_INDEX_FILE=index)
    try:
      for args in (["read-tree", "HEAD"], ["add", "-u"], ["write-tree"]):
        done = subprocess.run(["git", "-C", str(ROOT), *args], env=env, check=True,
                              capture_output=True, text=True)
    except (OSError, subprocess.CalledProcessError):
      return None
    return done.stdout.strip() or None


def source_identity() -> dict[str, object]:
  """The commit and trees the wheel is built from (None outside a git checkout)."""
  status = git("status", "--porcelain", "--untracked-files=no")
  return {"commit": git("rev-parse", "HEAD"), "tree": git("rev-parse", "HEAD^{tree}"),
          "worktree_tree": worktree_tree(),
          "dirty": bool(status) if status is not None else None}


def wheel_version(source: dict[str, object]) -> str:
  commit = source.get("commit")
  if not commit:
    return f"{BASE_VERSION}+unknown"
  return f"{BASE_VERSION}+g{str(commit)[:7]}" + (".dirty" if source.get("dirty") else "")


def first_line(command: list[str]) -> str | None:
  try:
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
  except (OSError, subprocess.CalledProcessError):
    return None
  return out.splitlines()[0].strip() if out.strip() else None


def cmake_compiler(binary_dir: pathlib.Path | None) -> str:
  """The C++ compiler CMake configured for the plugin (c++ when unknown)."""
  cache = binary_dir / "CMakeCache.txt" if binary_dir is not None else None
  if cache is not None and cache.exists():
    match = re.search(r"^CMAKE_CXX_COMPILER:\w+=(.+)$", cache.read_text(errors="replace"), re.M)
    if match:
      return match.group(1).strip()
  return "c++"


def toolchain(binary_dir: pathlib.Path | None = None) -> dict[str, str | None]:
  compiler = cmake_compiler(binary_dir)
  return {"compiler": compiler, "compiler_version": first_line([compiler, "--version"]),
          "cmake": first_line(["cmake", "--version"]), "ninja": first_line(["ninja", "--version"]),
          "python": sys.version.split()[0]}


def pjrt_api_version() -> dict[str, int] | None:
  """The PJRT C API version src/pjrt/abi.h declares: the layout the plugin's
  structs reproduce, which decides the jaxlib it can be loaded by."""
  text = (ROOT / "src" / "pjrt" / "abi.h").read_text()
  major = re.search(r"kMajorVersion\s*=\s*(\d+)", text)
  minor = re.search(r"kMinorVersion\s*=\s*(\d+)", text)
  if not (major and minor):
    return None
  return {"major": int(major.group(1)), "minor": int(minor.group(1))}


def build_library(build_dir: pathlib.Path, jobs: int) -> tuple[pathlib.Path, pathlib.Path]:
  """Returns the library and the jft binary; the CMake build folder is their parent's parent's."""
  project = build_dir / "plugin-project"
  project.mkdir(parents=True, exist_ok=True)
  (project / "CMakeLists.txt").write_text(PLUGIN_PROJECT.format(root=ROOT.as_posix()))
  binary = build_dir / "plugin-build"
  run(["cmake", "-S", str(project), "-B", str(binary), "-G", "Ninja",
       "-DCMAKE_BUILD_TYPE=Release"])
  run(["ninja", "-C", str(binary), f"-j{jobs}", "jax_flagtree_pjrt", "jft"])
  return binary / "src" / "pjrt" / LIBRARY, binary / "tools" / "jft"


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


def wheel_files(library: pathlib.Path, jft: pathlib.Path | None) -> dict[str, bytes]:
  files: dict[str, bytes] = {}
  python = ROOT / "python"
  for source in sorted((python / "jax_plugins" / "flagtree").rglob("*.py")):
    files[source.relative_to(python).as_posix()] = source.read_bytes()
  for source in sorted((python / "jax_flagtree").rglob("*.py")):
    files[source.relative_to(python).as_posix()] = source.read_bytes()
  files[f"jax_plugins/flagtree/{LIBRARY}"] = library.read_bytes()
  if jft is not None:
    files[JFT_IN_WHEEL] = jft.read_bytes()
  return files


def metadata_files(platform: str, version: str, with_jft: bool) -> dict[str, bytes]:
  info = f"{NAME}-{version}.dist-info"
  requires = "".join(f"Requires-Dist: {r}\n" for r in REQUIREMENTS)
  for extra, needs in EXTRAS.items():
    requires += f"Provides-Extra: {extra}\n"
    requires += "".join(f'Requires-Dist: {n}; extra == "{extra}"\n' for n in needs)
  metadata = (f"Metadata-Version: 2.1\nName: jax-flagtree\nVersion: {version}\n"
              "Summary: PJRT plugin running JAX on the GPU through FlagTree/Triton\n"
              f"Requires-Python: >=3.10\n{requires}")
  wheel = (f"Wheel-Version: 1.0\nGenerator: jax-flagtree build_wheel.py\n"
           f"Root-Is-Purelib: false\nTag: py3-none-{platform}\n")
  entry_points = "[jax_plugins]\nflagtree = jax_plugins.flagtree\n"
  if with_jft:
    entry_points += "\n[console_scripts]\njft = jax_flagtree.jft_command:main\n"
  return {
      f"{info}/METADATA": metadata.encode(),
      f"{info}/WHEEL": wheel.encode(),
      f"{info}/entry_points.txt": entry_points.encode(),
      f"{info}/top_level.txt": b"jax_flagtree\njax_plugins\n",
  }


def sha256(data: bytes) -> str:
  return hashlib.sha256(data).hexdigest()


def manifest(source: dict[str, object], version: str, platform: str, wheel: pathlib.Path,
             files: dict[str, bytes], binary_dir: pathlib.Path | None) -> dict[str, object]:
  return {
      "name": "jax-flagtree", "version": version, "wheel": wheel.name,
      "wheel_sha256": sha256(wheel.read_bytes()), "platform": platform, "source": source,
      "toolchain": toolchain(binary_dir),
      "targets": {"jax": SUPPORTED_JAX, "jaxlib": SUPPORTED_JAX,
                  "pjrt_c_api": pjrt_api_version(), "stablehlo": STABLEHLO_VERSION},
      "requires": REQUIREMENTS, "extras": EXTRAS,
      "files": [{"path": p, "sha256": sha256(d), "size": len(d)} for p, d in sorted(files.items())],
  }


def write_release_files(out_dir: pathlib.Path, wheel: pathlib.Path,
                        build_manifest: dict[str, object]) -> None:
  text = json.dumps(build_manifest, indent=1, sort_keys=True) + "\n"
  (out_dir / "build_manifest.json").write_text(text)
  sums = "".join(f"{sha256(p.read_bytes())}  {p.name}\n"
                 for p in (wheel, out_dir / "build_manifest.json"))
  (out_dir / "SHA256SUMS").write_text(sums)


def write_wheel(out_dir: pathlib.Path, library: pathlib.Path, jft: pathlib.Path | None = None,
                binary_dir: pathlib.Path | None = None) -> pathlib.Path:
  """Writes the wheel, SHA256SUMS and build_manifest.json into out_dir;
  binary_dir is the CMake build folder (for the compiler it used)."""
  platform = glibc_tag(library)
  source = source_identity()
  version = wheel_version(source)
  files = wheel_files(library, jft)
  packaged = dict(files)
  files.update(metadata_files(platform, version, jft is not None))
  info = f"{NAME}-{version}.dist-info"
  record = "\n".join(record_line(p, d) for p, d in files.items())
  record += f"\n{info}/RECORD,,\n"
  out_dir.mkdir(parents=True, exist_ok=True)
  wheel = out_dir / f"{NAME}-{version}-py3-none-{platform}.whl"
  for stale in out_dir.glob(f"{NAME}-*.whl"):
    stale.unlink()
  with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
    for path, data in files.items():
      entry = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
      executable = path.endswith(".so") or path == JFT_IN_WHEEL
      # The file type bits too: pip sets the executable bits only on entries
      # that say they are regular files.
      entry.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
      entry.compress_type = zipfile.ZIP_DEFLATED
      archive.writestr(entry, data)
    archive.writestr(f"{info}/RECORD", record)
  write_release_files(out_dir, wheel,
                      manifest(source, version, platform, wheel, packaged, binary_dir))
  return wheel


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--build-dir", default=str(ROOT / "build-wheel"))
  parser.add_argument("--out", default=str(ROOT / "dist"))
  parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
  parser.add_argument("--library", help="use this prebuilt library instead of building")
  parser.add_argument("--jft", help="with --library: this prebuilt jft to package")
  args = parser.parse_args()
  binary_dir = None
  if args.library:
    library = pathlib.Path(args.library)
    jft = pathlib.Path(args.jft) if args.jft else None
  else:
    if shutil.which("cmake") is None or shutil.which("ninja") is None:
      sys.exit("cmake and ninja are needed to build the plugin")
    build_dir = pathlib.Path(args.build_dir).resolve()
    library, jft = build_library(build_dir, args.jobs)
    binary_dir = build_dir / "plugin-build"
  wheel = write_wheel(pathlib.Path(args.out), library, jft, binary_dir)
  print(wheel)


if __name__ == "__main__":
  main()
