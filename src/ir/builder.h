// A small helper to assemble modules by hand: tests, passes that emit new
// ops, tools. It checks nothing about op semantics (the verifier does), so
// it can build invalid IR on purpose.
//
//   Module m;
//   Builder b(m);
//   auto args = b.beginFunction("main", {f32x4, f32x4}, {f32x4});
//   ValueId sum = b.op1(OpKind::Add, {args[0], args[1]}, f32x4);
//   b.ret({sum});
//   b.endFunction();
//
// Regions are built detached: beginRegion(arg types) .. endRegion() returns a
// Region to pass to the op that owns it, so no reference into the module is
// held while ops are appended.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"

namespace jft::ir {

class Builder {
 public:
  explicit Builder(Module& module) : module_(module) {}

  Module& module() { return module_; }
  const Type& typeOf(ValueId id) const { return module_.typeOf(id); }

  // Starts a function and makes its body the insertion point. Returns the
  // argument values.
  std::vector<ValueId> beginFunction(std::string name, const std::vector<Type>& arg_types,
                                     std::vector<Type> result_types,
                                     bool is_public = true);
  // Moves the built body into the module's function.
  Function& endFunction();

  // Opens a detached region with arguments of the given types; ops go into
  // it until the matching endRegion.
  std::vector<ValueId> beginRegion(const std::vector<Type>& arg_types);
  Region endRegion();

  // Location given to ops created from now on.
  void setLoc(LocId loc) { loc_ = loc; }
  LocId fileLoc(std::string file, int64_t line, int64_t col);

  // Appends an op to the current region; returns its results.
  std::vector<ValueId> op(OpKind kind, std::vector<ValueId> operands,
                          const std::vector<Type>& result_types, NamedAttrs attrs = {},
                          std::vector<Region> regions = {});
  // The same for the common one-result case.
  ValueId op1(OpKind kind, std::vector<ValueId> operands, const Type& result_type,
              NamedAttrs attrs = {}, std::vector<Region> regions = {});
  // The op appended last in the current region (to adjust it).
  Op& lastOp();

  ValueId constant(DenseElements value);
  void ret(std::vector<ValueId> values);

 private:
  Module& module_;
  std::vector<Region> open_;  // innermost last
  int function_index_ = -1;
  LocId loc_ = kUnknownLoc;
};

// Dense literals for tests and constants. `values` are converted to the
// element type (f32/f64 as floats, integers truncated, PRED as != 0); types
// without a native C++ counterpart (bf16, f8, ...) need denseFromBits.
DenseElements denseFromValues(const Type& type, const std::vector<double>& values);
// Raw encodings, one per element (complex: real then imaginary as two
// entries); each written little endian in storageBytes of the component.
DenseElements denseFromBits(const Type& type, const std::vector<uint64_t>& bits);

}  // namespace jft::ir
