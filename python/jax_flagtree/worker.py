"""A long-lived compile worker: TTIR text in, a loadable GPU binary out.

Started by the plugin (src/kernel_compiler/worker_process.cc) as
`python -m jax_flagtree.worker` or `python path/to/worker.py`; it speaks the
framing of compile_protocol.py on stdin/stdout until stdin closes or a shutdown
request arrives. A failing compile answers with an error and the worker goes on;
only a broken stream ends it (the host then starts a fresh worker).

The pipeline is Triton's own, every stage from make_ttir on. We do not call
triton.compile() on a .ttir path because that skips the stage named after the
source's extension (the TTIR passes: inlining, combine, canonicalize, ...), which
our generated TTIR relies on. Instead we parse the text with IRSource, ask the
backend for its stage table and run it from "ttir" to the binary ourselves.

Only `triton` is imported before the first request (to report the compiler's
identity in the hello message); its compiler internals load on first use.
"""

import hashlib
import os
import re
import signal
import sys
import tempfile
import threading
import time

if __package__:
    from . import compile_protocol as protocol
    from . import compiler_fingerprint
else:  # run as a plain script: the protocol module sits next to this file
    import compile_protocol as protocol
    import compiler_fingerprint

# Files that only FlagTree's copy of the `triton` package ships; used when the
# installed distribution's name does not tell (an editable or renamed build).
_FLAGTREE_MARKER_FILES = ("compiler/hint_manager.py", "compiler/flagtree_debug.py")

_PARAM_ROLES_AFTER_ARGS = ("global_scratch", "profile_scratch")


# ---------------------------------------------------------------- identity


def _distributions_providing(top_level):
    try:
        import importlib.metadata as metadata
        return list(metadata.packages_distributions().get(top_level, []))
    except Exception:  # very old Python or a broken metadata store: no answer
        return []


def _distribution_version(name):
    try:
        import importlib.metadata as metadata
        return metadata.version(name)
    except Exception:
        return None


def detect_compiler():
    """Says which compiler answers for `import triton`: FlagTree or upstream Triton.

    Checked in order:
      1. the installed distribution that provides the top-level `triton` package
         (importlib.metadata.packages_distributions): a name containing
         "flagtree" means FlagTree, and its version is that distribution's;
      2. an installed `flagtree` distribution (FlagTree wheels published under
         another name still register it);
      3. FlagTree-only files inside the imported triton package
         (compiler/hint_manager.py, compiler/flagtree_debug.py): FlagTree whose
         version is then triton.__version__.
    Anything else is upstream Triton at triton.__version__.
    """
    import triton

    triton_version = str(getattr(triton, "__version__", "unknown"))
    for dist in _distributions_providing("triton"):
        if "flagtree" in dist.lower():
            version = _distribution_version(dist) or triton_version
            return _identity("flagtree", version, triton_version, f"distribution '{dist}' provides triton")
    flagtree_version = _distribution_version("flagtree")
    if flagtree_version:
        return _identity("flagtree", flagtree_version, triton_version, "distribution 'flagtree' is installed")
    package_dir = os.path.dirname(os.path.abspath(triton.__file__))
    for marker in _FLAGTREE_MARKER_FILES:
        if os.path.exists(os.path.join(package_dir, marker)):
            return _identity("flagtree", triton_version, triton_version, f"triton/{marker} present")
    return _identity("triton", triton_version, triton_version, "no FlagTree marker found")


def _identity(name, version, triton_version, detected_by):
    return {"name": name, "version": version, "triton_version": triton_version, "detected_by": detected_by,
            "build_id": _build_fingerprint()}


# Environment knobs that only move files around; the rest (TRITON_F32_DEFAULT,
# TRITON_DISABLE_LINE_INFO, ...) may change the generated code.
_ENV_NOT_AFFECTING_CODE = ("CACHE", "DUMP", "HOME", "PRINT", "DEBUG_LOG")


def _build_fingerprint():
    """Tells two installs of one version apart: a rebuilt FlagTree keeps its version string.

    Hashes the size and modification time of the compiler's native library and
    the bundled ptxas (cheap, unlike hashing their contents), plus the
    TRITON_*/FLAGTREE_* environment knobs that can change the generated code.
    """
    import triton
    package_dir = os.path.dirname(os.path.abspath(triton.__file__))
    parts = []
    candidates = [os.path.join(package_dir, "_C", name) for name in sorted(os.listdir(os.path.join(package_dir, "_C")))
                  if name.startswith("libtriton")] if os.path.isdir(os.path.join(package_dir, "_C")) else []
    candidates.append(os.path.join(package_dir, "backends", "nvidia", "bin", "ptxas"))
    for path in candidates:
        try:
            info = os.stat(path)
        except OSError:
            continue
        parts.append(f"{os.path.relpath(path, package_dir)}:{info.st_size}:{info.st_mtime_ns}")
    for key in sorted(os.environ):
        if key.startswith(("TRITON_", "FLAGTREE_")) and not any(word in key for word in _ENV_NOT_AFFECTING_CODE):
            parts.append(f"{key}={os.environ[key]}")
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------- pipeline


class StageError(Exception):
    """A compile failure with the stage that raised it."""

    def __init__(self, stage, message):
        super().__init__(message)
        self.stage = stage


def _accepts(function, count):
    import inspect
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return True
    return len(parameters) == count


def _make_target(target):
    from triton.backends.compiler import GPUTarget
    backend = str(target["backend"])
    arch = str(target["arch"])
    if backend == "cuda":
        arch = int(arch.removeprefix("sm_").removeprefix("sm"))
    return GPUTarget(backend, arch, int(target["warp_size"]))


def _stage_table(backend, options, source):
    stages = {}
    # Triton 3.3+ passes the source language; older releases do not take it.
    if _accepts(backend.add_stages, 3):
        language = getattr(source, "language", None)
        if language is None:
            from triton.backends.compiler import Language
            language = Language.TRITON
        backend.add_stages(stages, options, language)
    else:
        backend.add_stages(stages, options)
    if "ttir" not in stages:
        raise StageError("setup", f"backend stages {list(stages)} have no 'ttir' stage")
    return stages


def _initial_metadata(compiler_module, target, options, ttir_text):
    env_vars = {}
    get_env_vars = getattr(compiler_module, "get_cache_invalidating_env_vars", None)
    if get_env_vars is not None:
        env_vars = get_env_vars()
    # The same keys triton.compile() seeds before its stage loop: stages read
    # and extend this dictionary.
    import triton
    metadata = {
        "hash": hashlib.sha256(ttir_text.encode("utf-8")).hexdigest(),
        "target": target,
        **options.__dict__,
        **env_vars,
    }
    metadata["triton_version"] = triton.__version__
    return metadata


# XLA's GPU backend keeps float32 denormals (--xla_gpu_ftz defaults to false),
# while Triton links libdevice in its flush-to-zero flavour unless told not to:
# fmod(x, denormal) would read the divisor as 0 and return NaN, pow and exp of
# tiny values would lose them. Backends without the option drop it.
XLA_NUMERICS = {"enable_reflect_ftz": False}


def run_pipeline(ttir_text, target_fields, option_fields, stage_seconds=None):
    """Runs every stage from make_ttir to the binary; returns (binary, artifacts, metadata, signature).

    When `stage_seconds` is a dict, each stage's wall time lands in it by name
    ("parse" for reading the TTIR text)."""
    from triton._C.libtriton import ir
    from triton.compiler import compiler as compiler_module

    clock = time.monotonic()
    target = _make_target(target_fields)
    backend = compiler_module.make_backend(target)
    context = ir.context()
    with tempfile.TemporaryDirectory(prefix="jft-worker-") as scratch:
        path = os.path.join(scratch, "kernel.ttir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(ttir_text)
        try:
            source = compiler_module.IRSource(path, context, backend)
        except Exception as e:
            raise StageError("parse", f"{type(e).__name__}: {e}") from e

    requested = {k: int(v) for k, v in option_fields.items() if k in ("num_warps", "num_stages", "num_ctas")}
    options = backend.parse_options(dict(requested, **source.parse_options(), **XLA_NUMERICS))
    metadata = _initial_metadata(compiler_module, target, options, ttir_text)
    stages = _stage_table(backend, options, source)
    if _accepts(source.make_ir, 5):
        module = source.make_ir(target, options, None, None, context)
    else:
        module = source.make_ir(options, None, None, context)
    if stage_seconds is not None:
        stage_seconds["parse"] = time.monotonic() - clock

    artifacts = {}
    names = list(stages)
    for name in names[names.index("ttir"):]:
        clock = time.monotonic()
        try:
            result = stages[name](module, metadata)
        except Exception as e:
            raise StageError(name, f"{type(e).__name__}: {e}") from e
        if stage_seconds is not None:
            stage_seconds[name] = time.monotonic() - clock
        # FlagTree backends may return StageResult(value, artifact): the value
        # feeds the next stage, the artifact is what gets kept.
        if hasattr(result, "value") and hasattr(result, "artifact"):
            module, artifact = result.value, result.artifact
        else:
            module, artifact = result, result
        if isinstance(artifact, (str, bytes, bytearray)):
            artifacts[name] = artifact
    binary_ext = backend.binary_ext
    if binary_ext not in artifacts:
        raise StageError(binary_ext, f"pipeline produced no '{binary_ext}' (stages: {names})")
    signature = [str(t) for _, t in sorted(source.signature.items())]
    return bytes(artifacts[binary_ext]), binary_ext, artifacts, metadata, signature


# ---------------------------------------------------------------- bytecode


def _triton_bytecode_to_text(module_bytes, path):
    """Triton's own parser on the bytecode; returns the module's text."""
    from triton._C.libtriton import ir
    context = ir.context()
    ir.load_dialects(context)  # tt, ttg, arith, scf, math, ...: all TTIR needs
    module = ir.parse_mlir_module(path, context)
    return str(module)


def _jaxlib_bytecode_to_text(module_bytes):
    """jaxlib's bundled Triton dialects read what jaxlib wrote; returns generic text."""
    # Only when Triton's parser refused the bytes. The context is the one
    # Pallas lowers in: JAX's dialects, MLIR's upstream ones (arith, scf,
    # math, ...) and jaxlib's Triton dialect.
    from jax._src.interpreters import mlir as jax_mlir
    from jax._src.lib import triton as jax_triton
    from jax._src.lib.mlir import ir as jax_ir
    context = jax_mlir.JaxIrContext()
    context.append_dialect_registry(jax_mlir.upstream_dialects)
    jax_triton.dialect.register_dialect(context)
    context.load_all_available_dialects()
    with context:
        module = jax_ir.Module.parse(module_bytes)
        return module.operation.get_asm(print_generic_op_form=True)


def bytecode_to_text(module_bytes, triton_reader=None, jaxlib_reader=None):
    """The TTIR text of an MLIR bytecode module (a Pallas kernel's).

    MLIR bytecode keeps each op's attributes as its producer defined them:
    Triton reads what an older or newer Triton wrote as long as the ops did
    not change. When its parser refuses (the dialects moved on), jaxlib's
    bundled Triton, which wrote the bytes, prints them as text in MLIR's
    generic form, which Triton's parser then reads op by op.
    """
    if not bytes(module_bytes).startswith(protocol.MLIR_BYTECODE_MAGIC):
        raise StageError("parse", "the payload is not MLIR bytecode (no 'ML\\xefR' magic)")
    triton_reader = triton_reader or _triton_bytecode_to_text
    jaxlib_reader = jaxlib_reader or _jaxlib_bytecode_to_text
    with tempfile.TemporaryDirectory(prefix="jft-worker-") as scratch:
        path = os.path.join(scratch, "kernel.mlirbc")
        with open(path, "wb") as f:
            f.write(module_bytes)
        try:
            return triton_reader(module_bytes, path)
        except Exception as first:
            try:
                return jaxlib_reader(module_bytes)
            except Exception as second:
                raise StageError(
                    "parse",
                    f"Triton could not read the MLIR bytecode module ({type(first).__name__}: {first}), "
                    f"nor could jaxlib's bundled Triton ({type(second).__name__}: {second})") from second


# ---------------------------------------------------------------- parameters

_PTX_ENTRY = re.compile(r"\.visible\s+\.entry\s+(\w+)\s*\(([^)]*)\)", re.S)
_PTX_PARAM = re.compile(r"\.param\s+(?P<decl>[^,]*?)\s*(?P<name>\w+)(?:\[(?P<count>\d+)\])?\s*$")
_PTX_TYPE_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


def ptx_kernel_params(ptx, kernel_name):
    """Returns [(size_bytes, is_pointer)] for the .entry named kernel_name, in order."""
    for match in _PTX_ENTRY.finditer(ptx):
        if match.group(1) != kernel_name:
            continue
        params = []
        for text in match.group(2).split(","):
            text = text.strip()
            if not text:
                continue
            param = _PTX_PARAM.match(text)
            if param is None:
                raise ValueError(f"unrecognised PTX parameter '{text}'")
            decl = param.group("decl")
            bits = re.search(r"\.[bsuf](8|16|32|64)\b", decl)
            size = _PTX_TYPE_BYTES[bits.group(1)] if bits else 0
            if param.group("count"):
                size *= int(param.group("count"))
            params.append((size, ".ptr" in decl))
        return params
    raise ValueError(f"no .entry named '{kernel_name}' in the PTX")


def amdgcn_kernel_params(amdgcn):
    """Returns [(size_bytes, is_pointer)] of the explicit kernel arguments in the HSA metadata."""
    params = []
    section = amdgcn.split(".args:", 1)
    if len(section) < 2:
        raise ValueError("no .args in the AMDGCN metadata")
    entries = re.split(r"\n\s*-\s+", section[1].split(".group_segment_fixed_size", 1)[0])
    for entry in entries:
        kind = re.search(r"\.value_kind:\s*(\w+)", entry)
        size = re.search(r"\.size:\s*(\d+)", entry)
        if kind is None or size is None or kind.group(1).startswith("hidden_"):
            continue
        params.append((int(size.group(1)), kind.group(1) == "global_buffer"))
    return params


def describe_params(ttir_signature, binary_params):
    """Names every launch parameter: the TTIR's own, then what Triton appended."""
    described = []
    for index, (size, is_pointer) in enumerate(binary_params):
        if index < len(ttir_signature):
            ttir_type = ttir_signature[index]
            described.append({"type": ttir_type, "role": "arg", "size": size,
                              "pointer": is_pointer or ttir_type.startswith("*")})
            continue
        extra = index - len(ttir_signature)
        role = _PARAM_ROLES_AFTER_ARGS[extra] if extra < len(_PARAM_ROLES_AFTER_ARGS) else "hidden"
        described.append({"type": "*i8" if is_pointer else "i8", "role": role, "size": size,
                          "pointer": is_pointer})
    return described


def _binary_params(binary_ext, artifacts, kernel_name, ttir_signature):
    if binary_ext == "cubin" and "ptx" in artifacts:
        return ptx_kernel_params(artifacts["ptx"], kernel_name)
    if binary_ext == "hsaco" and "amdgcn" in artifacts:
        return amdgcn_kernel_params(artifacts["amdgcn"])
    raise ValueError(f"cannot read the parameter list of a '{binary_ext}' binary")


# ---------------------------------------------------------------- requests


def compile_request(header, ttir_text, identity):
    """Compiles one request; returns (result header, binary payload)."""
    started = time.monotonic()
    stage_seconds = {}
    binary, binary_ext, artifacts, metadata, signature = run_pipeline(
        ttir_text, header["target"], header.get("options", {}), stage_seconds)
    kernel_name = metadata["name"]
    try:
        params = describe_params(signature, _binary_params(binary_ext, artifacts, kernel_name, signature))
    except ValueError as e:
        raise StageError("params", str(e)) from e
    answer = {
        "type": "result",
        "id": header.get("id"),
        "ok": True,
        "kernel_name": kernel_name,
        "binary_format": binary_ext,
        "shared_mem": int(metadata.get("shared") or 0),
        "num_warps": int(metadata["num_warps"]),
        "params": params,
        "global_scratch_size": int(metadata.get("global_scratch_size") or 0),
        "global_scratch_align": int(metadata.get("global_scratch_align") or 1),
        "profile_scratch_size": int(metadata.get("profile_scratch_size") or 0),
        "profile_scratch_align": int(metadata.get("profile_scratch_align") or 1),
        "compiler": identity,
        "compile_seconds": time.monotonic() - started,
        "stage_seconds": stage_seconds,
    }
    return answer, binary


class NativeStderrCapture:
    """Tees what the compiler writes to file descriptors 1 and 2 during one request.

    MLIR and LLVM report the reason for a failed pass as diagnostics on fd 2,
    while the Python exception only says that the pass manager failed; the
    tail of that output goes into the error answer. A thread forwards every
    byte to the real stderr as it arrives, so the host still sees it (in its
    stderr tail) if the compiler crashes the worker mid-request.
    """

    _TAIL_BYTES = 8192

    def __init__(self):
        self.text = ""
        self._tail = b""

    def __enter__(self):
        sys.stdout.flush()
        sys.stderr.flush()
        self._saved = (os.dup(1), os.dup(2))
        read_end, write_end = os.pipe()
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        os.close(write_end)
        self._pump = threading.Thread(target=self._forward, args=(read_end,), daemon=True)
        self._pump.start()
        return self

    def _forward(self, read_end):
        while True:
            data = os.read(read_end, 65536)
            if not data:
                break
            os.write(self._saved[1], data)
            self._tail = (self._tail + data)[-self._TAIL_BYTES:]
        os.close(read_end)

    def __exit__(self, *exc):
        sys.stdout.flush()
        sys.stderr.flush()
        # Restoring 1 and 2 closes the pipe's last write ends: the pump sees EOF.
        os.dup2(self._saved[0], 1)
        os.dup2(self._saved[1], 2)
        self._pump.join(timeout=10)  # a stray child may hold the pipe open
        for fd in self._saved:
            os.close(fd)
        self.text = self._tail.decode("utf-8", errors="replace").strip()
        return False


def _with_diagnostics(message, capture):
    return f"{message}\ncompiler output:\n{capture.text}" if capture.text else message


def handle(header, payload, identity, compile_fn):
    """Answers one request frame; returns (header, payload, keep_running)."""
    kind = header.get("type")
    request_id = header.get("id")
    if kind == "shutdown":
        return None, b"", False
    if kind != "compile":
        return protocol.error_result(request_id, f"unknown request type {kind!r}", "request"), b"", True
    if identity.get("name") == "none":
        message = f"no compiler available: {identity.get('error', 'triton is not importable')}"
        return protocol.error_result(request_id, message, "import"), b"", True
    capture = NativeStderrCapture()
    try:
        ir_format = header.get("ir_format", "ttir")
        if ir_format not in protocol.IR_FORMATS:
            raise StageError("request", f"unknown ir_format {ir_format!r} (known: {', '.join(protocol.IR_FORMATS)})")
        if "target" not in header:
            raise StageError("request", "compile request has no target")
        with capture:
            if ir_format == "mlir_bytecode":
                ttir_text = bytecode_to_text(payload)
            else:
                ttir_text = payload.decode("utf-8")
            answer, binary = compile_fn(header, ttir_text, identity)
        return answer, binary, True
    except StageError as e:
        return protocol.error_result(request_id, _with_diagnostics(str(e), capture), e.stage), b"", True
    except Exception as e:  # the compiler's own exceptions: report, keep serving
        message = _with_diagnostics(f"{type(e).__name__}: {e}", capture)
        return protocol.error_result(request_id, message, "compile"), b"", True


def serve(in_stream, out_stream, identity, compile_fn=compile_request, fingerprint=None):
    """The request loop; returns the process exit status."""
    hello = {"type": "hello", "protocol": protocol.PROTOCOL_VERSION, "pid": os.getpid(),
             "compiler": {k: v for k, v in identity.items() if k != "error"}}
    if "error" in identity:
        hello["error"] = identity["error"]
    elif fingerprint:
        hello["compiler_fingerprint"] = fingerprint
    protocol.write_frame(out_stream, hello)
    while True:
        try:
            frame = protocol.read_frame(in_stream)
        except protocol.ProtocolError as e:
            print(f"jax_flagtree.worker: {e}; exiting", file=sys.stderr)
            return 2
        if frame is None:
            return 0
        answer, binary, keep_running = handle(frame[0], frame[1], identity, compile_fn)
        if answer is not None:
            protocol.write_frame(out_stream, answer, binary)
        if not keep_running:
            return 0


def _safe_identity():
    try:
        return detect_compiler()
    except Exception as e:  # ImportError and anything a broken install raises
        return {"name": "none", "version": "", "triton_version": "", "detected_by": "import failed",
                "build_id": "", "error": f"{type(e).__name__}: {e}"}


def main():
    # The host owns our lifetime; a Ctrl-C meant for the user's program must not
    # kill a compile half way.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Keep the real stdout for frames and point fd 1 at stderr, so that prints
    # from the compiler (Python or C++) can never corrupt the stream.
    out_stream = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    in_stream = os.fdopen(os.dup(0), "rb")
    return serve(in_stream, out_stream, _safe_identity(), fingerprint=_safe_fingerprint())


def _safe_fingerprint():
    """The installed compiler's fingerprint (compiler_fingerprint.py), None when it cannot be read."""
    try:
        return compiler_fingerprint.fingerprint()
    except Exception:  # an unreadable install: the identity is then never remembered
        return None


if __name__ == "__main__":
    sys.exit(main())
