// Values that are other values under another name: tuple, get_tuple_element
// and optimization_barrier do no device work, so their results are resolved
// to the values that hold the data (a parameter, a constant, a kernel output).
#pragma once

#include <unordered_map>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

class ValueForwarding {
 public:
  // Walks the function body in order, and the regions of its ops (while,
  // case, if) where they stand, so that a region sees the tuples built around
  // it (value ids are unique in the module). UNIMPLEMENTED, naming the op and
  // its location, for a get_tuple_element whose tuple was not built by a
  // tuple op there (a tuple-typed parameter or region argument: there is
  // nothing to take the element from).
  static StatusOr<ValueForwarding> build(const ir::Module& module,
                                         const ir::Function& function);

  // The value holding `value`'s data; `value` itself when nothing forwards it.
  ir::ValueId resolve(ir::ValueId value) const;
  // The elements of a tuple built by a tuple op (resolved), or null.
  const std::vector<ir::ValueId>* tupleElements(ir::ValueId value) const;

  static bool isForwardingOp(ir::OpKind kind);

 private:
  std::unordered_map<ir::ValueId, ir::ValueId> forward_;
  std::unordered_map<ir::ValueId, std::vector<ir::ValueId>> tuples_;

  Status add(const ir::Module& module, const ir::Region& region);
};

}  // namespace jft::compiler
