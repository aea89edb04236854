#include "runtime/collective.h"

#include <set>

namespace jft::runtime {

const char* collectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kCollectivePermute:
      return "collective_permute";
    case CollectiveKind::kCollectiveBroadcast:
      return "collective_broadcast";
  }
  return "unknown collective";
}

const char* collectiveTypeName(CollectiveType type) {
  switch (type) {
    case CollectiveType::kS8:
      return "s8";
    case CollectiveType::kU8:
      return "u8";
    case CollectiveType::kS32:
      return "s32";
    case CollectiveType::kU32:
      return "u32";
    case CollectiveType::kS64:
      return "s64";
    case CollectiveType::kU64:
      return "u64";
    case CollectiveType::kF16:
      return "f16";
    case CollectiveType::kBF16:
      return "bf16";
    case CollectiveType::kF32:
      return "f32";
    case CollectiveType::kF64:
      return "f64";
    case CollectiveType::kF8E4M3FN:
      return "f8E4M3FN";
    case CollectiveType::kF8E5M2:
      return "f8E5M2";
  }
  return "unknown type";
}

const char* collectiveReductionName(CollectiveReduction reduction) {
  switch (reduction) {
    case CollectiveReduction::kSum:
      return "sum";
    case CollectiveReduction::kProd:
      return "prod";
    case CollectiveReduction::kMin:
      return "min";
    case CollectiveReduction::kMax:
      return "max";
  }
  return "unknown reduction";
}

bool collectiveReduces(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

std::string collectiveText(const CollectiveDesc& d) {
  std::string text = collectiveKindName(d.kind);
  if (collectiveReduces(d.kind))
    text += std::string(" ") + collectiveReductionName(d.reduction);
  text += std::string(" ") + collectiveTypeName(d.type) + " x" + std::to_string(d.count) +
          " over " + std::to_string(d.ranks) + (d.ranks == 1 ? " rank" : " ranks");
  if (d.kind == CollectiveKind::kCollectivePermute || !d.pairs.empty()) {
    text += " pairs {";
    for (size_t i = 0; i < d.pairs.size(); ++i) {
      if (i > 0) text += ", ";
      text += std::to_string(d.pairs[i].first) + "->" + std::to_string(d.pairs[i].second);
    }
    text += "}";
  }
  return text;
}

Status validateCollective(const CollectiveDesc& d) {
  auto bad = [&](const std::string& why) {
    return invalidArgument("invalid collective " + collectiveText(d) + ": " + why);
  };
  if (d.ranks < 1) return bad("it needs at least one rank");
  if (d.count < 0) return bad("the element count is negative");
  if ((d.kind == CollectiveKind::kReduceScatter || d.kind == CollectiveKind::kAllToAll) &&
      d.count % d.ranks != 0)
    return bad("the element count is not divisible by the number of ranks");
  if (d.kind != CollectiveKind::kCollectivePermute) {
    if (!d.pairs.empty()) return bad("only collective_permute takes source-target pairs");
    return Status::ok();
  }
  std::set<int64_t> sources, targets;
  for (const auto& [source, target] : d.pairs) {
    const std::string pair = std::to_string(source) + "->" + std::to_string(target);
    if (source < 0 || source >= d.ranks || target < 0 || target >= d.ranks)
      return bad("pair " + pair + " names a rank outside [0, " + std::to_string(d.ranks) +
                 ")");
    if (!sources.insert(source).second)
      return bad("rank " + std::to_string(source) + " is the source of two pairs");
    if (!targets.insert(target).second)
      return bad("rank " + std::to_string(target) + " is the target of two pairs");
  }
  return Status::ok();
}

bool collectiveIsEmpty(const CollectiveDesc& d) {
  return d.count == 0;
}

int64_t collectiveElementBytes(CollectiveType type) {
  switch (type) {
    case CollectiveType::kS8:
    case CollectiveType::kU8:
    case CollectiveType::kF8E4M3FN:
    case CollectiveType::kF8E5M2:
      return 1;
    case CollectiveType::kF16:
    case CollectiveType::kBF16:
      return 2;
    case CollectiveType::kS32:
    case CollectiveType::kU32:
    case CollectiveType::kF32:
      return 4;
    case CollectiveType::kS64:
    case CollectiveType::kU64:
    case CollectiveType::kF64:
      return 8;
  }
  return 1;
}

int64_t collectiveInputCount(const CollectiveDesc& d) {
  return d.count;
}

int64_t collectiveOutputCount(const CollectiveDesc& d) {
  switch (d.kind) {
    case CollectiveKind::kAllGather:
      return d.count * d.ranks;
    case CollectiveKind::kReduceScatter:
      return d.ranks > 0 ? d.count / d.ranks : 0;
    default:
      return d.count;
  }
}

uint64_t collectiveInputBytes(const CollectiveDesc& d) {
  return static_cast<uint64_t>(collectiveInputCount(d)) *
         static_cast<uint64_t>(collectiveElementBytes(d.type));
}

uint64_t collectiveOutputBytes(const CollectiveDesc& d) {
  return static_cast<uint64_t>(collectiveOutputCount(d)) *
         static_cast<uint64_t>(collectiveElementBytes(d.type));
}

int64_t permuteTargetOf(const CollectiveDesc& d, int64_t rank) {
  for (const auto& [source, target] : d.pairs)
    if (source == rank) return target;
  return -1;
}

int64_t permuteSourceOf(const CollectiveDesc& d, int64_t rank) {
  for (const auto& [source, target] : d.pairs)
    if (target == rank) return source;
  return -1;
}

}  // namespace jft::runtime
