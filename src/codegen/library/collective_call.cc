// Collective-route groups as collective and participant id thunks
// (collective_call.h).
#include "codegen/library/collective_call.h"

#include <optional>

#include "support/enum_table.h"

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

constexpr EnumMapping<OpKind, CollectiveKind> kCollectiveKinds[] = {
    {OpKind::AllReduce, CollectiveKind::kAllReduce},
    {OpKind::AllGather, CollectiveKind::kAllGather},
    {OpKind::ReduceScatter, CollectiveKind::kReduceScatter},
    {OpKind::AllToAll, CollectiveKind::kAllToAll},
    {OpKind::CollectivePermute, CollectiveKind::kCollectivePermute},
    {OpKind::CollectiveBroadcast, CollectiveKind::kCollectiveBroadcast},
};

// The NCCL type an element travels as, and how many of them one element is.
struct WireType {
  CollectiveType type = CollectiveType::kF32;
  int64_t per_element = 1;
};

// clang-format off
constexpr EnumMapping<ElementType, WireType> kWireTypes[] = {
    {ElementType::I8, {CollectiveType::kS8}}, {ElementType::U8, {CollectiveType::kU8}},
    {ElementType::I32, {CollectiveType::kS32}}, {ElementType::U32, {CollectiveType::kU32}},
    {ElementType::I64, {CollectiveType::kS64}}, {ElementType::U64, {CollectiveType::kU64}},
    {ElementType::F16, {CollectiveType::kF16}}, {ElementType::BF16, {CollectiveType::kBF16}},
    {ElementType::F32, {CollectiveType::kF32}}, {ElementType::F64, {CollectiveType::kF64}},
    {ElementType::F8E4M3FN, {CollectiveType::kF8E4M3FN}},
    {ElementType::F8E5M2, {CollectiveType::kF8E5M2}},
    // Complex values as (re, im) pairs: what moves is the same bytes, and a
    // complex sum is the sum of each part.
    {ElementType::C64, {CollectiveType::kF32, 2}},
    {ElementType::C128, {CollectiveType::kF64, 2}},
    // Pred is one byte holding 0 or 1: its and/or are u8 min/max (the pass
    // leaves only those), and moving it moves bytes.
    {ElementType::PRED, {CollectiveType::kU8}},
};
// clang-format on

std::optional<WireType> wireTypeOf(ElementType element, bool reduces) {
  if (std::optional<WireType> wire = mapOf(kWireTypes, element)) return wire;
  // Other one-byte types (2- and 4-bit integers, narrow floats NCCL lacks)
  // move as their bytes; the pass widened any that a reduction reads.
  if (!reduces && ir::storageBytes(element) == 1) return WireType{CollectiveType::kU8};
  return std::nullopt;
}

constexpr EnumMapping<passes::GroupMode, runtime::CollectiveGroupMode> kGroupModes[] = {
    {passes::GroupMode::kCrossReplica, runtime::CollectiveGroupMode::kCrossReplica},
    {passes::GroupMode::kCrossPartition, runtime::CollectiveGroupMode::kCrossPartition},
    {passes::GroupMode::kCrossReplicaAndPartition,
     runtime::CollectiveGroupMode::kCrossReplicaAndPartition},
    {passes::GroupMode::kFlattenedIds, runtime::CollectiveGroupMode::kFlattenedIds},
};

constexpr EnumMapping<OpKind, runtime::CollectiveReduction> kReductions[] = {
    {OpKind::Add, runtime::CollectiveReduction::kSum},
    {OpKind::Multiply, runtime::CollectiveReduction::kProd},
    {OpKind::Minimum, runtime::CollectiveReduction::kMin},
    {OpKind::Maximum, runtime::CollectiveReduction::kMax},
};

// The attribute naming the dimension a collective gathers or scatters along.
constexpr EnumName<OpKind> kDimensionAttrs[] = {
    {OpKind::AllGather, "all_gather_dim"},
    {OpKind::ReduceScatter, "scatter_dimension"},
};

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
  for (const char* name : {nameOf(kDimensionAttrs, op.kind, nullptr),
                           op.kind == OpKind::AllToAll ? "split_dimension" : nullptr,
                           op.kind == OpKind::AllToAll ? "concat_dimension" : nullptr}) {
    if (name == nullptr) continue;
    const auto* dim = ir::findAttrAs<int64_t>(op.attrs, name);
    if (dim == nullptr || *dim != 0 || in.rank() == 0)
      return notCanonical(std::string(name) + " is not 0");
  }
  CollectiveCall call;
  call.desc.kind = *mapOf(kCollectiveKinds, op.kind);
  const bool reduces = runtime::collectiveReduces(call.desc.kind);
  if (reduces) {
    JFT_ASSIGN_OR_RETURN(passes::RegionReduction region,
                         passes::regionReductionOf(module, op));
    std::optional<runtime::CollectiveReduction> reduction = mapOf(kReductions, region.op);
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
  call.groups.mode =
      mapOf(kGroupModes, groups.mode, runtime::CollectiveGroupMode::kCrossReplica);
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
  std::string text = runtime::collectiveText(call.desc) + ", " +
                     runtime::collectiveGroupModeName(call.groups.mode);
  if (call.desc.kind != runtime::CollectiveKind::kCollectivePermute)
    text += " " + groupsText(call.groups);
  return text;
}

}  // namespace jft::codegen::library
