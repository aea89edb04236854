// Fingerprint: length-prefixed fields into one SHA-256, so that no two
// different field lists hash the same bytes.
#include "compiler/fingerprint.h"

#include "fusion/conv_gemm_form.h"
#include "fusion/matmul_form.h"
#include "kernel_compiler/sha256.h"

namespace jft::compiler {
namespace {

void field(kernel_compiler::Sha256& hash, std::string_view bytes) {
  std::string length = std::to_string(bytes.size()) + ":";
  hash.update(length);
  hash.update(bytes);
}

}  // namespace

std::string compilerIdentityText(const kernel_compiler::CompilerIdentity* identity) {
  if (identity == nullptr) return "none";
  return identity->name + " " + identity->version + " triton " +
         identity->triton_version + " build " + identity->build_id;
}

std::string fingerprint(std::string_view bytecode, const Options& options,
                        std::string_view compiler_identity) {
  kernel_compiler::Sha256 hash;
  field(hash, kPipelineVersion);
  field(hash, bytecode);
  field(hash, modeName(options.mode));
  field(hash, fusion::matmulRouteName(options.matmul));
  field(hash, fusion::convRouteName(options.conv));
  field(hash, std::to_string(options.autotune_level));
  field(hash, options.exclude_nondeterministic_ops ? "deterministic" : "any");
  // Participants change the program (collective thunks, group sizes).
  field(hash, std::to_string(options.num_replicas) + "x" +
                  std::to_string(options.num_partitions));
  field(hash, options.target.backend);
  field(hash, options.target.arch);
  field(hash, std::to_string(options.target.warp_size));
  field(hash, compiler_identity);
  // Fault injection moves kernels to the native route (back_fail); absent,
  // it leaves every fingerprint as it was.
  for (const std::string& failing : options.fail_kernels) field(hash, "fail " + failing);
  if (options.native_library_operands) field(hash, "native library operands");
  if (!options.horizontal) field(hash, "no horizontal fusion");
  if (options.attention) field(hash, "attention family");
  if (options.sort_registers) field(hash, "sort register steps");
  if (options.recompute) field(hash, "recompute elementwise");
  return kernel_compiler::toHex(hash.finish());
}

}  // namespace jft::compiler
