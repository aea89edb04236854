// Collective-route groups as collective and participant id thunks
// (collective_call.h).
#include "codegen/library/collective_call.h"

#include <optional>

namespace jft::codegen::library {
namespace {

using ir::ElementType;
using ir::OpKind;
using runtime::CollectiveKind;
using runtime::CollectiveType;

bool isCollectiveRouteOp(OpKind kind) {
  return passes::isCollective(kind) || kind == OpKind::ReplicaId ||
         kind == OpKind::PartitionId;
}

std::optional<CollectiveKind> kindOf(OpKind kind) {
  switch (kind) {
    case OpKind::AllReduce:
      return CollectiveKind::kAllReduce;
    case OpKind::AllGather:
      return CollectiveKind::kAllGather;
    case OpKind::ReduceScatter:
      return CollectiveKind::kReduceScatter;
    case OpKind::AllToAll:
      return CollectiveKind::kAllToAll;
    case OpKind::CollectivePermute:
      return CollectiveKind::kCollectivePermute;
    case OpKind::CollectiveBroadcast:
      return CollectiveKind::kCollectiveBroadcast;
    default:
      return std::nullopt;
  }
}

// The NCCL type an element travels as, and how many of them one element is.
struct WireType {
  CollectiveType type = CollectiveType::kF32;
  int64_t per_element = 1;
};

std::optional<WireType> wireTypeOf(ElementType element, bool reduces) {
  switch (element) {
    case ElementType::I8:
      return WireType{CollectiveType::kS8};
    case ElementType::U8:
      return WireType{CollectiveType::kU8};
    case ElementType::I32:
      return WireType{CollectiveType::kS32};
    case ElementType::U32:
      return WireType{CollectiveType::kU32};
    case ElementType::I64:
      return WireType{CollectiveType::kS64};
    case ElementType::U64:
      return WireType{CollectiveType::kU64};
    case ElementType::F16:
      return WireType{CollectiveType::kF16};
    case ElementType::BF16:
      return WireType{CollectiveType::kBF16};
    case ElementType::F32:
      return WireType{CollectiveType::kF32};
    case ElementType::F64:
      return WireType{CollectiveType::kF64};
    case ElementType::F8E4M3FN:
      return WireType{CollectiveType::kF8E4M3FN};
    case ElementType::F8E5M2:
      return WireType{CollectiveType::kF8E5M2};
    // Complex values as (re, im) pairs: what moves is the same bytes, and a
    // complex sum is the sum of each part.
    case ElementType::C64:
      return WireType{CollectiveType::kF32, 2};
    case ElementType::C128:
      return WireType{CollectiveType::kF64, 2};
    // Pred is one byte holding 0 or 1: its and/or are u8 min/max (the pass
    // leaves only those), and moving it moves bytes.
    case ElementType::PRED:
      return WireType{CollectiveType::kU8};
    default:
      break;
  }
  // Other one-byte types (2- and 4-bit integers, narrow floats NCCL lacks)
  // move as their bytes; the pass widened any that a reduction reads.
  if (!reduces && ir::storageBytes(element) == 1) return WireType{CollectiveType::kU8};
  return std::nullopt;
}

runtime::CollectiveGroupMode modeOf(passes::GroupMode mode) {
  switch (mode) {
    case passes::GroupMode::kCrossReplica:
      return runtime::CollectiveGroupMode::kCrossReplica;
    case passes::GroupMode::kCrossPartition:
      return runtime::CollectiveGroupMode::kCrossPartition;
    case passes::GroupMode::kCrossReplicaAndPartition:
      return runtime::CollectiveGroupMode::kCrossReplicaAndPartition;
    case passes::GroupMode::kFlattenedIds:
      return runtime::CollectiveGroupMode::kFlattenedIds;
  }
  return runtime::CollectiveGroupMode::kCrossReplica;
}

std::optional<runtime::CollectiveReduction> reductionOf(OpKind kind) {
  switch (kind) {
    case OpKind::Add:
      return runtime::CollectiveReduction::kSum;
    case OpKind::Multiply:
      return runtime::CollectiveReduction::kProd;
    case OpKind::Minimum:
      return runtime::CollectiveReduction::kMin;
    case OpKind::Maximum:
      return runtime::CollectiveReduction::kMax;
    default:
      return std::nullopt;
  }
}

const char* dimensionAttr(OpKind kind) {
  switch (kind) {
    case OpKind::AllGather:
      return "all_gather_dim";
    case OpKind::ReduceScatter:
      return "scatter_dimension";
    default:
      return nullptr;
  }
}

StatusOr<CollectiveCall> participantId(const ir::Module& module, const ir::Op& op) {
  if (!op.operands.empty() || op.results.size() != 1)
    return passes::collectiveError(module, op, "takes no operand and gives one tensor");
  const ir::Type& type = module.typeOf(op.results[0]);
  if (!type.isTensor() || type.rank() != 0 || !ir::isInteger(type.element) ||
      ir::storageBytes(type.element) != 4)
    return passes::collectiveError(
        module, op,
        "gives " + type.str() + ", not a 32-bit integer scalar (tensor<ui32>)");
  CollectiveCall call;
  call.participant_id = true;
  call.partition = op.kind == OpKind::PartitionId;
  call.output = op.results[0];
  return call;
}

StatusOr<CollectiveCall> collective(const ir::Module& module, const ir::Op& op,
                                    const passes::ParticipantGrid& grid) {
  auto notCanonical = [&](const std::string& why) {
    return passes::collectiveError(
        module, op,
        why +
            " (the collectives pass leaves one operand, the op's "
            "dimension first and an NCCL element type)");
  };
  if (op.operands.size() != 1 || op.results.size() != 1)
    return notCanonical("has " + std::to_string(op.operands.size()) + " operands and " +
                        std::to_string(op.results.size()) + " results");
  const ir::Type& in = module.typeOf(op.operands[0]);
  const ir::Type& out = module.typeOf(op.results[0]);
  if (!in.isTensor() || !out.isTensor())
    return notCanonical("reads or gives something other than a tensor");
  for (const char* name :
       {dimensionAttr(op.kind), op.kind == OpKind::AllToAll ? "split_dimension" : nullptr,
        op.kind == OpKind::AllToAll ? "concat_dimension" : nullptr}) {
    if (name == nullptr) continue;
    const auto* dim = ir::findAttrAs<int64_t>(op.attrs, name);
    if (dim == nullptr || *dim != 0 || in.rank() == 0)
      return notCanonical(std::string(name) + " is not 0");
  }
  CollectiveCall call;
  call.desc.kind = *kindOf(op.kind);
  const bool reduces = runtime::collectiveReduces(call.desc.kind);
  if (reduces) {
    JFT_ASSIGN_OR_RETURN(passes::RegionReduction region,
                         passes::regionReductionOf(module, op));
    std::optional<runtime::CollectiveReduction> reduction = reductionOf(region.op);
    if (!reduction || region.element != in.element ||
        (ir::isPred(in.element) && *reduction != runtime::CollectiveReduction::kMin &&
         *reduction != runtime::CollectiveReduction::kMax) ||
        (ir::isComplex(in.element) && *reduction != runtime::CollectiveReduction::kSum))
      return notCanonical("its region (" + std::string(ir::opKindName(region.op)) +
                          " of " + std::string(ir::elementTypeName(region.element)) +
                          ") has no NCCL reduction on " + in.str());
    call.desc.reduction = *reduction;
  }
  std::optional<WireType> wire = wireTypeOf(in.element, reduces);
  if (!wire) return notCanonical(in.str() + " has no NCCL type");
  call.desc.type = wire->type;
  call.desc.count = in.numElements() * wire->per_element;

  JFT_ASSIGN_OR_RETURN(passes::CollectiveGroupsForm groups,
                       passes::collectiveGroupsOf(module, op, grid));
  call.groups.mode = modeOf(groups.mode);
  call.groups.groups = groups.groups;
  call.groups.pairs = groups.pairs;
  // Each participant resolves ranks (and a permute's pairs as ranks) again;
  // here they are the group size the attributes imply, for the checks
  // below and the report. Uneven all_reduce groups: the first one's.
  call.desc.ranks = groups.ranks > 0
                        ? groups.ranks
                        : static_cast<int64_t>(groups.groups.front().size()) *
                              (groups.mode == passes::GroupMode::kCrossReplicaAndPartition
                                   ? grid.partitions
                                   : 1);
  call.desc.pairs = groups.pairs;
  if (op.kind == OpKind::AllToAll) {
    const auto* count = ir::findAttrAs<int64_t>(op.attrs, "split_count");
    if (count == nullptr || *count != call.desc.ranks || groups.ranks < 1)
      return passes::collectiveError(
          module, op,
          "split_count is not its group size, " + std::to_string(call.desc.ranks));
  }
  if ((op.kind == OpKind::AllGather || op.kind == OpKind::ReduceScatter) &&
      groups.ranks < 1)
    return passes::collectiveError(module, op, "its replica_groups differ in size");
  JFT_RETURN_IF_ERROR(runtime::validateCollective(call.desc).withContext(
      passes::groupModeName(groups.mode) + std::string(" groups: ")));
  // The result's type fixes the output size: it must be the description's.
  const uint64_t bytes = runtime::collectiveOutputBytes(call.desc);
  if (out.element != in.element || static_cast<uint64_t>(out.byteSize()) != bytes)
    return passes::collectiveError(
        module, op,
        "gives " + out.str() + " from " + in.str() + ", but " +
            runtime::collectiveText(call.desc) + " (" + groupModeName(groups.mode) +
            ") writes " +
            std::to_string(runtime::collectiveOutputCount(call.desc) /
                           wire->per_element) +
            " elements");
  call.input = op.operands[0];
  call.output = op.results[0];
  return call;
}

std::string groupsText(const runtime::CollectiveGroups& groups) {
  std::string text;
  for (size_t r = 0; r < groups.groups.size(); ++r) {
    text += r ? ", [" : "[";
    for (size_t c = 0; c < groups.groups[r].size(); ++c)
      text += (c ? ", " : "") + std::to_string(groups.groups[r][c]);
    text += "]";
  }
  return groups.groups.empty() ? "all" : "[" + text + "]";
}

const char* modeName(runtime::CollectiveGroupMode mode) {
  switch (mode) {
    case runtime::CollectiveGroupMode::kCrossReplica:
      return "cross_replica";
    case runtime::CollectiveGroupMode::kCrossPartition:
      return "cross_partition";
    case runtime::CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross_replica_and_partition";
    case runtime::CollectiveGroupMode::kFlattenedIds:
      return "flattened_ids";
  }
  return "?";
}

}  // namespace

StatusOr<CollectiveCall> lowerCollectiveGroup(const ir::Module& module,
                                              const ir::Function& scope,
                                              const fusion::Plan& plan, size_t g,
                                              const passes::ParticipantGrid& grid) {
  const fusion::Fusion& group = plan.fusions[g];
  const ir::Op* op = nullptr;
  for (size_t index : group.ops) {
    if (index >= scope.body.ops.size())
      return internalError(group.name + " names an op outside its region");
    if (!isCollectiveRouteOp(scope.body.ops[index].kind)) continue;
    if (op != nullptr) return internalError(group.name + " holds two collectives");
    op = &scope.body.ops[index];
  }
  if (op == nullptr)
    return internalError(group.name + " is a collective group without a collective");
  StatusOr<CollectiveCall> call =
      op->kind == OpKind::ReplicaId || op->kind == OpKind::PartitionId
          ? participantId(module, *op)
          : collective(module, *op, grid);
  if (call.isOk()) call->fusion = g;
  return call;
}

std::string collectiveCallText(const CollectiveCall& call) {
  if (call.participant_id) return call.partition ? "partition_id" : "replica_id";
  std::string text =
      runtime::collectiveText(call.desc) + ", " + modeName(call.groups.mode);
  if (call.desc.kind != runtime::CollectiveKind::kCollectivePermute)
    text += " " + groupsText(call.groups);
  return text;
}

}  // namespace jft::codegen::library
