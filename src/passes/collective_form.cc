// Process groups and reduction regions of collectives (collective_form.h).
#include "passes/collective_form.h"

#include <algorithm>

#include "passes/literal_elements.h"
#include "support/enum_table.h"

namespace jft::passes {

bool isCollective(ir::OpKind kind) {
  return isOneOf(kind,
                 {ir::OpKind::AllReduce, ir::OpKind::AllGather, ir::OpKind::ReduceScatter,
                  ir::OpKind::AllToAll, ir::OpKind::CollectivePermute,
                  ir::OpKind::CollectiveBroadcast, ir::OpKind::CrossReplicaSum});
}
namespace {

using ir::OpKind;

std::string describe(const ir::Module& module, const ir::Op& op) {
  return std::string(ir::opKindName(op.kind)) + " at " +
         module.locations.describe(op.loc) + ": ";
}

int64_t channelId(const ir::Op& op) {
  if (const auto* handle = ir::findAttrAs<ir::ChannelHandle>(op.attrs, "channel_handle"))
    return handle->handle;
  if (const auto* id = ir::findAttrAs<int64_t>(op.attrs, "channel_id")) return *id;
  return 0;
}

bool flag(const ir::Op& op, const char* name) {
  const ir::Attribute* attr = ir::findAttr(op.attrs, name);
  if (attr == nullptr) return false;
  if (attr->is<bool>()) return attr->as<bool>();
  return attr->is<ir::UnitAttr>();
}

std::string rowsText(const std::vector<std::vector<int64_t>>& rows) {
  std::string text = "[";
  for (size_t r = 0; r < rows.size(); ++r) {
    text += r ? ", [" : "[";
    for (size_t c = 0; c < rows[r].size(); ++c)
      text += (c ? ", " : "") + std::to_string(rows[r][c]);
    text += "]";
  }
  return text + "]";
}

// The rows of the 2-d integer literal `name`, with padding kept; no rows
// when absent or empty.
StatusOr<std::vector<std::vector<int64_t>>> matrix(const ir::Module& module,
                                                   const ir::Op& op, const char* name) {
  std::vector<std::vector<int64_t>> rows;
  const ir::Attribute* attr = ir::findAttr(op.attrs, name);
  if (attr == nullptr) return rows;
  const auto* literal = ir::findAttrAs<ir::DenseElements>(op.attrs, name);
  if (literal == nullptr || literal->type.rank() != 2 ||
      !ir::isInteger(literal->type.element) || !literal->wellFormed())
    return collectiveError(module, op,
                           std::string(name) +
                               " is not a 2-d integer literal (the mesh-axes form is "
                               "not read)");
  const int64_t cols = literal->type.dims[1];
  for (int64_t r = 0; r < literal->type.dims[0] && cols > 0; ++r) {
    rows.emplace_back();
    for (int64_t c = 0; c < cols; ++c)
      rows.back().push_back(elementInteger(*literal, r * cols + c));
  }
  return rows;
}

// The ids a mode's groups name: [0, range).
int64_t idRange(GroupMode mode, const ParticipantGrid& grid) {
  switch (mode) {
    case GroupMode::kCrossReplica:
    case GroupMode::kCrossReplicaAndPartition:
      return grid.replicas;
    case GroupMode::kCrossPartition:
      return grid.partitions;
    case GroupMode::kFlattenedIds:
      return grid.participants();
  }
  return 0;
}

const char* idName(GroupMode mode) {
  switch (mode) {
    case GroupMode::kCrossPartition:
      return "partition";
    case GroupMode::kFlattenedIds:
      return "flattened id";
    default:
      return "replica";
  }
}

StatusOr<GroupMode> modeOf(const ir::Module& module, const ir::Op& op) {
  const bool channel = channelId(op) > 0;
  switch (op.kind) {
    case OpKind::AllReduce:
    case OpKind::AllGather:
    case OpKind::ReduceScatter: {
      const bool global = flag(op, "use_global_device_ids");
      if (global && !channel)
        return collectiveError(module, op,
                               "use_global_device_ids needs a positive channel_id");
      if (!channel) return GroupMode::kCrossReplica;
      return global ? GroupMode::kFlattenedIds : GroupMode::kCrossReplicaAndPartition;
    }
    case OpKind::AllToAll:
    case OpKind::CollectiveBroadcast:
    case OpKind::CollectivePermute:
      return channel ? GroupMode::kCrossPartition : GroupMode::kCrossReplica;
    case OpKind::CrossReplicaSum:
      return GroupMode::kCrossReplica;
    default:
      return internalError("collectiveGroupsOf: " + std::string(ir::opKindName(op.kind)) +
                           " is not a collective");
  }
}

Status checkPairs(const ir::Module& module, const ir::Op& op,
                  const std::vector<std::vector<int64_t>>& rows, int64_t range,
                  CollectiveGroupsForm& form) {
  std::vector<bool> source(static_cast<size_t>(range)), target(source);
  for (const std::vector<int64_t>& row : rows) {
    if (row.size() != 2)
      return collectiveError(module, op,
                             "source_target_pairs " + rowsText(rows) + " are not pairs");
    for (int64_t id : row)
      if (id < 0 || id >= range)
        return collectiveError(module, op,
                               "source_target_pairs " + rowsText(rows) + " name " +
                                   idName(form.mode) + " " + std::to_string(id) +
                                   ", outside [0, " + std::to_string(range) + ")");
    if (source[static_cast<size_t>(row[0])] || target[static_cast<size_t>(row[1])])
      return collectiveError(
          module, op,
          "source_target_pairs " + rowsText(rows) + " name a source or a target twice");
    source[static_cast<size_t>(row[0])] = target[static_cast<size_t>(row[1])] = true;
    form.pairs.push_back({row[0], row[1]});
  }
  form.ranks = range;
  return Status::ok();
}

}  // namespace

const char* groupModeName(GroupMode mode) {
  switch (mode) {
    case GroupMode::kCrossReplica:
      return "cross_replica";
    case GroupMode::kCrossPartition:
      return "cross_partition";
    case GroupMode::kCrossReplicaAndPartition:
      return "cross_replica_and_partition";
    case GroupMode::kFlattenedIds:
      return "flattened_ids";
  }
  return "?";
}

Status collectiveError(const ir::Module& module, const ir::Op& op,
                       const std::string& why) {
  return invalidArgument(describe(module, op) + why);
}

Status collectiveUnsupported(const ir::Module& module, const ir::Op& op,
                             const std::string& why) {
  return unimplemented(describe(module, op) + why);
}

StatusOr<int64_t> collectiveIntAttr(const ir::Module& module, const ir::Op& op,
                                    const char* name) {
  const auto* value = ir::findAttrAs<int64_t>(op.attrs, name);
  if (value == nullptr) return collectiveError(module, op, std::string("has no ") + name);
  return *value;
}

StatusOr<CollectiveGroupsForm> collectiveGroupsOf(const ir::Module& module,
                                                  const ir::Op& op,
                                                  const ParticipantGrid& grid) {
  CollectiveGroupsForm form;
  JFT_ASSIGN_OR_RETURN(form.mode, modeOf(module, op));
  const int64_t range = idRange(form.mode, grid);
  if (op.kind == OpKind::CollectivePermute) {
    if (ir::findAttr(op.attrs, "source_target_pairs") == nullptr)
      return collectiveError(module, op, "has no source_target_pairs");
    JFT_ASSIGN_OR_RETURN(auto rows, matrix(module, op, "source_target_pairs"));
    JFT_RETURN_IF_ERROR(checkPairs(module, op, rows, range, form));
    return form;
  }
  JFT_ASSIGN_OR_RETURN(auto rows, matrix(module, op, "replica_groups"));
  const std::string named = "replica_groups " + rowsText(rows) + " (" +
                            groupModeName(form.mode) + " over " +
                            std::to_string(grid.replicas) + " replicas x " +
                            std::to_string(grid.partitions) + " partitions)";
  std::vector<bool> seen(static_cast<size_t>(range));
  for (const std::vector<int64_t>& row : rows) {
    std::vector<int64_t> group;
    for (int64_t id : row) {
      if (id == kReplicaGroupPadding) continue;
      if (id < 0 || id >= range)
        return collectiveError(module, op,
                               named + " name " + idName(form.mode) + " " +
                                   std::to_string(id) + ", outside [0, " +
                                   std::to_string(range) + ")");
      if (seen[static_cast<size_t>(id)])
        return collectiveError(
            module, op,
            named + " name " + idName(form.mode) + " " + std::to_string(id) + " twice");
      seen[static_cast<size_t>(id)] = true;
      group.push_back(id);
    }
    if (group.empty())
      return collectiveError(module, op, named + " hold a group of padding only");
    form.groups.push_back(std::move(group));
  }
  if (!form.groups.empty()) {
    auto missing = std::find(seen.begin(), seen.end(), false);
    if (missing != seen.end())
      return collectiveError(module, op,
                             named + " leave out " + idName(form.mode) + " " +
                                 std::to_string(missing - seen.begin()) +
                                 " (every id must be in one group)");
  }
  // Processes per group: a cross_replica_and_partition group spans every
  // partition of its replicas.
  const int64_t per_id =
      form.mode == GroupMode::kCrossReplicaAndPartition ? grid.partitions : 1;
  if (form.groups.empty()) {
    form.ranks = range * per_id;
  } else {
    form.ranks = static_cast<int64_t>(form.groups[0].size()) * per_id;
    for (const std::vector<int64_t>& group : form.groups)
      if (static_cast<int64_t>(group.size()) * per_id != form.ranks) form.ranks = -1;
  }
  return form;
}

StatusOr<RegionReduction> regionReductionOf(const ir::Module& module, const ir::Op& op) {
  if (op.kind == OpKind::CrossReplicaSum) {
    if (op.operands.empty()) return collectiveError(module, op, "has no operand");
    return RegionReduction{OpKind::Add, module.typeOf(op.operands[0]).element};
  }
  if (op.regions.size() != 1)
    return collectiveError(module, op, "has no reduction region");
  const ir::Region& region = op.regions[0];
  const std::string unsupported =
      "its reduction region is not one add, multiply, minimum or maximum of its two "
      "arguments (and/or on booleans), which is all NCCL reduces with";
  if (region.args.size() != 2 || region.ops.size() != 2)
    return collectiveUnsupported(module, op, unsupported);
  const ir::Type& type = module.typeOf(region.args[0]);
  const ir::Op& body = region.ops[0];
  const ir::Op& ret = region.ops[1];
  const bool binary =
      body.operands.size() == 2 && body.results.size() == 1 &&
      ((body.operands[0] == region.args[0] && body.operands[1] == region.args[1]) ||
       (body.operands[0] == region.args[1] && body.operands[1] == region.args[0]));
  if (!type.isTensor() || type.rank() != 0 || module.typeOf(region.args[1]) != type ||
      !binary || ret.kind != OpKind::Return || ret.operands.size() != 1 ||
      ret.operands[0] != body.results[0] || module.typeOf(body.results[0]) != type)
    return collectiveUnsupported(module, op, unsupported);
  switch (body.kind) {
    case OpKind::Add:
    case OpKind::Multiply:
    case OpKind::Minimum:
    case OpKind::Maximum:
      return RegionReduction{body.kind, type.element};
    case OpKind::And:
    case OpKind::Or:
      if (ir::isPred(type.element)) return RegionReduction{body.kind, type.element};
      return collectiveUnsupported(module, op,
                                   "its reduction region is a bitwise " +
                                       std::string(ir::opKindName(body.kind)) + " of " +
                                       type.str() + ", which NCCL cannot reduce with");
    default:
      return collectiveUnsupported(
          module, op,
          unsupported + " (it computes " + std::string(ir::opKindName(body.kind)) + ")");
  }
}

}  // namespace jft::passes
