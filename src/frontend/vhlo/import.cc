// importStableHlo: bytes -> generic tree -> ir.
#include "frontend/vhlo/import.h"

#include "frontend/bytecode/reader.h"

namespace jft::frontend {

StatusOr<ir::Module> importStableHlo(const uint8_t* data, size_t size) {
  JFT_ASSIGN_OR_RETURN(MTree tree, readBytecode(data, size));
  return importTree(tree);
}

}  // namespace jft::frontend
