#include "value_numbering.h"

namespace jft::conformance {
namespace {

struct Counters {
  int ops = 0, blocks = 0;
};

void numberTextRegion(const TextRegion& region, Counters& counters,
                      std::map<std::string, DefKey>& defs) {
  int block = counters.blocks++;
  for (size_t i = 0; i < region.args.size(); ++i)
    defs[region.args[i].name] = DefKey{true, block, static_cast<int>(i)};
  for (const TextOp& op : region.ops) {
    int ordinal = counters.ops++;
    for (size_t i = 0; i < op.results.size(); ++i)
      defs[op.results[i]] = DefKey{false, ordinal, static_cast<int>(i)};
    for (const TextRegion& nested : op.regions) numberTextRegion(nested, counters, defs);
  }
}

void numberIrRegion(const ir::Region& region, Counters& counters,
                    std::unordered_map<ir::ValueId, DefKey>& defs) {
  int block = counters.blocks++;
  for (size_t i = 0; i < region.args.size(); ++i)
    defs[region.args[i]] = DefKey{true, block, static_cast<int>(i)};
  for (const ir::Op& op : region.ops) {
    int ordinal = counters.ops++;
    for (size_t i = 0; i < op.results.size(); ++i)
      defs[op.results[i]] = DefKey{false, ordinal, static_cast<int>(i)};
    for (const ir::Region& nested : op.regions) numberIrRegion(nested, counters, defs);
  }
}

}  // namespace

std::string describeDef(const DefKey& key) {
  if (key.owner < 0) return "an undefined value";
  if (key.is_block_arg)
    return "argument " + std::to_string(key.index) + " of block " +
           std::to_string(key.owner);
  return "result " + std::to_string(key.index) + " of op " + std::to_string(key.owner);
}

std::map<std::string, DefKey> numberTextFunction(const TextOp& function) {
  std::map<std::string, DefKey> defs;
  Counters counters;
  if (!function.regions.empty()) numberTextRegion(function.regions[0], counters, defs);
  return defs;
}

const DefKey* findTextDef(const std::map<std::string, DefKey>& defs,
                          const std::string& name) {
  auto it = defs.find(name);
  if (it == defs.end() && name.ends_with("#0"))
    it = defs.find(name.substr(0, name.size() - 2));
  return it == defs.end() ? nullptr : &it->second;
}

std::unordered_map<ir::ValueId, DefKey> numberIrFunction(const ir::Function& function) {
  std::unordered_map<ir::ValueId, DefKey> defs;
  Counters counters;
  numberIrRegion(function.body, counters, defs);
  return defs;
}

}  // namespace jft::conformance
