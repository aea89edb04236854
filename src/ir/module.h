// Modules, functions, regions and ops: the IR every stage after the frontend
// works on.
//
// Structure: a Module owns functions (func.func) and one value table. Every
// SSA value in the module has a ValueId into that table, so a value defined
// in a function body can be used inside a nested region (while/case bodies
// may capture). A Region is one block: its arguments and its ops in order,
// the last op being its terminator (return). Combiners of reduce/sort/
// scatter and bodies of while/case are Regions of their op.
//
// Semantics are StableHLO's (see element_type.h for arithmetic).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attribute.h"
#include "ir/location.h"
#include "ir/op_kind.h"
#include "ir/type.h"

namespace jft::ir {

using ValueId = uint32_t;

struct Region;

struct Op {
  OpKind kind = OpKind::Constant;
  std::vector<ValueId> operands;
  std::vector<ValueId> results;
  NamedAttrs attrs;
  std::vector<Region> regions;
  LocId loc = kUnknownLoc;
};

struct Region {
  std::vector<ValueId> args;
  std::vector<Op> ops;
};

struct Function {
  std::string name;
  bool is_public = false;
  std::vector<Type> result_types;   // argument types are those of body.args
  std::vector<NamedAttrs> arg_attrs;     // one per argument, may be empty lists
  std::vector<NamedAttrs> result_attrs;  // one per result, may be empty lists
  Region body;
  LocId loc = kUnknownLoc;
};

class Module {
 public:
  std::string name;  // "jit_smoke"; may be empty
  NamedAttrs attrs;  // module attributes (mhlo.num_partitions, ...)
  std::vector<Function> functions;
  LocationTable locations;

  ValueId newValue(Type type);
  const Type& typeOf(ValueId id) const { return value_types_.at(id); }
  size_t numValues() const { return value_types_.size(); }

  Function* findFunction(std::string_view name);
  const Function* findFunction(std::string_view name) const;
  // The entry point: "main" if present, else the only public function.
  const Function* entry() const;

 private:
  std::vector<Type> value_types_;
};

}  // namespace jft::ir
