#include "passes/op_equivalence.h"

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace jft::passes {
namespace {

// Literals longer than this are hashed by the elements in their first bytes only.
constexpr int64_t kHashedLiteralBytes = 64;

void mix(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

std::vector<const std::pair<std::string, ir::Attribute>*> sortedByName(
    const ir::NamedAttrs& attrs) {
  std::vector<const std::pair<std::string, ir::Attribute>*> sorted;
  for (const auto& entry : attrs) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  return sorted;
}

bool sameAttributes(const ir::NamedAttrs& a, const ir::NamedAttrs& b) {
  if (a.size() != b.size()) return false;
  auto sorted_a = sortedByName(a), sorted_b = sortedByName(b);
  for (size_t i = 0; i < sorted_a.size(); ++i)
    if (*sorted_a[i] != *sorted_b[i]) return false;
  return true;
}

bool sameResultTypes(const ir::Module& module, const ir::Op& a, const ir::Op& b) {
  if (a.results.size() != b.results.size()) return false;
  for (size_t i = 0; i < a.results.size(); ++i)
    if (module.typeOf(a.results[i]) != module.typeOf(b.results[i])) return false;
  return true;
}

// Compares ops of two regions, renaming values the second region defines to
// the first's.
class RegionMatcher {
 public:
  explicit RegionMatcher(const ir::Module& module) : module_(module) {}

  bool ops(const ir::Op& a, const ir::Op& b) {
    if (a.kind != b.kind || a.operands.size() != b.operands.size() ||
        a.regions.size() != b.regions.size() || !sameResultTypes(module_, a, b) ||
        !sameAttributes(a.attrs, b.attrs))
      return false;
    for (size_t i = 0; i < a.operands.size(); ++i)
      if (renamed(b.operands[i]) != a.operands[i]) return false;
    for (size_t i = 0; i < a.regions.size(); ++i)
      if (!regions(a.regions[i], b.regions[i])) return false;
    for (size_t i = 0; i < a.results.size(); ++i) renaming_[b.results[i]] = a.results[i];
    return true;
  }

 private:
  bool regions(const ir::Region& a, const ir::Region& b) {
    if (a.args.size() != b.args.size() || a.ops.size() != b.ops.size()) return false;
    for (size_t i = 0; i < a.args.size(); ++i) {
      if (module_.typeOf(a.args[i]) != module_.typeOf(b.args[i])) return false;
      renaming_[b.args[i]] = a.args[i];
    }
    for (size_t i = 0; i < a.ops.size(); ++i)
      if (!ops(a.ops[i], b.ops[i])) return false;
    return true;
  }

  ir::ValueId renamed(ir::ValueId value) const {
    auto it = renaming_.find(value);
    return it == renaming_.end() ? value : it->second;
  }

  const ir::Module& module_;
  std::unordered_map<ir::ValueId, ir::ValueId> renaming_;  // lookups only
};

size_t attributeHash(const ir::Attribute& attr) {
  size_t seed = attr.value.index();
  const auto* literal = std::get_if<ir::DenseElements>(&attr.value);
  if (!literal) return seed;
  if (!literal->wellFormed()) {
    mix(seed, literal->bytes.size());
    return seed;
  }
  // By elements, not storage: a splat equals the literal that spells its
  // element out, so both must hash alike.
  mix(seed, static_cast<size_t>(literal->numElements()));
  const int64_t hashed =
      std::max<int64_t>(1, kHashedLiteralBytes / literal->elementBytes());
  const int64_t n = std::min(literal->numElements(), hashed);
  for (int64_t i = 0; i < n; ++i)
    for (uint8_t byte : literal->element(i)) mix(seed, byte);
  return seed;
}

}  // namespace

bool equivalentOps(const ir::Module& module, const ir::Op& a, const ir::Op& b) {
  return RegionMatcher(module).ops(a, b);
}

size_t opHash(const ir::Module& module, const ir::Op& op) {
  size_t seed = static_cast<size_t>(op.kind);
  for (ir::ValueId operand : op.operands) mix(seed, operand);
  for (ir::ValueId result : op.results)
    mix(seed, std::hash<std::string>()(module.typeOf(result).str()));
  for (const auto* entry : sortedByName(op.attrs)) {
    mix(seed, std::hash<std::string>()(entry->first));
    mix(seed, attributeHash(entry->second));
  }
  mix(seed, op.regions.size());
  return seed;
}

}  // namespace jft::passes
