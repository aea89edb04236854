"""Compiles every .ttir file under a directory with the real compile worker.

    python3 tests/gpu/compile_ttir_dir.py DIR [--arch 90] [--num-warps 4]

Each file goes through the worker's full pipeline (every stage from make_ttir
to the binary). One line per file: "PASS name (N bytes cubin, shared S)" or
"FAIL name: stage: first line of the error"; the full error follows indented.
Used to check the emitters' TTIR against the installed FlagTree/Triton.
"""

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--arch", default="90")
    parser.add_argument("--num-warps", type=int, default=4)
    args = parser.parse_args()
    try:
        from jax_flagtree import worker
    except ImportError as e:
        print(f"SKIP compile_ttir_dir: {e}")
        return 0
    failed = 0
    files = sorted(pathlib.Path(args.directory).rglob("*.ttir"))
    for path in files:
        text = path.read_text()
        try:
            binary, ext, _, metadata, _ = worker.run_pipeline(
                text, {"backend": "cuda", "arch": args.arch, "warp_size": 32},
                {"num_warps": args.num_warps, "num_stages": 1, "num_ctas": 1})
            shared = getattr(metadata, "shared", None)
            if isinstance(metadata, dict):
                shared = metadata.get("shared")
            print(f"PASS {path.name} ({len(binary)} bytes {ext}, shared {shared})")
        except Exception as e:  # report and go on with the next file
            failed += 1
            message = str(e).strip().splitlines() or [type(e).__name__]
            print(f"FAIL {path.name}: {message[0][:300]}")
            for line in message[1:25]:
                print(f"    {line}")
    print(f"{len(files) - failed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
