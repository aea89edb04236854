// Entry layouts: the order in memory a caller asks for an entry parameter or
// result, through `mhlo.layout_mode` on the entry function's argument or
// result attributes (JAX writes it for a jit's in/out Format and for arrays
// that already have a layout). A concrete layout is a minor-to-major list of
// the dims, "{0,1}" for a column-major matrix; "default" and "auto" are the
// dense row-major layout.
//
// The program computes on the logical shape as written. A parameter whose
// layout is not row-major becomes a parameter of the physical shape (its
// dims major to minor) read through a transpose to the logical one; such a
// result is transposed to its physical shape before it is returned. The
// planner fuses these transposes into their readers and writers like any
// other (kernels read operands through index maps).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

// Minor-to-major dims; empty means the dense row-major layout.
using MinorToMajor = std::vector<int64_t>;

struct EntryLayouts {
  // One per parameter / result, empty where row-major.
  std::vector<MinorToMajor> parameters;
  std::vector<MinorToMajor> outputs;
  // The entry's types as the caller sees them (before the rewrite).
  std::vector<ir::Type> parameter_types;
  std::vector<ir::Type> output_types;
};

// The layout `text` names for a value of rank `rank`: nothing for "default",
// "auto" or an empty string, else the minor-to-major list of "{d,...}" when
// it is a permutation of the dims other than row-major (row-major itself is
// nothing too). Tiled layouts (":T(...)"), memory spaces and element sizes
// are UNIMPLEMENTED; anything else is INVALID_ARGUMENT.
StatusOr<std::optional<MinorToMajor>> parseLayoutMode(std::string_view text,
                                                      int64_t rank);

// Rewrites `function` (the entry) for the layouts its attributes ask for, as
// the header says, and returns them. Errors name the parameter or result.
StatusOr<EntryLayouts> applyEntryLayouts(ir::Module& module, ir::Function& function);

// "{1,0}" for a minor-to-major list; "{}" for rank 0.
std::string layoutText(const MinorToMajor& minor_to_major);

// The row-major minor-to-major list of a rank (rank-1, ..., 0).
MinorToMajor rowMajor(size_t rank);

}  // namespace jft::compiler
