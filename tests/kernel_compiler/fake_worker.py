"""A stand-in compile worker for the C++ tests: real framing, fake compiler.

It uses the real python/jax_flagtree/compile_protocol.py (found through
PYTHONPATH) so that the tests also prove the two sides of the framing agree.
The "binary" it returns is text naming its pid and the TTIR's SHA-256.

Behaviour is chosen by directive lines in the TTIR ("// FAKE: <action>"):
  crash         exit abruptly (status 3) after reading the request
  segfault      die by SIGSEGV
  sigkill       die by SIGKILL, as the OOM killer does
  hang          sleep forever
  sigkill-first <n> <file>  die by SIGKILL the first n times this kernel is
                compiled (by any worker), counted in file; then compile
  hang-first <n> <file>     likewise, hanging instead of dying
  sleep <s>     sleep s seconds before answering
  error <text>  answer ok=false with text
  garbage       write bytes that are not a frame
and at start by FAKE_WORKER_MODE: "no-compiler" (hello with an error),
"silent" (never says hello), "exit" (exits before hello).
FAKE_WORKER_LOG, when set, gets one line per compile: "<pid> <kernel name>".
FAKE_WORKER_STARTS, when set, gets one line per worker started: "<pid>".
FAKE_WORKER_HELLO_DELAY delays the hello by that many seconds (a slow
compiler import); FAKE_WORKER_FINGERPRINT is the compiler_fingerprint the
hello reports; FAKE_WORKER_COMPILER overrides the identity's name.
"""

import hashlib
import os
import re
import signal
import sys
import time

import compile_protocol as protocol

IDENTITY = {"name": "fake", "version": "1.0", "triton_version": "0.0", "detected_by": "fake_worker.py",
            "build_id": "fakebuild"}


def directives(ttir):
    return [line.split("FAKE:", 1)[1].strip() for line in ttir.splitlines() if "// FAKE:" in line]


def kernel_signature(ttir):
    match = re.search(r"tt\.func\s+(?:public\s+)?@(\w+)\((.*?)\)\s*(?:attributes|\{)", ttir, re.S)
    if match is None:
        raise ValueError("no tt.func in the TTIR")
    types = re.findall(r"%\w+:\s*([^,{)]+?)\s*(?:\{[^}]*\})?\s*(?:,|$)", match.group(2))
    return match.group(1), types


def to_param(ttir_type):
    pointer = ttir_type.startswith("!tt.ptr")
    if pointer:
        element = re.search(r"!tt\.ptr<(\w+)", ttir_type).group(1)
        return {"type": "*" + element, "role": "arg", "size": 8, "pointer": True}
    size = {"i64": 8, "f64": 8, "i16": 2, "i8": 1, "i1": 1}.get(ttir_type, 4)
    return {"type": ttir_type, "role": "arg", "size": size, "pointer": False}


def first_times(rest):
    """True for the first n calls naming this counter file (n, file in rest)."""
    count, path = rest.split(None, 1)
    seen = int(open(path).read()) if os.path.exists(path) else 0
    with open(path, "w") as f:
        f.write(str(seen + 1))
    return seen < int(count)


def compile_fake(header, ttir, out):
    for action in directives(ttir):
        verb, _, rest = action.partition(" ")
        if verb == "sigkill" or (verb == "sigkill-first" and first_times(rest)):
            os.kill(os.getpid(), signal.SIGKILL)
        if verb == "hang-first" and first_times(rest):
            while True:
                time.sleep(60)
        if verb == "crash":
            os._exit(3)
        if verb == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if verb == "hang":
            while True:
                time.sleep(60)
        if verb == "sleep":
            time.sleep(float(rest))
        if verb == "garbage":
            out.write(b"this is not a frame at all........")
            out.flush()
            return None, b""
        if verb == "error":
            return protocol.error_result(header["id"], rest, "ttgir"), b""
    name, types = kernel_signature(ttir)
    params = [to_param(t) for t in types]
    params += [{"type": "*i8", "role": role, "size": 8, "pointer": True}
               for role in ("global_scratch", "profile_scratch")]
    log = os.environ.get("FAKE_WORKER_LOG")
    if log:
        with open(log, "a") as f:
            f.write(f"{os.getpid()} {name}\n")
    options = header["options"]
    answer = {
        "type": "result", "id": header["id"], "ok": True, "kernel_name": name,
        "binary_format": "cubin" if header["target"]["backend"] == "cuda" else "hsaco",
        "shared_mem": 1024 * options["num_stages"], "num_warps": options["num_warps"],
        "params": params, "global_scratch_size": 0, "global_scratch_align": 1,
        "profile_scratch_size": 0, "profile_scratch_align": 1, "compiler": IDENTITY,
        "compile_seconds": 0.001,
        "stage_seconds": {"cubin": 0.0004, "ttir": 0.0001, "parse": 0.0001, "ttgir": 0.0002,
                          "llir": 0.0001, "ptx": 0.0001},
    }
    binary = f"FAKE pid={os.getpid()} ttir={hashlib.sha256(ttir.encode()).hexdigest()}".encode()
    return answer, binary


def main():
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    mode = os.environ.get("FAKE_WORKER_MODE", "")
    if mode == "exit":
        print("fake worker: exiting before hello as asked", file=sys.stderr)
        return 5
    if mode == "silent":
        while True:
            time.sleep(60)
    starts = os.environ.get("FAKE_WORKER_STARTS")
    if starts:
        with open(starts, "a") as f:
            f.write(f"{os.getpid()}\n")
    time.sleep(float(os.environ.get("FAKE_WORKER_HELLO_DELAY") or 0))
    identity = dict(IDENTITY, name=os.environ.get("FAKE_WORKER_COMPILER") or IDENTITY["name"])
    hello = {"type": "hello", "protocol": protocol.PROTOCOL_VERSION, "pid": os.getpid(),
             "compiler": identity}
    if os.environ.get("FAKE_WORKER_FINGERPRINT"):
        hello["compiler_fingerprint"] = os.environ["FAKE_WORKER_FINGERPRINT"]
    if mode == "no-compiler":
        hello["error"] = "ModuleNotFoundError: No module named 'triton'"
    protocol.write_frame(out, hello)
    stdin = os.fdopen(os.dup(0), "rb")
    while True:
        frame = protocol.read_frame(stdin)
        if frame is None:
            return 0
        header, payload = frame
        if header["type"] == "shutdown":
            return 0
        if mode == "no-compiler":
            protocol.write_frame(out, protocol.error_result(header["id"], "no compiler", "import"))
            continue
        print(f"fake worker {os.getpid()}: compiling request {header['id']}", file=sys.stderr)
        answer, binary = compile_fake(header, payload.decode(), out)
        if answer is not None:
            protocol.write_frame(out, answer, binary)


if __name__ == "__main__":
    sys.exit(main())
