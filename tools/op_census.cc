#include "op_census.h"

#include <algorithm>
#include <map>

namespace jft::tools {
namespace {

void countRegion(const ir::Region& region, std::map<std::string_view, OpKindUse>& uses) {
  for (const ir::Op& op : region.ops) {
    auto [it, inserted] =
        uses.try_emplace(ir::opKindName(op.kind), OpKindUse{op.kind, 0, op.loc});
    ++it->second.count;
    for (const ir::Region& nested : op.regions) countRegion(nested, uses);
  }
}

std::string padRight(std::string s, size_t width) {
  if (s.size() < width) s.resize(width, ' ');
  return s;
}

std::string padLeft(const std::string& s, size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

}  // namespace

std::vector<OpKindUse> takeOpCensus(const ir::Module& module) {
  // Keyed by name so the table comes out in name order.
  std::map<std::string_view, OpKindUse> uses;
  for (const ir::Function& f : module.functions) countRegion(f.body, uses);
  std::vector<OpKindUse> out;
  for (const auto& [name, use] : uses) out.push_back(use);
  return out;
}

std::string formatOpCensus(const ir::Module& module,
                           const std::vector<OpKindUse>& census) {
  int64_t total = 0;
  size_t name_width = 4;
  for (const OpKindUse& use : census) {
    total += use.count;
    name_width = std::max(name_width, ir::opKindName(use.kind).size());
  }
  std::string out = "op census: " + std::to_string(census.size()) + " kinds, " +
                    std::to_string(total) + " ops\n";
  out +=
      "  " + padRight("kind", name_width) + "  " + padLeft("count", 5) + "  first use\n";
  for (const OpKindUse& use : census) {
    out += "  " + padRight(std::string(ir::opKindName(use.kind)), name_width) + "  " +
           padLeft(std::to_string(use.count), 5) + "  " +
           module.locations.describe(use.first_loc) + "\n";
  }
  return out;
}

}  // namespace jft::tools
