// The frontend's entry points: a StableHLO portable artifact (MLIR bytecode
// of the VHLO dialect) or its generic tree, to an ir::Module.
//
// Every VHLO op of StableHLO up to 1.20.0 that ir has an op for is mapped
// (see op_table.h), attributes are converted to their typed ir forms in
// StableHLO's generic spelling (see op_attrs.h), and every op and function
// keeps its source location. Bad input never crashes: malformed trees give
// INVALID_ARGUMENT, well-formed input that ir cannot express (an unknown op
// version, quantized types, asynchronous collectives) UNIMPLEMENTED, both
// naming the op and its source position.
#pragma once

#include <cstddef>
#include <cstdint>

#include "frontend/mlir_tree.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::frontend {

StatusOr<ir::Module> importTree(const MTree& tree);

// readBytecode followed by importTree.
StatusOr<ir::Module> importStableHlo(const uint8_t* data, size_t size);

}  // namespace jft::frontend
