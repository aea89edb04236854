// importTree: the generic tree to ir (the walk lives in tree_importer.cc).
#include "frontend/vhlo/import.h"
#include "frontend/vhlo/tree_importer.h"

namespace jft::frontend {

StatusOr<ir::Module> importTree(const MTree& tree) {
  vhlo::TreeImporter importer(tree);
  return importer.run();
}

}  // namespace jft::frontend
