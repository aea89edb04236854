#include "runtime/collective.h"

#include <set>

#include "support/enum_table.h"

namespace jft::runtime {
namespace {

// clang-format off
constexpr EnumName<CollectiveKind> kCollectiveKinds[] = {
    {CollectiveKind::kAllReduce, "all_reduce"},
    {CollectiveKind::kAllGather, "all_gather"},
    {CollectiveKind::kReduceScatter, "reduce_scatter"},
    {CollectiveKind::kAllToAll, "all_to_all"},
    {CollectiveKind::kCollectivePermute, "collective_permute"},
    {CollectiveKind::kCollectiveBroadcast, "collective_broadcast"},
};
constexpr ElementTypeRow<CollectiveType> kCollectiveTypes[] = {
    {CollectiveType::kS8, "s8", 1}, {CollectiveType::kU8, "u8", 1},
    {CollectiveType::kS32, "s32", 4}, {CollectiveType::kU32, "u32", 4},
    {CollectiveType::kS64, "s64", 8}, {CollectiveType::kU64, "u64", 8},
    {CollectiveType::kF16, "f16", 2}, {CollectiveType::kBF16, "bf16", 2},
    {CollectiveType::kF32, "f32", 4}, {CollectiveType::kF64, "f64", 8},
    {CollectiveType::kF8E4M3FN, "f8E4M3FN", 1}, {CollectiveType::kF8E5M2, "f8E5M2", 1},
};
constexpr EnumName<CollectiveReduction> kReductions[] = {
    {CollectiveReduction::kSum, "sum"}, {CollectiveReduction::kProd, "prod"},
    {CollectiveReduction::kMin, "min"}, {CollectiveReduction::kMax, "max"},
};
// clang-format on

}  // namespace

const char* collectiveKindName(CollectiveKind kind) {
  return nameOf(kCollectiveKinds, kind, "unknown collective");
}

const char* collectiveTypeName(CollectiveType type) {
  return nameOf(kCollectiveTypes, type, "unknown type");
}

const char* collectiveReductionName(CollectiveReduction reduction) {
  return nameOf(kReductions, reduction, "unknown reduction");
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
  return bytesOf(kCollectiveTypes, type, 1);
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
