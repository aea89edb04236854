"""GPU test of the real compile worker: reference TTIR -> cubin -> loaded and run by the driver.

Usage (from the project root, on a machine with triton or FlagTree and an NVIDIA GPU):

    python3 tests/gpu/test_worker.py

Plain python3, no pytest. It starts `python -m jax_flagtree.worker` from this
checkout, compiles tests/kernel_compiler/data/{add_exp,softmax_rows,mm}.ttir for
cuda sm_90, checks each answer (cubin ELF magic, kernel name, parameter list =
the TTIR's parameters + the two scratch pointers of the reference PTX, shared
memory for mm), loads every cubin with cuModuleLoadData through ctypes, and
launches add_exp and softmax_rows with exactly the reported parameter list,
comparing the results with values computed here. It prints SKIP (exit 0) where
triton or a GPU is missing, and a PASS/FAIL summary otherwise (exit 1 on FAIL).
"""

import ctypes
import json
import math
import os
import random
import re
import struct
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(ROOT, "python")
DATA_DIR = os.path.join(ROOT, "tests", "kernel_compiler", "data")
KERNELS = ("add_exp", "softmax_rows", "mm")
TARGET = {"backend": "cuda", "arch": "90", "warp_size": 32}
OPTIONS = {"num_warps": 4, "num_stages": 3, "num_ctas": 1}

results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(f"{'PASS' if condition else 'FAIL'}: {name}{'' if condition or not detail else ' -- ' + str(detail)}")
    return bool(condition)


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(0)


# ------------------------------------------------------------------ protocol (as documented in
# python/jax_flagtree/compile_protocol.py; written out here so this file stands alone)

def frame(header, payload=b""):
    text = json.dumps(header).encode()
    return b"JFTW" + struct.pack("<IQ", len(text), len(payload)) + text + payload


def read_exactly(stream, count):
    data = b""
    while len(data) < count:
        chunk = stream.read(count - len(data))
        if not chunk:
            raise EOFError(f"worker closed its output after {len(data)} of {count} bytes")
        data += chunk
    return data


def read_frame(stream):
    magic, header_length, payload_length = struct.unpack("<4sIQ", read_exactly(stream, 16))
    if magic != b"JFTW":
        raise ValueError(f"bad magic {magic!r}")
    header = json.loads(read_exactly(stream, header_length))
    return header, read_exactly(stream, payload_length)


class Worker:
    def __init__(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = PYTHON_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.process = subprocess.Popen([sys.executable, "-m", "jax_flagtree.worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.hello = read_frame(self.process.stdout)[0]
        self.next_id = 1

    def compile(self, ttir, options=OPTIONS):
        request_id = self.next_id
        self.next_id += 1
        self.process.stdin.write(frame({"type": "compile", "id": request_id, "target": TARGET,
                                        "options": options}, ttir.encode()))
        self.process.stdin.flush()
        header, payload = read_frame(self.process.stdout)
        assert header["id"] == request_id, header
        return header, payload

    def close(self):
        self.process.stdin.write(frame({"type": "shutdown"}))
        self.process.stdin.flush()
        return self.process.wait(timeout=60)


# ------------------------------------------------------------------ CUDA driver through ctypes

class Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.call("cuInit", ctypes.c_uint(0))
        count = ctypes.c_int(0)
        self.call("cuDeviceGetCount", ctypes.byref(count))
        if count.value < 1:
            raise RuntimeError("no CUDA device")
        self.device = ctypes.c_int(0)
        self.call("cuDeviceGet", ctypes.byref(self.device), ctypes.c_int(0))
        major, minor = ctypes.c_int(0), ctypes.c_int(0)
        self.call("cuDeviceGetAttribute", ctypes.byref(major), ctypes.c_int(75), self.device)
        self.call("cuDeviceGetAttribute", ctypes.byref(minor), ctypes.c_int(76), self.device)
        self.capability = major.value * 10 + minor.value
        self.context = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.context), self.device)
        self.call("cuCtxSetCurrent", self.context)

    def call(self, name, *args):
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            message = ctypes.c_char_p()
            self.lib.cuGetErrorString(rc, ctypes.byref(message))
            raise RuntimeError(f"{name} failed with {rc} ({message.value.decode() if message.value else '?'})")

    def load(self, cubin, name):
        module, function = ctypes.c_void_p(), ctypes.c_void_p()
        self.call("cuModuleLoadData", ctypes.byref(module), ctypes.c_char_p(cubin))
        self.call("cuModuleGetFunction", ctypes.byref(function), module, name.encode())
        return function

    def upload(self, floats):
        pointer = ctypes.c_uint64()
        data = (ctypes.c_float * len(floats))(*floats)
        self.call("cuMemAlloc_v2", ctypes.byref(pointer), ctypes.c_size_t(ctypes.sizeof(data)))
        self.call("cuMemcpyHtoD_v2", pointer, data, ctypes.c_size_t(ctypes.sizeof(data)))
        return pointer

    def download(self, pointer, count):
        data = (ctypes.c_float * count)()
        self.call("cuMemcpyDtoH_v2", data, pointer, ctypes.c_size_t(ctypes.sizeof(data)))
        return list(data)

    def launch(self, function, grid, threads, shared, params, answer):
        """params: the TTIR arguments; the appended scratch pointers are filled from answer."""
        values = list(params)
        for param in answer["params"][len(params):]:
            role = param["role"]
            size = answer.get(role + "_size", 0) if role.endswith("scratch") else 0
            if size:
                raise RuntimeError(f"{role} of {size} bytes is not provided by this test")
            values.append(ctypes.c_uint64(0))
        pointers = (ctypes.c_void_p * len(values))(*[ctypes.addressof(v) for v in values])
        self.call("cuLaunchKernel", function, ctypes.c_uint(grid), ctypes.c_uint(1), ctypes.c_uint(1),
                  ctypes.c_uint(threads), ctypes.c_uint(1), ctypes.c_uint(1), ctypes.c_uint(shared),
                  ctypes.c_void_p(0), pointers, ctypes.c_void_p(0))
        self.call("cuCtxSynchronize")


# ------------------------------------------------------------------ checks

def ttir_param_count(ttir):
    signature = re.search(r"tt\.func\s+public\s+@\w+\((.*?)\)\s+attributes", ttir, re.S).group(1)
    return len(re.findall(r"%\w+:", signature))


def ptx_param_count(name):
    with open(os.path.join(DATA_DIR, name + ".ptx")) as f:
        entry = re.search(r"\.visible\s+\.entry\s+" + name + r"\s*\(([^)]*)\)", f.read()).group(1)
    return entry.count(".param")


def close_enough(got, want, tolerance=1e-5):
    return all(abs(g - w) <= tolerance * max(1.0, abs(w)) for g, w in zip(got, want)) and len(got) == len(want)


def run_add_exp(cuda, function, answer):
    n = 1000
    xs = [random.uniform(-3, 3) for _ in range(n)]
    ys = [random.uniform(-3, 3) for _ in range(n)]
    x, y, out = cuda.upload(xs), cuda.upload(ys), cuda.upload([0.0] * n)
    cuda.launch(function, (n + 255) // 256, 32 * answer["num_warps"], answer["shared_mem"],
                [x, y, out, ctypes.c_int32(n)], answer)
    got = cuda.download(out, n)
    return close_enough(got, [math.exp(a) + b for a, b in zip(xs, ys)])


def run_softmax_rows(cuda, function, answer):
    rows, n = 64, 1000
    xs = [random.uniform(-5, 5) for _ in range(rows * n)]
    x, out = cuda.upload(xs), cuda.upload([0.0] * (rows * n))
    cuda.launch(function, rows, 32 * answer["num_warps"], answer["shared_mem"], [x, out, ctypes.c_int32(n)], answer)
    got = cuda.download(out, rows * n)
    want = []
    for r in range(rows):
        row = xs[r * n:(r + 1) * n]
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        total = sum(exps)
        want += [e / total for e in exps]
    return close_enough(got, want, 1e-4)


def main():
    probe = subprocess.run([sys.executable, "-c", "import triton; print(triton.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        skip("triton is not importable: " + (probe.stderr.strip().splitlines() or ["?"])[-1])
    try:
        cuda = Cuda()
    except (OSError, RuntimeError, AttributeError) as e:
        skip(f"no usable CUDA GPU: {e}")
    print(f"triton {probe.stdout.strip()}, GPU sm_{cuda.capability}")

    worker = Worker()
    identity = worker.hello.get("compiler", {})
    print(f"worker compiler: {json.dumps(identity)}")
    check("hello names a compiler", identity.get("name") in ("flagtree", "triton"), worker.hello)

    for name in KERNELS:
        with open(os.path.join(DATA_DIR, name + ".ttir")) as f:
            ttir = f.read()
        started = time.time()
        answer, binary = worker.compile(ttir)
        if not check(f"{name}: compiled", answer.get("ok"), answer.get("error")):
            continue
        print(f"  {name}: {len(binary)} bytes in {time.time() - started:.2f}s, shared={answer['shared_mem']}, "
              f"params={[(p['type'], p['role']) for p in answer['params']]}")
        check(f"{name}: cubin is an ELF image", binary[:4] == b"\x7fELF", binary[:8])
        check(f"{name}: binary_format is cubin", answer["binary_format"] == "cubin")
        check(f"{name}: kernel name", answer["kernel_name"] == name, answer["kernel_name"])
        check(f"{name}: num_warps", answer["num_warps"] == OPTIONS["num_warps"], answer["num_warps"])
        params = answer["params"]
        expected = ttir_param_count(ttir) + 2
        check(f"{name}: {expected} params (TTIR's + 2 scratch pointers)", len(params) == expected, len(params))
        check(f"{name}: param count matches reference PTX", len(params) == ptx_param_count(name))
        check(f"{name}: scratch roles", [p["role"] for p in params[-2:]] == ["global_scratch", "profile_scratch"],
              params[-2:])
        if name == "mm":
            check("mm: shared memory > 0", answer["shared_mem"] > 0, answer["shared_mem"])
        try:
            function = cuda.load(binary, answer["kernel_name"])
            check(f"{name}: cuModuleLoadData + cuModuleGetFunction", True)
        except RuntimeError as e:
            check(f"{name}: cuModuleLoadData + cuModuleGetFunction", False, e)
            continue
        if cuda.capability != 90:
            print(f"  {name}: not launched (device is sm_{cuda.capability}, binary is sm_90)")
            continue
        runner = {"add_exp": run_add_exp, "softmax_rows": run_softmax_rows}.get(name)
        if runner is not None:
            try:
                check(f"{name}: launched with the reported params, results match", runner(cuda, function, answer))
            except RuntimeError as e:
                check(f"{name}: launched with the reported params, results match", False, e)

    try:
        answer, _ = worker.compile("module { this is not ttir }")
        check("bad TTIR answers an error", answer.get("ok") is False and answer.get("error"), answer)
    except (EOFError, ValueError, BrokenPipeError) as e:
        check("bad TTIR answers an error", False, f"the worker died instead: {e}")
        worker = Worker()
    answer, binary = worker.compile(open(os.path.join(DATA_DIR, "add_exp.ttir")).read())
    check("worker still compiles after an error", answer.get("ok") and binary[:4] == b"\x7fELF", answer.get("error"))
    check("worker exits cleanly on shutdown", worker.close() == 0)

    failed = [n for n, ok in results if not ok]
    print(f"\nSUMMARY: {len(results) - len(failed)} passed, {len(failed)} failed")
    for n in failed:
        print(f"  FAILED: {n}")
    print("RESULT: " + ("FAIL" if failed else "PASS"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
