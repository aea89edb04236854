// ExecutableInfo: everything the executable queries answer, fixed at compile
// time and shared (immutable) by a loaded executable and every
// PJRT_Executable handed out for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/entry_value.h"
#include "pjrt/abi.h"
#include "pjrt/layouts_extension.h"
#include "pjrt/named_values.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::pjrt {

// One parameter or output as the ABI sees it: a dense array.
struct ArraySpec {
  PJRT_Buffer_Type type = PJRT_Buffer_Type_INVALID;
  std::vector<int64_t> dims;
  uint64_t bytes = 0;
  // The memory the caller keeps it in: "device", or "pinned_host" (Execute
  // stages such a parameter into device memory and such an output out of it).
  std::string memory_kind = "device";
  bool onHost() const { return memory_kind == "pinned_host"; }
  // The order of its elements in memory, minor-to-major dims; empty where
  // dense row-major (compiler/entry_layouts.h).
  std::vector<int64_t> minor_to_major;
  std::string text() const;  // "f32[2,3]"
};

// UNIMPLEMENTED for tuples and element types the ABI cannot name.
StatusOr<ArraySpec> arraySpec(const compiler::EntryValue& value);
PJRT_Buffer_Type bufferType(compiler::ElementType type);  // INVALID where none exists

struct ExecutableInfo {
  std::string name;
  std::string fingerprint;
  std::vector<ArraySpec> parameters;
  std::vector<ArraySpec> outputs;
  runtime::Program program;
  int num_replicas = 1;
  int num_partitions = 1;
  // What OptimizedProgram hands back: the program as received (a StableHLO
  // portable artifact), which JAX can parse; our own IR is not MLIR.
  std::string optimized_program;
  std::string optimized_format = "mlir";
  std::string compile_options;  // the serialized CompileOptionsProto, as received
  // The compiler's count (compiler/cost_analysis.h), carried by serialization.
  double flops = 0;
  double transcendentals = 0;
  // The device the program was built for (compile.h's targetText); a
  // serialized executable loads only on a device of the same target.
  std::string target;

  // Flattened views for the ABI, filled by finish().
  std::vector<PJRT_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;
  std::vector<size_t> output_ranks;
  std::vector<const char*> output_kinds;
  std::vector<size_t> output_kind_sizes;
  std::vector<const char*> parameter_kinds;
  std::vector<size_t> parameter_kind_sizes;
  // What the layouts extension hands out, one per parameter / output.
  std::vector<std::unique_ptr<PJRT_Layouts_MemoryLayout>> layout_objects;
  std::vector<PJRT_Layouts_MemoryLayout*> parameter_layouts;
  std::vector<PJRT_Layouts_MemoryLayout*> output_layouts;
  int64_t code_bytes = 0;
  int64_t argument_bytes = 0;
  int64_t output_bytes = 0;
  int64_t alias_bytes = 0;
  int64_t temp_bytes = 0;
  // What GetCostAnalysis answers (executable_cost.h), filled by finish().
  std::shared_ptr<const NamedValues> cost_properties;

  // Checks the program against the parameter/output lists and fills the views.
  Status finish();
};

// Takes the compiler's result apart into an ExecutableInfo.
StatusOr<std::shared_ptr<ExecutableInfo>> describeExecutable(
    compiler::Executable compiled, std::string program, std::string compile_options);

}  // namespace jft::pjrt
