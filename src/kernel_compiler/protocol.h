// The framing between the plugin and a compile worker; the Python side is
// python/jax_flagtree/compile_protocol.py, whose docstring is the full
// specification (messages and fields). Change both together.
//
// Frame (little-endian):
//   "JFTW" | u32 header_length | u64 payload_length | header JSON | payload
// Requests: compile {id, target, options[, ir_format]} + TTIR payload; shutdown.
// Answers:  hello {protocol, pid, compiler} once at start; result {id, ok, ...}
//           + binary payload, or {ok: false, error, stage}.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "kernel_compiler/compile_types.h"
#include "kernel_compiler/json.h"
#include "support/status.h"

namespace jft::kernel_compiler {

// 2: a compile request may carry "ir_format": "mlir_bytecode" (the payload
// is an MLIR bytecode module, e.g. a Pallas kernel's); without it the
// payload is TTIR text, as in 1.
inline constexpr int kProtocolVersion = 2;
inline constexpr std::string_view kMlirBytecodeMagic("ML\xEFR", 4);
inline constexpr std::string_view kFrameMagic = "JFTW";
inline constexpr size_t kFramePrefixBytes = 16;
inline constexpr uint64_t kMaxHeaderBytes = uint64_t{16} << 20;
inline constexpr uint64_t kMaxPayloadBytes = uint64_t{1} << 30;

struct Frame {
  Json header;
  std::string payload;
};

struct FramePrefix {
  uint64_t header_bytes = 0;
  uint64_t payload_bytes = 0;
};

std::string encodeFrame(const Json& header, std::string_view payload = {});
// Checks the magic and the size limits of the first kFramePrefixBytes bytes.
StatusOr<FramePrefix> decodeFramePrefix(std::string_view prefix);
// Decodes one complete frame held in memory (no trailing bytes allowed).
StatusOr<Frame> decodeFrame(std::string_view bytes);

Json compileRequestHeader(uint64_t id, const CompileRequest& request);
Json shutdownRequestHeader();

struct Hello {
  int protocol = 0;
  int64_t pid = 0;
  CompilerIdentity compiler;
  std::string error;  // set when the worker could not import a compiler
  // The installed compiler build (python/jax_flagtree/compiler_fingerprint.py),
  // under which its identity is remembered; empty when the worker does not say.
  std::string compiler_fingerprint;
};
StatusOr<Hello> parseHello(const Frame& frame);

// The kernel from a result frame. A result with ok=false becomes an INTERNAL
// error carrying the worker's message and failing stage.
StatusOr<CompiledKernel> parseResult(const Frame& frame, uint64_t expected_id);

}  // namespace jft::kernel_compiler
