// Test harness: one StableHLO elementwise op as a complete TTIR kernel
// (operands loaded from pointer parameters, the op, the result stored), so
// the emitter's output can be checked whole and compiled by real Triton.
#pragma once

#include <string>
#include <vector>

#include "codegen/ttir/ttir_writer.h"
#include "ir/attribute.h"
#include "ir/op_kind.h"
#include "ir/type.h"
#include "support/status.h"

namespace jft::codegen::ttir::testing {

struct OpCase {
  ir::OpKind kind;
  std::vector<ir::Type> operands;  // rank 0 or {kLanes}
  ir::Type result;
  ir::NamedAttrs attrs;
  std::string name;  // file stem: "add_f32"
};

inline constexpr int64_t kLanes = 128;

// An operand or result of the harness: a vector of kLanes elements.
inline ir::Type tile(ir::ElementType e) {
  return ir::Type::tensor(e, {kLanes});
}

struct Kernel {
  std::string ttir;  // the whole module
  std::string op;    // only the lines emitElementwise wrote
};

StatusOr<Kernel> elementwiseKernel(const OpCase& c, Target target = Target::kCuda);

// With JFT_TTIR_DUMP_DIR set, writes <dir>/<name>.ttir and <name>.json (the
// op, its attributes and element types, for a runner that compares results
// with XLA's). Returns false when not dumping.
bool dumpKernel(const OpCase& c, const Kernel& k);

}  // namespace jft::codegen::ttir::testing
