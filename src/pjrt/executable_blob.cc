// Serialized executables: the envelope and ExecutableInfo's fields.
#include "pjrt/executable_blob.h"

#include <cstring>

#include "pjrt/shape.h"
#include "runtime/program_codec.h"
#include "support/byte_stream.h"

namespace jft::pjrt {
namespace {

constexpr std::string_view kMagic("JFTEXEC\0", 8);
constexpr const char* kRecompile = "; the program must be compiled again";

void encodeSpec(ByteWriter& out, const ArraySpec& spec) {
  out.i64(static_cast<int64_t>(spec.type));
  out.ints(spec.dims);
  out.u64(spec.bytes);
  out.bytes(spec.memory_kind);
  out.ints(spec.minor_to_major);
}

StatusOr<ArraySpec> decodeSpec(ByteReader& in) {
  ArraySpec spec;
  JFT_ASSIGN_OR_RETURN(int type, in.i32("array type"));
  if (type < 0 || type > PJRT_Buffer_Type_F6E3M2FN)
    return invalidArgument("array type " + std::to_string(type) + " is not a PJRT type");
  spec.type = static_cast<PJRT_Buffer_Type>(type);
  JFT_ASSIGN_OR_RETURN(spec.dims, in.i64s("array rank", "array dim"));
  JFT_ASSIGN_OR_RETURN(spec.bytes, in.u64("array bytes"));
  JFT_ASSIGN_OR_RETURN(spec.memory_kind, in.bytes("array memory kind"));
  if (spec.memory_kind != "device" && spec.memory_kind != "pinned_host")
    return invalidArgument("array memory kind '" + spec.memory_kind +
                           "' is not one we keep");
  JFT_ASSIGN_OR_RETURN(spec.minor_to_major,
                       in.i64s("array layout rank", "array layout dim"));
  const bool permutation =
      spec.minor_to_major.empty() || isPermutation(spec.minor_to_major, spec.dims.size());
  if (!permutation)
    return invalidArgument("array layout is not a permutation of its dims");
  return spec;
}

StatusOr<std::vector<ArraySpec>> decodeSpecs(ByteReader& in, const char* what) {
  JFT_ASSIGN_OR_RETURN(size_t count, in.count(what, 24));
  std::vector<ArraySpec> specs;
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(ArraySpec spec, decodeSpec(in));
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

std::string executablePayload(const ExecutableInfo& info) {
  ByteWriter out;
  out.bytes(info.name);
  out.bytes(info.fingerprint);
  out.u64(info.parameters.size());
  for (const ArraySpec& spec : info.parameters) encodeSpec(out, spec);
  out.u64(info.outputs.size());
  for (const ArraySpec& spec : info.outputs) encodeSpec(out, spec);
  out.i64(info.num_replicas);
  out.i64(info.num_partitions);
  out.bytes(info.optimized_program);
  out.bytes(info.optimized_format);
  out.bytes(info.compile_options);
  out.f64(info.flops);
  out.f64(info.transcendentals);
  runtime::encodeProgram(out, info.program);
  return out.take();
}

namespace {

// Warp size from the target text's last word, 32 when it has none.
int warpSizeOf(std::string_view target) {
  size_t space = target.rfind(' ');
  if (space == std::string_view::npos) return 32;
  int warp = 0;
  for (char c : target.substr(space + 1)) {
    if (c < '0' || c > '9' || warp > 1024) return 32;
    warp = warp * 10 + (c - '0');
  }
  return warp > 0 ? warp : 32;
}

StatusOr<std::shared_ptr<ExecutableInfo>> decodePayload(std::string_view payload,
                                                        std::string target) {
  ByteReader in(payload);
  auto info = std::make_shared<ExecutableInfo>();
  info->target = std::move(target);
  JFT_ASSIGN_OR_RETURN(info->name, in.bytes("name"));
  JFT_ASSIGN_OR_RETURN(info->fingerprint, in.bytes("fingerprint"));
  JFT_ASSIGN_OR_RETURN(info->parameters, decodeSpecs(in, "parameters"));
  JFT_ASSIGN_OR_RETURN(info->outputs, decodeSpecs(in, "outputs"));
  JFT_ASSIGN_OR_RETURN(int64_t replicas, in.i64("replicas"));
  JFT_ASSIGN_OR_RETURN(int64_t partitions, in.i64("partitions"));
  if (replicas < 1 || partitions < 1 || replicas > (1 << 20) || partitions > (1 << 20))
    return invalidArgument(std::to_string(replicas) + " replicas x " +
                           std::to_string(partitions) + " partitions is no program's");
  info->num_replicas = static_cast<int>(replicas);
  info->num_partitions = static_cast<int>(partitions);
  JFT_ASSIGN_OR_RETURN(info->optimized_program, in.bytes("program"));
  JFT_ASSIGN_OR_RETURN(info->optimized_format, in.bytes("program format"));
  JFT_ASSIGN_OR_RETURN(info->compile_options, in.bytes("compile options"));
  JFT_ASSIGN_OR_RETURN(info->flops, in.f64("flops"));
  JFT_ASSIGN_OR_RETURN(info->transcendentals, in.f64("transcendentals"));
  JFT_ASSIGN_OR_RETURN(info->program,
                       runtime::decodeProgram(in, warpSizeOf(info->target)));
  if (in.left() != 0)
    return invalidArgument(std::to_string(in.left()) + " bytes follow the program");
  Status finished = info->finish();
  if (!finished.isOk()) return invalidArgument(finished.message());
  return info;
}

}  // namespace

std::string serializeExecutable(const ExecutableInfo& info, std::string_view identity) {
  return sealExecutablePayload(executablePayload(info), identity, info.target);
}

std::string sealExecutablePayload(std::string_view payload, std::string_view identity,
                                  std::string_view target) {
  ByteWriter out;
  for (char c : kMagic) out.u8(static_cast<uint8_t>(c));
  out.u32(kFormatVersion);
  out.bytes(identity);
  out.bytes(target);
  out.u64(fnv1a64(payload));
  out.bytes(payload);
  return out.take();
}

StatusOr<std::shared_ptr<ExecutableInfo>> deserializeExecutable(std::string_view bytes,
                                                                std::string_view identity,
                                                                std::string_view target) {
  const std::string what =
      "serialized executable of " + std::to_string(bytes.size()) + " bytes: ";
  if (bytes.size() < kMagic.size() || bytes.substr(0, kMagic.size()) != kMagic)
    return invalidArgument(what + "not a jax-flagtree executable (no JFTEXEC magic)" +
                           kRecompile);
  ByteReader in(bytes.substr(kMagic.size()));
  std::string built;  // the target the header names
  auto header = [&]() -> Status {
    JFT_ASSIGN_OR_RETURN(uint32_t version, in.u32("format version"));
    if (version != kFormatVersion)
      return failedPrecondition(what + "format version " + std::to_string(version) +
                                ", this build reads " + std::to_string(kFormatVersion) +
                                kRecompile);
    JFT_ASSIGN_OR_RETURN(std::string writer, in.bytes("build identity"));
    if (writer != identity)
      return failedPrecondition(what + "written by another build (" + writer +
                                "), this is " + std::string(identity) + kRecompile);
    JFT_ASSIGN_OR_RETURN(built, in.bytes("target"));
    if (!target.empty() && built != target)
      return failedPrecondition(what + "built for target '" + built +
                                "', the device is '" + std::string(target) + "'" +
                                kRecompile);
    return Status::ok();
  };
  Status checked = header();
  if (!checked.isOk()) {
    if (checked.code() == StatusCode::kFailedPrecondition) return checked;
    return invalidArgument(what + checked.message() + kRecompile);
  }
  auto body = [&]() -> StatusOr<std::shared_ptr<ExecutableInfo>> {
    JFT_ASSIGN_OR_RETURN(uint64_t checksum, in.u64("checksum"));
    JFT_ASSIGN_OR_RETURN(std::string payload, in.bytes("payload"));
    if (in.left() != 0)
      return invalidArgument(std::to_string(in.left()) + " bytes follow the payload");
    if (fnv1a64(payload) != checksum)
      return invalidArgument("checksum mismatch: the bytes are corrupt");
    return decodePayload(payload, built);
  };
  auto info = body();
  if (!info.isOk()) return invalidArgument(what + info.status().message() + kRecompile);
  return info;
}

}  // namespace jft::pjrt
