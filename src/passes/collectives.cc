#include "passes/collectives.h"

#include <string>
#include <vector>

#include "passes/collective_form.h"
#include "passes/literal_elements.h"
#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

// A user error about `op`: its name and location first.
Status bad(const ir::Module& module, const ir::Op& op, const std::string& why) {
  return invalidArgument(std::string(ir::opKindName(op.kind)) + " at " +
                         module.locations.describe(op.loc) + ": " + why);
}

// "[[0, 1], [2, 3]]" for a 2-d literal, "[0, 1]" otherwise.
std::string literalText(const ir::DenseElements& literal) {
  const int64_t n = literal.numElements();
  const int64_t row = literal.type.rank() == 2 ? literal.type.dims[1] : n;
  const int64_t rows = literal.type.rank() == 2 ? literal.type.dims[0] : 1;
  std::string text;
  for (int64_t r = 0; r < rows; ++r) {
    text += r ? ", [" : "[";
    for (int64_t c = 0; c < row; ++c)
      text += (c ? ", " : "") + std::to_string(elementInteger(literal, r * row + c));
    text += "]";
  }
  return literal.type.rank() == 2 ? "[" + text + "]" : text;
}

// The 2-d integer literal `name` of `op`; null when absent.
StatusOr<const ir::DenseElements*> integerMatrix(const ir::Module& module,
                                                 const ir::Op& op, const char* name) {
  const ir::Attribute* attr = ir::findAttr(op.attrs, name);
  if (attr == nullptr) return static_cast<const ir::DenseElements*>(nullptr);
  const auto* literal = ir::findAttrAs<ir::DenseElements>(op.attrs, name);
  if (literal == nullptr || literal->type.rank() != 2 ||
      !ir::isInteger(literal->type.element) || !literal->wellFormed())
    return bad(module, op,
               std::string(name) +
                   " is not a 2-d integer literal (a mesh-axes form, only emitted for "
                   "several devices, is not read)");
  return literal;
}

// Replica groups name participant 0 once, the rest being padding; absent or
// empty groups are one group of every participant, i.e. of 0.
Status checkGroups(const ir::Module& module, const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(const ir::DenseElements* groups,
                       integerMatrix(module, op, "replica_groups"));
  if (groups == nullptr || groups->numElements() == 0) return Status::ok();
  int zeros = 0;
  for (int64_t i = 0; i < groups->numElements(); ++i) {
    const int64_t id = elementInteger(*groups, i);
    if (id == 0) ++zeros;
    if (id != 0 && id != kReplicaGroupPadding)
      return bad(module, op,
                 "replica_groups " + literalText(*groups) + " name participant " +
                     std::to_string(id) +
                     ", but the program is compiled for one participant (0)");
  }
  if (zeros != 1)
    return bad(module, op,
               "replica_groups " + literalText(*groups) +
                   (zeros == 0 ? " do not name participant 0, the program's only one"
                               : " name participant 0 more than once"));
  return Status::ok();
}

// Whether the one participant sends to itself: source_target_pairs is [[0, 0]]
// (true) or empty (false); anything else names another participant.
StatusOr<bool> sendsToItself(const ir::Module& module, const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(const ir::DenseElements* pairs,
                       integerMatrix(module, op, "source_target_pairs"));
  if (pairs == nullptr) return bad(module, op, "has no source_target_pairs");
  if (pairs->numElements() > 0 && pairs->type.dims[1] != 2)
    return bad(module, op,
               "source_target_pairs " + literalText(*pairs) + " are not pairs");
  for (int64_t i = 0; i < pairs->numElements(); ++i)
    if (elementInteger(*pairs, i) != 0)
      return bad(module, op,
                 "source_target_pairs " + literalText(*pairs) + " name participant " +
                     std::to_string(elementInteger(*pairs, i)) +
                     ", but the program is compiled for one participant (0)");
  if (pairs->numElements() > 0 && pairs->type.dims[0] > 1)
    return bad(module, op,
               "source_target_pairs " + literalText(*pairs) +
                   " repeat a source (StableHLO wants each source and target once)");
  return pairs->numElements() > 0;
}

// `dim` names a dimension of every operand.
Status checkDim(const ir::Module& module, const ir::Op& op, const char* name, int64_t dim,
                size_t operands) {
  for (size_t i = 0; i < operands; ++i) {
    const int64_t rank = module.typeOf(op.operands[i]).rank();
    if (dim < 0 || dim >= rank)
      return bad(module, op,
                 std::string(name) + " " + std::to_string(dim) +
                     " is not a dimension of " + module.typeOf(op.operands[i]).str());
  }
  return Status::ok();
}

// Results pair with the first `operands` operands, tensors of the same
// shape; `same_element`: of the same element type too (only the reducing
// collectives convert to their region's element type).
Status checkResults(const ir::Module& module, const ir::Op& op, size_t operands,
                    bool same_element) {
  if (operands == 0 || op.operands.size() < operands || op.results.size() != operands)
    return bad(module, op,
               std::to_string(op.operands.size()) + " operands and " +
                   std::to_string(op.results.size()) +
                   " results do not pair up one to one");
  for (size_t i = 0; i < operands; ++i) {
    const ir::Type& in = module.typeOf(op.operands[i]);
    const ir::Type& out = module.typeOf(op.results[i]);
    const bool fits = in.isTensor() && out.isTensor() && in.dims == out.dims &&
                      (!same_element || in.element == out.element);
    if (!fits)
      return bad(module, op,
                 "result " + std::to_string(i) + " is " + out.str() +
                     ", but with one participant it is operand " + std::to_string(i) +
                     " (" + in.str() + ")" +
                     (same_element ? "" : " in the region's element type"));
  }
  return Status::ok();
}

// How many leading operands pair with results: all of them, except
// collective_broadcast's roots operand with has_dynamic_root.
size_t pairedOperands(const ir::Op& op) {
  const bool dynamic_root = op.kind == OpKind::CollectiveBroadcast &&
                            ir::findAttr(op.attrs, "has_dynamic_root") != nullptr;
  return op.operands.size() - (dynamic_root && !op.operands.empty() ? 1 : 0);
}

// Checks `op` (a collective, replica_id or partition_id) against the rules
// for one participant; true when its results are its operands converted to
// the result types, false when it is a participant id or a permute that
// receives nothing (both give zeros).
StatusOr<bool> forwardsOperands(const ir::Module& module, const ir::Op& op) {
  switch (op.kind) {
    case OpKind::ReplicaId:
    case OpKind::PartitionId:
      if (!op.operands.empty() || op.results.size() != 1 ||
          !module.typeOf(op.results[0]).isTensor())
        return bad(module, op, "takes no operand and gives one tensor");
      return false;
    case OpKind::CollectivePermute: {
      JFT_RETURN_IF_ERROR(checkResults(module, op, op.operands.size(), true));
      return sendsToItself(module, op);
    }
    case OpKind::AllReduce:
    case OpKind::CrossReplicaSum:
      JFT_RETURN_IF_ERROR(checkGroups(module, op));
      JFT_RETURN_IF_ERROR(checkResults(module, op, op.operands.size(), false));
      return true;
    case OpKind::ReduceScatter: {
      JFT_RETURN_IF_ERROR(checkGroups(module, op));
      JFT_ASSIGN_OR_RETURN(int64_t dim,
                           collectiveIntAttr(module, op, "scatter_dimension"));
      JFT_RETURN_IF_ERROR(
          checkDim(module, op, "scatter_dimension", dim, op.operands.size()));
      JFT_RETURN_IF_ERROR(checkResults(module, op, op.operands.size(), false));
      return true;
    }
    case OpKind::AllGather: {
      JFT_RETURN_IF_ERROR(checkGroups(module, op));
      JFT_ASSIGN_OR_RETURN(int64_t dim, collectiveIntAttr(module, op, "all_gather_dim"));
      JFT_RETURN_IF_ERROR(
          checkDim(module, op, "all_gather_dim", dim, op.operands.size()));
      JFT_RETURN_IF_ERROR(checkResults(module, op, op.operands.size(), true));
      return true;
    }
    case OpKind::AllToAll: {
      JFT_RETURN_IF_ERROR(checkGroups(module, op));
      JFT_ASSIGN_OR_RETURN(int64_t split,
                           collectiveIntAttr(module, op, "split_dimension"));
      JFT_ASSIGN_OR_RETURN(int64_t concat,
                           collectiveIntAttr(module, op, "concat_dimension"));
      JFT_ASSIGN_OR_RETURN(int64_t count, collectiveIntAttr(module, op, "split_count"));
      JFT_RETURN_IF_ERROR(
          checkDim(module, op, "split_dimension", split, op.operands.size()));
      JFT_RETURN_IF_ERROR(
          checkDim(module, op, "concat_dimension", concat, op.operands.size()));
      // StableHLO's all_to_all C8: split_count is the size of a group.
      if (count != 1)
        return bad(module, op,
                   "split_count " + std::to_string(count) +
                       " is not the group size, 1, of a program for one participant");
      JFT_RETURN_IF_ERROR(checkResults(module, op, op.operands.size(), true));
      return true;
    }
    case OpKind::CollectiveBroadcast:
      JFT_RETURN_IF_ERROR(checkGroups(module, op));
      // With has_dynamic_root the last operand picks the source inside the
      // group; a group of one has only index 0, so the result is the operand.
      JFT_RETURN_IF_ERROR(checkResults(module, op, pairedOperands(op), true));
      return true;
    default:
      return internalError("forwardsOperands: not a collective");
  }
}

bool rewritten(OpKind kind) {
  return isCollective(kind) || kind == OpKind::ReplicaId || kind == OpKind::PartitionId;
}

}  // namespace

StatusOr<bool> lowerSingleParticipantCollectives(ir::Module& module) {
  Status failure = Status::ok();
  const bool changed =
      rewriteOps(module, [&](const ir::Op& op, std::vector<ir::Op>& out) {
        if (!failure.isOk() || !rewritten(op.kind)) return false;
        StatusOr<bool> forwards = forwardsOperands(module, op);
        if (!forwards.isOk()) {
          failure = forwards.status();
          return false;
        }
        OpEmitter e(module, op, out);
        for (size_t i = 0; i < op.results.size(); ++i) {
          const ir::Type type = module.typeOf(op.results[i]);  // emitting grows the table
          // A convert to the same type is a no-op canonicalize removes.
          const ValueId value = *forwards ? e.convert(op.operands[i], type.element)
                                          : e.constant(type.element, type.dims, 0);
          e.giveId(value, op.results[i]);
        }
        return true;
      });
  if (!failure.isOk()) return failure;
  return changed;
}

}  // namespace jft::passes
