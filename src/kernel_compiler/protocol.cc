#include "kernel_compiler/protocol.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "kernel_compiler/compiled_kernel_json.h"
#include "kernel_compiler/little_endian.h"

namespace jft::kernel_compiler {
namespace {

StatusOr<std::string> requireType(const Frame& frame) {
  if (!frame.header.isObject()) return invalidArgument("frame header is not an object");
  return requireString(frame.header, "type");
}

// The worker's per-stage times (a JSON object, so without order) in the
// order the pipeline runs them; stages it names that are not listed here
// follow, by name. Entries that are not numbers are left out.
std::vector<std::pair<std::string, double>> stagesInPipelineOrder(
    const Json::Object& stages) {
  static constexpr std::array<std::string_view, 8> kOrder = {
      "parse", "ttir", "ttgir", "llir", "ptx", "cubin", "amdgcn", "hsaco"};
  std::vector<std::pair<std::string, double>> out;
  for (std::string_view name : kOrder)
    if (auto it = stages.find(name); it != stages.end() && it->second.isNumber())
      out.emplace_back(std::string(name), it->second.asNumber());
  for (const auto& [name, seconds] : stages)
    if (seconds.isNumber() &&
        std::find(kOrder.begin(), kOrder.end(), name) == kOrder.end())
      out.emplace_back(name, seconds.asNumber());
  return out;
}

}  // namespace

std::string encodeFrame(const Json& header, std::string_view payload) {
  std::string header_text = header.dump();
  std::string out;
  out.reserve(kFramePrefixBytes + header_text.size() + payload.size());
  out.append(kFrameMagic);
  appendLittleEndian(out, header_text.size(), 4);
  appendLittleEndian(out, payload.size(), 8);
  out += header_text;
  out.append(payload);
  return out;
}

StatusOr<FramePrefix> decodeFramePrefix(std::string_view prefix) {
  if (prefix.size() < kFramePrefixBytes) return invalidArgument("truncated frame prefix");
  if (prefix.substr(0, 4) != kFrameMagic) {
    return invalidArgument(
        "bad frame magic (the worker wrote something else to stdout?)");
  }
  FramePrefix result;
  result.header_bytes = readLittleEndian(prefix, 4, 4);
  result.payload_bytes = readLittleEndian(prefix, 8, 8);
  if (result.header_bytes > kMaxHeaderBytes || result.payload_bytes > kMaxPayloadBytes) {
    return invalidArgument("frame exceeds the size limits (header " +
                           std::to_string(result.header_bytes) + ", payload " +
                           std::to_string(result.payload_bytes) + ")");
  }
  return result;
}

StatusOr<Frame> decodeFrame(std::string_view bytes) {
  JFT_ASSIGN_OR_RETURN(FramePrefix prefix, decodeFramePrefix(bytes));
  uint64_t total = kFramePrefixBytes + prefix.header_bytes + prefix.payload_bytes;
  if (bytes.size() != total) {
    return invalidArgument("frame holds " + std::to_string(bytes.size()) +
                           " bytes, expected " + std::to_string(total));
  }
  Frame frame;
  JFT_ASSIGN_OR_RETURN(frame.header,
                       Json::parse(bytes.substr(kFramePrefixBytes, prefix.header_bytes)));
  frame.payload = std::string(bytes.substr(kFramePrefixBytes + prefix.header_bytes));
  return frame;
}

Json compileRequestHeader(uint64_t id, const CompileRequest& request) {
  Json target;
  target.set("backend", request.target.backend);
  target.set("arch", request.target.arch);
  target.set("warp_size", request.target.warp_size);
  Json options;
  options.set("num_warps", request.options.num_warps);
  options.set("num_stages", request.options.num_stages);
  options.set("num_ctas", request.options.num_ctas);
  Json header;
  header.set("type", "compile");
  header.set("id", id);
  header.set("target", std::move(target));
  header.set("options", std::move(options));
  // A module given as MLIR bytecode (a Pallas kernel's): the worker reads it
  // with Triton's parser instead of decoding text (protocol 2).
  if (request.ttir.starts_with(kMlirBytecodeMagic))
    header.set("ir_format", "mlir_bytecode");
  return header;
}

Json shutdownRequestHeader() {
  Json header;
  header.set("type", "shutdown");
  return header;
}

StatusOr<Hello> parseHello(const Frame& frame) {
  JFT_ASSIGN_OR_RETURN(std::string type, requireType(frame));
  if (type != "hello")
    return invalidArgument("expected a hello message, got '" + type + "'");
  Hello hello;
  JFT_ASSIGN_OR_RETURN(int64_t protocol, requireInt(frame.header, "protocol"));
  hello.protocol = static_cast<int>(protocol);
  if (hello.protocol != kProtocolVersion) {
    return failedPrecondition("worker speaks protocol " + std::to_string(protocol) +
                              ", the plugin speaks " + std::to_string(kProtocolVersion));
  }
  JFT_ASSIGN_OR_RETURN(hello.pid, requireInt(frame.header, "pid"));
  const Json* compiler = frame.header.find("compiler");
  if (compiler == nullptr) return invalidArgument("hello without a compiler identity");
  JFT_ASSIGN_OR_RETURN(hello.compiler, compilerIdentityFromJson(*compiler));
  if (const Json* error = frame.header.find("error");
      error != nullptr && error->isString()) {
    hello.error = error->asString();
  }
  if (const Json* fingerprint = frame.header.find("compiler_fingerprint");
      fingerprint != nullptr && fingerprint->isString()) {
    hello.compiler_fingerprint = fingerprint->asString();
  }
  return hello;
}

StatusOr<CompiledKernel> parseResult(const Frame& frame, uint64_t expected_id) {
  JFT_ASSIGN_OR_RETURN(std::string type, requireType(frame));
  if (type != "result")
    return invalidArgument("expected a result message, got '" + type + "'");
  JFT_ASSIGN_OR_RETURN(int64_t id, requireInt(frame.header, "id"));
  if (static_cast<uint64_t>(id) != expected_id) {
    return invalidArgument("result for request " + std::to_string(id) +
                           " while waiting for " + std::to_string(expected_id));
  }
  JFT_ASSIGN_OR_RETURN(bool ok, requireBool(frame.header, "ok"));
  if (!ok) {
    auto error = requireString(frame.header, "error");
    auto stage = requireString(frame.header, "stage");
    return internalError("kernel compile failed at stage '" +
                         (stage.isOk() ? *stage : std::string("?")) +
                         "': " + (error.isOk() ? *error : std::string("(no message)")));
  }
  JFT_ASSIGN_OR_RETURN(CompiledKernel kernel, kernelMetadataFromJson(frame.header));
  if (frame.payload.empty()) return invalidArgument("successful result without a binary");
  kernel.binary = frame.payload;
  if (const Json* seconds = frame.header.find("compile_seconds");
      seconds != nullptr && seconds->isNumber()) {
    kernel.compile_seconds = seconds->asNumber();
  }
  if (const Json* stages = frame.header.find("stage_seconds");
      stages != nullptr && stages->isObject())
    kernel.stage_seconds = stagesInPipelineOrder(stages->asObject());
  return kernel;
}

}  // namespace jft::kernel_compiler
