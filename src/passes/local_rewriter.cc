#include "passes/local_rewriter.h"

#include <limits>

#include "support/status.h"

namespace jft::passes {
namespace {

constexpr ir::ValueId kNoReplacement = std::numeric_limits<ir::ValueId>::max();

template <typename T>
void growTo(std::vector<T>& table, size_t size, T fill) {
  if (table.size() < size) table.resize(size, fill);
}

}  // namespace

const ir::Op* RewriteContext::definingOp(ir::ValueId value) const {
  return value < definitions_.size() ? definitions_[value] : nullptr;
}

void RewriteContext::replaceOp(ir::Op& op, const std::vector<ir::ValueId>& values) {
  JFT_CHECK(!edits_.empty(), "replaceOp outside a walk");
  JFT_CHECK(values.size() == op.results.size(), "replaceOp with a wrong value count");
  growTo(replacement_, module_.numValues(), kNoReplacement);
  for (size_t i = 0; i < values.size(); ++i) {
    JFT_CHECK(module_.typeOf(values[i]) == module_.typeOf(op.results[i]),
              "replaceOp changes a type: " + module_.typeOf(op.results[i]).str() +
                  " -> " + module_.typeOf(values[i]).str());
    replacement_[op.results[i]] = renamed(values[i]);
  }
  RegionEdit& edit = *edits_.back();
  edit.erased[edit.current] = true;
}

const ir::Op& RewriteContext::insertBefore(ir::Op op) {
  JFT_CHECK(!edits_.empty(), "insertBefore outside a walk");
  RegionEdit& edit = *edits_.back();
  edit.inserted.push_back(std::move(op));
  edit.inserted_before.push_back(edit.current);
  define(edit.inserted.back());
  return edit.inserted.back();
}

bool RewriteContext::run(LocalRewriter& rewriter) {
  rewriter_ = &rewriter;
  changed_ = false;
  for (ir::Function& function : module_.functions) walkRegion(function.body, nullptr);
  rewriter_ = nullptr;
  return changed_;
}

ir::ValueId RewriteContext::renamed(ir::ValueId value) const {
  if (value < replacement_.size() && replacement_[value] != kNoReplacement)
    return replacement_[value];
  return value;
}

void RewriteContext::define(const ir::Op& op) {
  growTo<const ir::Op*>(definitions_, module_.numValues(), nullptr);
  for (ir::ValueId result : op.results) definitions_[result] = &op;
}

void RewriteContext::walkRegion(ir::Region& region, const ir::Op* owner) {
  RegionEdit edit;
  edit.erased.assign(region.ops.size(), false);
  rewriter_->enterRegion(owner);
  for (size_t i = 0; i < region.ops.size(); ++i) {
    ir::Op& op = region.ops[i];
    for (ir::ValueId& operand : op.operands) operand = renamed(operand);
    for (ir::Region& nested : op.regions) walkRegion(nested, &op);
    if (op.kind == ir::OpKind::Return) continue;
    edits_.push_back(&edit);
    edit.current = i;
    if (rewriter_->rewrite(*this, op)) changed_ = true;
    edits_.pop_back();
    if (!edit.erased[i]) define(op);
  }
  rewriter_->exitRegion();
  applyEdit(region, edit);
}

void RewriteContext::applyEdit(ir::Region& region, RegionEdit& edit) {
  // The definitions point into this region, which is about to move; its
  // values are out of scope from here on.
  for (const ir::Op& op : edit.inserted)
    for (ir::ValueId result : op.results) definitions_[result] = nullptr;
  for (const ir::Op& op : region.ops)
    for (ir::ValueId result : op.results)
      if (result < definitions_.size()) definitions_[result] = nullptr;

  bool erased_any = false;
  for (bool erased : edit.erased) erased_any = erased_any || erased;
  if (!erased_any && edit.inserted.empty()) return;

  std::vector<ir::Op> ops;
  ops.reserve(region.ops.size() + edit.inserted.size());
  size_t next_inserted = 0;
  for (size_t i = 0; i < region.ops.size(); ++i) {
    while (next_inserted < edit.inserted.size() &&
           edit.inserted_before[next_inserted] == i)
      ops.push_back(std::move(edit.inserted[next_inserted++]));
    if (!edit.erased[i]) ops.push_back(std::move(region.ops[i]));
  }
  region.ops = std::move(ops);
}

}  // namespace jft::passes
