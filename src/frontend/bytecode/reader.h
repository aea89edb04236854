// The MLIR bytecode reader: the bytes of a StableHLO portable artifact (what
// JAX hands a PJRT plugin) to the generic tree of mlir_tree.h.
//
// Accepts bytecode format versions 0..6 (JAX 0.6..0.11 write 6). Builtin and
// VHLO attributes and types are decoded (see mlir_tree.h for the kinds);
// other dialects' entries are Opaque (with their raw bytes in `data`, or
// their text in `str`/`text` when stored as text). Names given to VHLO
// attributes: enums are Kind::Enum with name "vhlo.<mnemonic>"
// ("vhlo.comparison_direction_v1", "vhlo.comparison_type_v1",
// "vhlo.api_version_v1", "vhlo.fft_type_v1", "vhlo.precision_v1",
// "vhlo.rng_algorithm_v1", "vhlo.rng_distribution_v1", "vhlo.transpose_v1",
// "vhlo.result_accuracy_mode_v1"), int_value the encoded value and str the
// case name ("EQ"); structs are Kind::Struct with snake_case fields:
//   vhlo.output_operand_alias_v1 {output_tuple_indices: IntList,
//       operand_index: Integer, operand_tuple_indices: IntList}
//   vhlo.type_extensions_v1 {bounds: IntList}
//   vhlo.result_accuracy_v1 {atol: Float, rtol: Float, ulps: Integer, mode: Enum}
//   vhlo.sub_axis_info_v1 {pre_size, size}, vhlo.mesh_axis_v1 {name, size},
//   vhlo.axis_ref_v1 {name, sub_axis_info?}, vhlo.mesh_v1 {axes, device_ids?},
//   vhlo.replica_group_mesh_axes_v1 {mesh, axes}.
// (VHLO has no dimension-number attributes: ops carry those as separate
// tensor attributes, e.g. dot_general_v2's lhs_batching_dimensions.)
// Op properties (VHLO op attributes from StableHLO 0.15 on, builtin.module's
// sym_name) are decoded and merged into MOp::attrs under their ODS names.
//
// Errors are INVALID_ARGUMENT and name the section, the byte offset and what
// was expected there. Any input, however corrupt, gives an error or a tree:
// never a crash, a hang, or a read out of bounds. Nesting is bounded (256
// levels of attributes, 64 of regions), which keeps the stack the reader
// needs under about 1 MB even in a debug build.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "frontend/mlir_tree.h"
#include "support/status.h"

namespace jft::frontend {

StatusOr<MTree> readBytecode(const uint8_t* data, size_t size);

// A readable multi-line dump (generic-MLIR-like) for diagnosing; long
// outputs are cut at `max_chars`.
std::string dumpTree(const MTree& tree, size_t max_chars = 1 << 20);
std::string dumpAttr(const MAttr* attr, size_t max_chars = 4096);

}  // namespace jft::frontend
