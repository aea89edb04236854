// What goes into a kernel compile and what comes out of it.
//
// These types are the whole vocabulary of src/kernels: TTIR text and a target
// in, a loadable binary with its launch contract out. Nothing here knows our IR
// or PJRT.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace jft::kernel_compiler {

struct KernelTarget {
  std::string backend = "cuda";  // "cuda" or "hip"
  std::string arch = "90";       // compute capability ("90") or gfx name ("gfx942")
  int warp_size = 32;            // 32 on NVIDIA, 64 on most AMD parts
};

struct KernelOptions {
  int num_warps = 4;
  int num_stages = 3;
  int num_ctas = 1;
};

struct CompileRequest {
  // One TTIR module with one public kernel function: text, or MLIR bytecode
  // (starting with "ML\xEFR", a Pallas kernel's module as JAX serialized it).
  std::string ttir;
  KernelTarget target;
  KernelOptions options;
};

// The name of the first `tt.func` in the TTIR, for messages; "" when none is found.
std::string kernelNameOf(std::string_view ttir);

// Who compiled a kernel: part of the cache key, so a compiler upgrade never
// serves binaries built by the previous one.
struct CompilerIdentity {
  std::string name;            // "flagtree" or "triton"
  std::string version;         // FlagTree's own version, or Triton's
  std::string triton_version;  // triton.__version__ as imported
  std::string detected_by;     // how the worker told FlagTree from Triton
  // Tells two builds of one version apart (native library size and time,
  // code-affecting TRITON_* knobs); empty from a worker that does not say.
  std::string build_id;

  bool operator==(const CompilerIdentity&) const = default;
};

// Why a launch parameter exists. Triton appends pointer parameters after the
// TTIR's own arguments (global scratch, then profile scratch as of 3.5); the
// launcher must pass them, null when the matching scratch size is 0.
enum class ParamRole { kArg, kGlobalScratch, kProfileScratch, kHidden };

const char* paramRoleName(ParamRole role);

struct KernelParam {
  std::string type;  // TTIR type ("*fp32", "i32"); "*i8" for appended pointers
  ParamRole role = ParamRole::kArg;
  uint32_t size_bytes = 0;  // size of the launch argument
  bool is_pointer = false;

  bool operator==(const KernelParam&) const = default;
};

struct CompiledKernel {
  std::string binary;               // cubin (CUDA) or hsaco (HIP) bytes
  std::string binary_format;        // "cubin" or "hsaco"
  std::string name;                 // entry point name inside the binary
  uint32_t shared_mem = 0;          // dynamic shared memory bytes to launch with
  int num_warps = 0;                // may differ from the request (warp specialization)
  std::vector<KernelParam> params;  // exact launch parameter list, in order
  uint64_t global_scratch_size = 0;
  uint64_t global_scratch_align = 1;
  uint64_t profile_scratch_size = 0;
  uint64_t profile_scratch_align = 1;
  CompilerIdentity compiler;
  bool cache_hit = false;
  // Worker-side pipeline time for a fresh compile; time spent in the cache
  // lookup for a hit.
  double compile_seconds = 0;
  // A fresh compile's time per pipeline stage, in pipeline order ("parse",
  // "ttir", "ttgir", "llir", "ptx", "cubin", ...); empty for a hit.
  std::vector<std::pair<std::string, double>> stage_seconds;
};

}  // namespace jft::kernel_compiler
