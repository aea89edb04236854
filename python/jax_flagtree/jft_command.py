"""The `jft` console command: runs the jft binary packaged beside this file.

`jft inspect FILE.mlirbc` and `jft compile FILE.mlirbc --emit ...` read a
StableHLO artifact (what JAX hands the plugin, e.g. from `--xla_dump_to`) and
run our pipeline offline; see the project's tools/README.md.
"""

from __future__ import annotations

import os
import pathlib
import sys


def binary() -> pathlib.Path:
  return pathlib.Path(__file__).resolve().parent / "bin" / "jft"


def main() -> None:
  path = binary()
  if not path.exists():
    sys.exit(f"jft: {path} is missing; this installation was built without the jft tool")
  os.execv(str(path), [str(path), *sys.argv[1:]])


if __name__ == "__main__":
  main()
