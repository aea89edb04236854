#include "kernel_compiler/compiled_kernel_json.h"

#include <array>

namespace jft::kernel_compiler {
namespace {

constexpr std::array<ParamRole, 4> kAllRoles = {
    ParamRole::kArg, ParamRole::kGlobalScratch, ParamRole::kProfileScratch,
    ParamRole::kHidden};

StatusOr<ParamRole> paramRoleFromName(const std::string& name) {
  for (ParamRole role : kAllRoles) {
    if (name == paramRoleName(role)) return role;
  }
  return invalidArgument("unknown parameter role '" + name + "'");
}

StatusOr<KernelParam> paramFromJson(const Json& json) {
  KernelParam param;
  JFT_ASSIGN_OR_RETURN(param.type, requireString(json, "type"));
  JFT_ASSIGN_OR_RETURN(std::string role, requireString(json, "role"));
  JFT_ASSIGN_OR_RETURN(param.role, paramRoleFromName(role));
  JFT_ASSIGN_OR_RETURN(int64_t size, requireInt(json, "size"));
  if (size < 0 || size > 4096) return invalidArgument("parameter size out of range");
  param.size_bytes = static_cast<uint32_t>(size);
  JFT_ASSIGN_OR_RETURN(param.is_pointer, requireBool(json, "pointer"));
  return param;
}

StatusOr<uint64_t> requireCount(const Json& json, std::string_view key) {
  JFT_ASSIGN_OR_RETURN(int64_t value, requireInt(json, key));
  if (value < 0) return invalidArgument("field '" + std::string(key) + "' is negative");
  return static_cast<uint64_t>(value);
}

}  // namespace

Json compilerIdentityToJson(const CompilerIdentity& identity) {
  Json json;
  json.set("name", identity.name);
  json.set("version", identity.version);
  json.set("triton_version", identity.triton_version);
  json.set("detected_by", identity.detected_by);
  json.set("build_id", identity.build_id);
  return json;
}

StatusOr<CompilerIdentity> compilerIdentityFromJson(const Json& json) {
  CompilerIdentity identity;
  JFT_ASSIGN_OR_RETURN(identity.name, requireString(json, "name"));
  JFT_ASSIGN_OR_RETURN(identity.version, requireString(json, "version"));
  JFT_ASSIGN_OR_RETURN(identity.triton_version, requireString(json, "triton_version"));
  // Optional: absent from peers that do not report them.
  if (const Json* how = json.find("detected_by"); how != nullptr && how->isString()) {
    identity.detected_by = how->asString();
  }
  if (const Json* build = json.find("build_id"); build != nullptr && build->isString()) {
    identity.build_id = build->asString();
  }
  return identity;
}

Json kernelMetadataToJson(const CompiledKernel& kernel) {
  Json::Array params;
  for (const KernelParam& param : kernel.params) {
    Json p;
    p.set("type", param.type);
    p.set("role", paramRoleName(param.role));
    p.set("size", param.size_bytes);
    p.set("pointer", param.is_pointer);
    params.push_back(std::move(p));
  }
  Json json;
  json.set("kernel_name", kernel.name);
  json.set("binary_format", kernel.binary_format);
  json.set("shared_mem", kernel.shared_mem);
  json.set("num_warps", kernel.num_warps);
  json.set("params", std::move(params));
  json.set("global_scratch_size", kernel.global_scratch_size);
  json.set("global_scratch_align", kernel.global_scratch_align);
  json.set("profile_scratch_size", kernel.profile_scratch_size);
  json.set("profile_scratch_align", kernel.profile_scratch_align);
  json.set("compiler", compilerIdentityToJson(kernel.compiler));
  return json;
}

StatusOr<CompiledKernel> kernelMetadataFromJson(const Json& json) {
  CompiledKernel kernel;
  JFT_ASSIGN_OR_RETURN(kernel.name, requireString(json, "kernel_name"));
  if (kernel.name.empty()) return invalidArgument("empty kernel_name");
  JFT_ASSIGN_OR_RETURN(kernel.binary_format, requireString(json, "binary_format"));
  JFT_ASSIGN_OR_RETURN(uint64_t shared, requireCount(json, "shared_mem"));
  kernel.shared_mem = static_cast<uint32_t>(shared);
  JFT_ASSIGN_OR_RETURN(int64_t warps, requireInt(json, "num_warps"));
  if (warps <= 0) return invalidArgument("num_warps must be positive");
  kernel.num_warps = static_cast<int>(warps);
  const Json* params = json.find("params");
  if (params == nullptr || !params->isArray())
    return invalidArgument("missing array 'params'");
  for (const Json& p : params->asArray()) {
    JFT_ASSIGN_OR_RETURN(KernelParam param, paramFromJson(p));
    kernel.params.push_back(std::move(param));
  }
  JFT_ASSIGN_OR_RETURN(kernel.global_scratch_size,
                       requireCount(json, "global_scratch_size"));
  JFT_ASSIGN_OR_RETURN(kernel.global_scratch_align,
                       requireCount(json, "global_scratch_align"));
  JFT_ASSIGN_OR_RETURN(kernel.profile_scratch_size,
                       requireCount(json, "profile_scratch_size"));
  JFT_ASSIGN_OR_RETURN(kernel.profile_scratch_align,
                       requireCount(json, "profile_scratch_align"));
  const Json* compiler = json.find("compiler");
  if (compiler == nullptr) return invalidArgument("missing field 'compiler'");
  JFT_ASSIGN_OR_RETURN(kernel.compiler, compilerIdentityFromJson(*compiler));
  return kernel;
}

}  // namespace jft::kernel_compiler
