"""Compiles every .ttir file of a folder with the installed Triton, one process
per file (a compiler abort then fails only that file), and prints one
PASS:/FAIL: line per file and a summary.

    python3 compile_ttir.py DIR [--jobs N] [--arch 90] [--json OUT.json]

Used on a GPU machine on the modules codegen_core_test writes when
JFT_TTIR_DUMP_DIR is set.
"""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

ONE = r"""
import sys
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget
k = tcompile(sys.argv[1], target=GPUTarget("cuda", int(sys.argv[2]), 32),
             options={"num_warps": 4})
print("BINARY_BYTES", len(k.asm["cubin"]))
"""


def compile_one(path, arch):
    proc = subprocess.run([sys.executable, "-c", ONE, path, str(arch)],
                          capture_output=True, text=True, timeout=300)
    ok = proc.returncode == 0 and "BINARY_BYTES" in proc.stdout
    err = "" if ok else (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])
    if not ok:
        # The most telling line: the first MLIR error, else the last line.
        lines = proc.stderr.strip().splitlines()
        picked = [l for l in lines if "error" in l.lower()]
        err = (picked[0] if picked else (lines[-1] if lines else "exit %d" % proc.returncode))
    return os.path.basename(path), ok, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--json")
    a = ap.parse_args()
    files = sorted(os.path.join(a.dir, f) for f in os.listdir(a.dir) if f.endswith(".ttir"))
    results = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for name, ok, err in pool.map(lambda p: compile_one(p, a.arch), files):
            print(("PASS: " if ok else "FAIL: ") + name + ("" if ok else "  " + err[:300]),
                  flush=True)
            results.append({"file": name, "ok": ok, "error": err})
    passed = sum(r["ok"] for r in results)
    print("SUMMARY: %d passed, %d failed" % (passed, len(results) - passed))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
