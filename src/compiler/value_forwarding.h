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
  // Walks the function body in order. UNIMPLEMENTED, naming the op and its
  // location, for a get_tuple_element whose tuple was not built by a tuple
  // op of this function (there is nothing to take the element from).
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
};

}  // namespace jft::compiler
