// Resolving StableHLO process groups to one participant's communicator.
#include "runtime/collective_groups.h"

#include <set>

#include "support/text.h"

namespace jft::runtime {
namespace {

bool isPermute(const CollectiveDesc& desc) {
  return desc.kind == CollectiveKind::kCollectivePermute;
}

// The kinds whose output size follows the group size need every group alike.
bool needsEvenGroups(CollectiveKind kind) {
  return kind == CollectiveKind::kAllGather || kind == CollectiveKind::kReduceScatter ||
         kind == CollectiveKind::kAllToAll;
}

// The description as the compiler left it: its ranks are not known yet.
std::string opText(const CollectiveDesc& desc) {
  std::string text = collectiveKindName(desc.kind);
  if (collectiveReduces(desc.kind))
    text += std::string(" ") + collectiveReductionName(desc.reduction);
  return text + " " + collectiveTypeName(desc.type) + " x" + intText(desc.count);
}

Status groupError(const CollectiveDesc& desc, const CollectiveGroups& groups,
                  const std::string& why) {
  return invalidArgument(opText(desc) + " with " + collectiveGroupsText(groups) + ": " +
                         why);
}

Status checkLayout(const ParticipantLayout& layout, int64_t replica, int64_t partition) {
  const std::string shape = intText(layout.replicas) + " replicas x " +
                            intText(layout.partitions) + " partitions";
  if (layout.replicas < 1 || layout.partitions < 1)
    return invalidArgument("the device assignment of " + shape + " is empty");
  int64_t devices = 0;
  if (__builtin_mul_overflow(layout.replicas, layout.partitions, &devices) ||
      static_cast<uint64_t>(devices) != layout.device_ids.size())
    return invalidArgument("the device assignment of " + shape + " lists " +
                           intText(static_cast<int64_t>(layout.device_ids.size())) +
                           " devices");
  std::set<int64_t> seen;
  for (int64_t id : layout.device_ids)
    if (!seen.insert(id).second)
      return invalidArgument("the device assignment of " + shape + " names device " +
                             intText(id) + " twice");
  if (replica < 0 || replica >= layout.replicas || partition < 0 ||
      partition >= layout.partitions)
    return invalidArgument("participant (replica " + intText(replica) + ", partition " +
                           intText(partition) + ") is outside the device assignment of " +
                           shape);
  return Status::ok();
}

// How many ids the mode's groups (or a permute's pairs) range over.
int64_t idCount(CollectiveGroupMode mode, const ParticipantLayout& layout) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return layout.replicas;
    case CollectiveGroupMode::kCrossPartition:
      return layout.partitions;
    case CollectiveGroupMode::kFlattenedIds:
      return layout.replicas * layout.partitions;
  }
  return 0;
}

int64_t deviceOf(const ParticipantLayout& layout, int64_t replica, int64_t partition) {
  return layout.device_ids[static_cast<size_t>(replica * layout.partitions + partition)];
}

StatusOr<ResolvedCollective> resolvePermute(const CollectiveDesc& desc,
                                            const CollectiveGroups& groups,
                                            const ParticipantLayout& layout,
                                            int64_t replica, int64_t partition) {
  const bool acrossReplicas = groups.mode == CollectiveGroupMode::kCrossReplica;
  const int64_t ids = idCount(groups.mode, layout);
  for (const auto& [source, target] : groups.pairs)
    if (source >= ids || target >= ids)
      return groupError(desc, groups,
                        "pair " + intText(source) + "->" + intText(target) +
                            " names an id outside [0, " + intText(ids) + ")");
  ResolvedCollective resolved;
  resolved.desc = desc;
  resolved.desc.ranks = ids;
  resolved.desc.pairs = groups.pairs;
  for (int64_t id = 0; id < ids; ++id)
    resolved.clique.push_back(acrossReplicas ? deviceOf(layout, id, partition)
                                             : deviceOf(layout, replica, id));
  resolved.rank = acrossReplicas ? replica : partition;
  return resolved;
}

// Every kind but collective_permute: the group holding this participant's id.
StatusOr<ResolvedCollective> resolveGrouped(const CollectiveDesc& desc,
                                            const CollectiveGroups& groups,
                                            const ParticipantLayout& layout,
                                            int64_t replica, int64_t partition) {
  const int64_t ids = idCount(groups.mode, layout);
  std::vector<std::vector<int64_t>> all = groups.groups;
  if (all.empty()) {
    all.emplace_back();
    for (int64_t id = 0; id < ids; ++id) all[0].push_back(id);
  }
  int64_t named = 0;
  for (const std::vector<int64_t>& group : all)
    for (int64_t id : group) {
      if (id >= ids)
        return groupError(desc, groups,
                          "id " + intText(id) + " is outside [0, " + intText(ids) + ")");
      ++named;
    }
  // The ids are distinct and in range (checkCollectiveGroups and the loop
  // above), so their number tells whether every one is named.
  if (named != ids && desc.kind != CollectiveKind::kCollectiveBroadcast)
    return groupError(
        desc, groups,
        "the groups name " + intText(named) + " of the " + intText(ids) + " ids");
  const int64_t self = groups.mode == CollectiveGroupMode::kCrossPartition ? partition
                       : groups.mode == CollectiveGroupMode::kFlattenedIds
                           ? replica * layout.partitions + partition
                           : replica;
  const std::vector<int64_t>* mine = nullptr;
  int64_t index = 0;
  for (const std::vector<int64_t>& group : all)
    for (size_t i = 0; i < group.size(); ++i)
      if (group[i] == self) {
        mine = &group;
        index = static_cast<int64_t>(i);
      }
  ResolvedCollective r;
  r.desc = desc;
  r.desc.pairs.clear();
  if (mine == nullptr) {
    // A collective_broadcast participant in no group outputs zeros: a
    // permute of one rank that nobody sends to.
    r.desc.kind = CollectiveKind::kCollectivePermute;
    r.desc.ranks = 1;
    r.clique = {deviceOf(layout, replica, partition)};
    return r;
  }
  const int64_t size = static_cast<int64_t>(mine->size());
  r.rank = index;
  switch (groups.mode) {
    case CollectiveGroupMode::kCrossReplica:
      for (int64_t id : *mine) r.clique.push_back(deviceOf(layout, id, partition));
      break;
    case CollectiveGroupMode::kCrossPartition:
      for (int64_t id : *mine) r.clique.push_back(deviceOf(layout, replica, id));
      break;
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      for (int64_t p = 0; p < layout.partitions; ++p)
        for (int64_t id : *mine) r.clique.push_back(deviceOf(layout, id, p));
      r.rank = partition * size + index;
      break;
    case CollectiveGroupMode::kFlattenedIds:
      for (int64_t id : *mine)
        r.clique.push_back(layout.device_ids[static_cast<size_t>(id)]);
      break;
  }
  r.desc.ranks = static_cast<int64_t>(r.clique.size());
  return r;
}
}  // namespace

const char* collectiveGroupModeName(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross_replica";
    case CollectiveGroupMode::kCrossPartition:
      return "cross_partition";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross_replica_and_partition";
    case CollectiveGroupMode::kFlattenedIds:
      return "flattened_ids";
  }
  return "unknown mode";
}

std::string collectiveGroupsText(const CollectiveGroups& groups) {
  std::string text = std::string(collectiveGroupModeName(groups.mode)) + " groups {";
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    text += g > 0 ? ",{" : "{";
    for (size_t i = 0; i < groups.groups[g].size(); ++i)
      text += (i > 0 ? "," : "") + intText(groups.groups[g][i]);
    text += "}";
  }
  text += "}";
  if (groups.pairs.empty()) return text;
  text += " pairs {";
  for (size_t i = 0; i < groups.pairs.size(); ++i)
    text += (i > 0 ? ", " : "") + intText(groups.pairs[i].first) + "->" +
            intText(groups.pairs[i].second);
  return text + "}";
}

Status checkCollectiveGroups(const CollectiveDesc& desc, const CollectiveGroups& groups) {
  if (static_cast<uint8_t>(groups.mode) >
      static_cast<uint8_t>(CollectiveGroupMode::kFlattenedIds))
    return groupError(desc, groups, "the group mode is unknown");
  if (isPermute(desc)) {
    if (groups.mode != CollectiveGroupMode::kCrossReplica &&
        groups.mode != CollectiveGroupMode::kCrossPartition)
      return groupError(
          desc, groups,
          "collective_permute runs across replicas or across partitions only");
    if (!groups.groups.empty())
      return groupError(desc, groups, "collective_permute takes pairs, not groups");
    std::set<int64_t> sources, targets;
    for (const auto& [source, target] : groups.pairs) {
      if (source < 0 || target < 0)
        return groupError(
            desc, groups,
            "pair " + intText(source) + "->" + intText(target) + " names a negative id");
      if (!sources.insert(source).second)
        return groupError(desc, groups,
                          "id " + intText(source) + " is the source of two pairs");
      if (!targets.insert(target).second)
        return groupError(desc, groups,
                          "id " + intText(target) + " is the target of two pairs");
    }
    return Status::ok();
  }
  if (!groups.pairs.empty())
    return groupError(desc, groups, "only collective_permute takes source-target pairs");
  std::set<int64_t> seen;
  for (size_t g = 0; g < groups.groups.size(); ++g) {
    const std::vector<int64_t>& group = groups.groups[g];
    if (group.empty())
      return groupError(desc, groups, "group " + intText(g) + " is empty");
    if (needsEvenGroups(desc.kind) && group.size() != groups.groups[0].size())
      return groupError(desc, groups,
                        "groups differ in size, and " +
                            std::string(collectiveKindName(desc.kind)) +
                            "'s result size follows the group's");
    for (int64_t id : group) {
      if (id < 0) return groupError(desc, groups, "id " + intText(id) + " is negative");
      if (!seen.insert(id).second)
        return groupError(desc, groups, "id " + intText(id) + " is in two groups");
    }
  }
  return Status::ok();
}

std::optional<std::vector<int64_t>> knownGroupSizes(const CollectiveGroups& groups) {
  if (groups.groups.empty() || !groups.pairs.empty() ||
      groups.mode == CollectiveGroupMode::kCrossReplicaAndPartition)
    return std::nullopt;
  std::vector<int64_t> sizes;
  for (const std::vector<int64_t>& group : groups.groups)
    sizes.push_back(static_cast<int64_t>(group.size()));
  return sizes;
}

StatusOr<ResolvedCollective> resolveCollective(const CollectiveDesc& desc,
                                               const CollectiveGroups& groups,
                                               const ParticipantLayout& layout,
                                               int64_t replica, int64_t partition) {
  if (Status s = checkLayout(layout, replica, partition); !s.isOk())
    return groupError(desc, groups, s.message());
  JFT_RETURN_IF_ERROR(checkCollectiveGroups(desc, groups));
  JFT_ASSIGN_OR_RETURN(ResolvedCollective resolved,
                       isPermute(desc)
                           ? resolvePermute(desc, groups, layout, replica, partition)
                           : resolveGrouped(desc, groups, layout, replica, partition));
  if (Status valid = validateCollective(resolved.desc); !valid.isOk())
    return groupError(desc, groups, valid.message());
  return resolved;
}

}  // namespace jft::runtime
