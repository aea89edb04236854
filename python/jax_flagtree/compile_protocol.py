"""The framing spoken between the plugin (C++) and a compile worker (Python).

The C++ side of the same contract is src/kernel_compiler/protocol.h; change both together
and bump PROTOCOL_VERSION.

Transport: the worker's stdin (requests) and stdout (answers). Anything else the
worker or the compiler prints must go to stderr, never stdout: worker.py moves
file descriptor 1 to stderr before it imports the compiler for that reason.

Frame (all integers little-endian):

    offset  size  field
    0       4     magic b"JFTW"
    4       4     header_length   (u32, at most MAX_HEADER_BYTES)
    8       8     payload_length  (u64, at most MAX_PAYLOAD_BYTES)
    16      ...   header: a UTF-8 JSON object, header_length bytes
    ...     ...   payload: payload_length raw bytes

Messages (the header's "type" field):

  hello     worker -> host, once, before any request. Fields: protocol (int),
            pid (int), compiler {name: "flagtree" | "triton" | "none", version,
            triton_version, detected_by, build_id (a short hash telling two
            builds of one version apart)}, and error (string) when the
            compiler could not be imported; optionally compiler_fingerprint
            (compiler_fingerprint.py: the installed build, under which the
            host remembers the identity). No payload.
  compile   host -> worker. Fields: id (int, echoed back), target {backend:
            "cuda" | "hip", arch: string ("90", "gfx942"), warp_size (int)},
            options {num_warps, num_stages, num_ctas}, and since protocol 2
            optionally ir_format: "ttir" (the default) or "mlir_bytecode".
            Payload: the TTIR text, or for "mlir_bytecode" a module in MLIR
            bytecode (a Pallas kernel's, serialized by jaxlib's bundled
            Triton), which the worker reads with Triton's parser.
  result    worker -> host, one per compile. Fields: id, ok (bool). When ok:
            kernel_name, binary_format ("cubin" | "hsaco"), shared_mem,
            num_warps, params (list of {type, role, size, pointer}; see below),
            global_scratch_size, global_scratch_align, profile_scratch_size,
            profile_scratch_align, compiler (as in hello), compile_seconds.
            Payload: the binary. When not ok: error (string), stage (the
            pipeline stage that failed, or "request"). No payload.
  shutdown  host -> worker. The worker exits with status 0.

A parameter of the compiled kernel, in launch order: type is the TTIR type
("*fp32", "i32", ...) for a TTIR argument or "*i8" for the pointers Triton
appends; role is "arg", "global_scratch", "profile_scratch" or "hidden"; size
is the byte size of the launch argument; pointer tells a device pointer apart.
"""

import json
import struct

PROTOCOL_VERSION = 2
MLIR_BYTECODE_MAGIC = b"ML\xefR"
IR_FORMATS = ("ttir", "mlir_bytecode")
MAGIC = b"JFTW"
PREFIX = struct.Struct("<4sIQ")
MAX_HEADER_BYTES = 16 << 20
MAX_PAYLOAD_BYTES = 1 << 30


class ProtocolError(Exception):
    """The byte stream is not a well-formed frame; the connection is unusable."""


def encode_frame(header, payload=b""):
    header_bytes = json.dumps(header, sort_keys=True).encode("utf-8")
    if len(header_bytes) > MAX_HEADER_BYTES:
        raise ProtocolError(f"header of {len(header_bytes)} bytes exceeds the limit")
    if len(payload) > MAX_PAYLOAD_BYTES:
        raise ProtocolError(f"payload of {len(payload)} bytes exceeds the limit")
    return PREFIX.pack(MAGIC, len(header_bytes), len(payload)) + header_bytes + bytes(payload)


def _read_exactly(stream, count, what):
    chunks = []
    remaining = count
    while remaining > 0:
        chunk = stream.read(remaining)
        if not chunk:
            raise ProtocolError(f"stream ended inside the {what} ({count - remaining} of {count} bytes)")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(stream):
    """Reads one frame; returns (header dict, payload bytes), or None at a clean end of stream."""
    prefix = stream.read(PREFIX.size)
    if not prefix:
        return None
    if len(prefix) < PREFIX.size:
        prefix += _read_exactly(stream, PREFIX.size - len(prefix), "frame prefix")
    magic, header_length, payload_length = PREFIX.unpack(prefix)
    if magic != MAGIC:
        raise ProtocolError(f"bad frame magic {magic!r}")
    if header_length > MAX_HEADER_BYTES or payload_length > MAX_PAYLOAD_BYTES:
        raise ProtocolError(f"frame too large (header {header_length}, payload {payload_length})")
    header_bytes = _read_exactly(stream, header_length, "header")
    payload = _read_exactly(stream, payload_length, "payload")
    try:
        header = json.loads(header_bytes.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ProtocolError(f"header is not UTF-8 JSON: {e}") from e
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    return header, payload


def write_frame(stream, header, payload=b""):
    stream.write(encode_frame(header, payload))
    stream.flush()


def error_result(request_id, message, stage):
    return {"type": "result", "id": request_id, "ok": False, "error": message, "stage": stage}
