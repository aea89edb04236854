// The forward walk under every local rewrite (canonicalize, simplify, cse).
//
// Each function body and nested region is visited in program order. Before
// an op is offered to the rewriter, its operands have been renamed through
// the replacements made so far and its own regions have been walked, so the
// rewriter sees final operands and final regions. For each op it may
//   - modify the op in place, keeping its result ids, and return true;
//   - replace the op's results by values visible at the op (replaceOp),
//     which erases the op: only for ops without side effects;
//   - insert new ops just before it (insertBefore), e.g. a scalar constant.
// Erased ops leave and inserted ops enter their region when its walk ends.
// Return ops are renamed but never offered.
//
// Before: the IR verifies (values are defined before their uses).
// After: the IR still verifies when each rewrite keeps result types.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "ir/module.h"

namespace jft::passes {

class RewriteContext;

class LocalRewriter {
 public:
  virtual ~LocalRewriter() = default;
  // Returns true when it changed `op` (in place, by replacing or inserting).
  virtual bool rewrite(RewriteContext& context, ir::Op& op) = 0;
  // Brackets the walk of each region, for rewriters that keep per-scope state;
  // `owner` is the op holding the region, null for a function body.
  virtual void enterRegion(const ir::Op* /*owner*/) {}
  virtual void exitRegion() {}
};

class RewriteContext {
 public:
  explicit RewriteContext(ir::Module& module) : module_(module) {}

  ir::Module& module() { return module_; }
  const ir::Type& typeOf(ir::ValueId value) const { return module_.typeOf(value); }

  // The op defining `value`; nullptr for region arguments.
  const ir::Op* definingOp(ir::ValueId value) const;

  // Every later use of op.results[i] becomes a use of values[i] (same types)
  // and the op is erased.
  void replaceOp(ir::Op& op, const std::vector<ir::ValueId>& values);

  // Places `op` just before the op being rewritten. Its results must be
  // fresh values (Module::newValue). Returns the inserted op.
  const ir::Op& insertBefore(ir::Op op);

  // Runs `rewriter` over the whole module; true when anything changed.
  bool run(LocalRewriter& rewriter);

 private:
  struct RegionEdit {
    std::deque<ir::Op> inserted;          // stable addresses while walking
    std::vector<size_t> inserted_before;  // op index each inserted op precedes
    std::vector<bool> erased;
    size_t current = 0;
  };

  void walkRegion(ir::Region& region, const ir::Op* owner);
  void applyEdit(ir::Region& region, RegionEdit& edit);
  ir::ValueId renamed(ir::ValueId value) const;
  void define(const ir::Op& op);

  ir::Module& module_;
  LocalRewriter* rewriter_ = nullptr;
  std::vector<RegionEdit*> edits_;          // innermost last
  std::vector<ir::ValueId> replacement_;    // by ValueId; kNoReplacement when none
  std::vector<const ir::Op*> definitions_;  // by ValueId
  bool changed_ = false;
};

}  // namespace jft::passes
