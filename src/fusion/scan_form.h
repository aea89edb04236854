// Cumulative reductions the scan family runs, in the two forms JAX emits:
//   - reduce_window whose window spans one whole dim n (padding (n-1, 0),
//     or (0, n-1) for a reverse scan), every other window dim 1, strides and
//     dilations 1: cumsum/cumprod/cummax/cummin on older lowerings;
//     out[i] = init (+) x[0] (+) ... (+) x[i];
//   - the composite "chlo.scan" kept whole (not inlined to its while loop):
//     its body (input, carry) -> (output, new carry) returns one value twice
//     and is associative; results are the scan and the final carry;
//     out[i] = x[i] (+) (x[i-1] (+) ... (x[0] (+) init)).
// One operand, one init; the combiner is scalar elementwise ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace jft::fusion {

struct ScanForm {
  bool composite = false;  // chlo.scan (else reduce_window)
  int64_t axis = 0;
  bool reverse = false;
  ir::ValueId input = 0;
  ir::ValueId init = 0;
  const ir::Region* body = nullptr;
};

std::optional<ScanForm> scanFormOf(const ir::Module& module, const ir::Op& op);

// An integer list attribute (a list or a dense literal of 64-bit integers,
// as window attributes come); empty when absent.
std::vector<int64_t> intListAttr(const ir::NamedAttrs& attrs, std::string_view name);

// The composite's name ("" for other ops).
std::string compositeName(const ir::Op& op);

}  // namespace jft::fusion
