"""A fingerprint of the installed Triton/FlagTree build, computed without importing it.

The compiler's identity (name, version, build id) is part of every kernel cache
key, and learning it from the compiler means importing `triton` in a worker
(a second or more). The plugin remembers the identity a worker reported under
this fingerprint, so a process whose kernels are all cached starts no worker.

The fingerprint must change whenever the identity could. It covers, as
(device, inode, size, mtime) of each file, which a reinstall or an in-place
rebuild changes and which costs one stat per file:

* `triton/__init__.py` (the version string lives there) and the native
  libraries under `triton/_C` and the bundled `ptxas` (what the worker's build
  id hashes);
* the files only FlagTree ships in the package (how the worker tells FlagTree
  from Triton when the distribution name does not);
* the metadata of every installed `triton*` / `flagtree*` distribution on
  `sys.path` (the names and versions the worker reads);
* this package's `worker.py` (the detection code itself);
* the interpreter, the package's real path, and the TRITON_* / FLAGTREE_*
  environment knobs (the build id includes the ones that change code).

A whole-directory mtime would miss a library rebuilt in place (a directory's
mtime moves only when entries are added or removed), and a dist-info RECORD
alone would miss an editable FlagTree build; stat-ing the files the identity
is made of catches both. When the worker's fingerprint of the compiler it
imported differs from the plugin's (another `sys.path`), nothing matches and
workers are asked, as before.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import sys

# Bumped when the worker's identity detection changes meaning.
FORMAT = 1
PACKAGE = "triton"
# Relative to the triton package; the FlagTree-only files match worker.py's.
_FILES = ("__init__.py", "backends/nvidia/bin/ptxas", "compiler/hint_manager.py",
          "compiler/flagtree_debug.py")
_DISTRIBUTION_PREFIXES = ("triton-", "triton_", "flagtree")
_METADATA_SUFFIXES = (".dist-info", ".egg-info", ".egg-link")


def package_dir(find_spec=importlib.util.find_spec) -> pathlib.Path | None:
  """Where `import triton` would load from (searched, not imported); None when absent."""
  try:
    spec = find_spec(PACKAGE)
  except (ImportError, ValueError):
    return None
  if spec is None or not spec.submodule_search_locations:
    return None
  return pathlib.Path(list(spec.submodule_search_locations)[0])


def _stat_line(path: pathlib.Path) -> str:
  try:
    info = path.stat()
  except OSError:
    return f"{path}: absent"
  return f"{path}: {info.st_dev} {info.st_ino} {info.st_size} {info.st_mtime_ns}"


def _native_libraries(directory: pathlib.Path) -> list[pathlib.Path]:
  try:
    return sorted(p for p in (directory / "_C").iterdir() if p.name.startswith("libtriton"))
  except OSError:
    return []


def _distribution_metadata(search_path: list[str]) -> list[pathlib.Path]:
  found = []
  for entry in search_path:
    try:
      names = os.listdir(entry or ".")
    except OSError:
      continue
    for name in sorted(names):
      lower = name.lower()
      if lower.startswith(_DISTRIBUTION_PREFIXES) and lower.endswith(_METADATA_SUFFIXES):
        base = pathlib.Path(os.path.abspath(entry or ".")) / name  # '' and cwd alike
        found += [base / "METADATA", base / "PKG-INFO", base] if base.is_dir() else [base]
  return found


def fingerprint(directory: pathlib.Path | None = None, environ=os.environ,
                search_path: list[str] | None = None) -> str | None:
  """32 hex digits naming the installed compiler build; None without a `triton` package."""
  directory = directory if directory is not None else package_dir()
  if directory is None:
    return None
  parts = [f"format {FORMAT}", sys.executable, str(directory.resolve())]
  files = [directory / f for f in _FILES] + _native_libraries(directory)
  files += _distribution_metadata(sys.path if search_path is None else search_path)
  files.append(pathlib.Path(__file__).resolve().parent / "worker.py")
  parts += [_stat_line(path) for path in files]
  parts += [f"{key}={environ[key]}" for key in sorted(environ)
            if key.startswith(("TRITON_", "FLAGTREE_"))]
  return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()[:32]
