#include "fusion/value_names.h"

namespace jft::fusion {

ValueNames::ValueNames(const ir::Region& region) {
  nameArgs(region);
  nameOps(region);
}

std::string ValueNames::operator()(ir::ValueId id) const {
  auto it = names_.find(id);
  return it != names_.end() ? it->second : "%v" + std::to_string(id);
}

void ValueNames::nameArgs(const ir::Region& region) {
  for (ir::ValueId arg : region.args) names_[arg] = "%arg" + std::to_string(next_arg_++);
}

void ValueNames::nameOps(const ir::Region& region) {
  for (const ir::Op& op : region.ops) {
    if (!op.results.empty()) {
      const std::string base = "%" + std::to_string(next_value_++);
      if (op.results.size() == 1) {
        names_[op.results[0]] = base;
      } else {
        for (size_t i = 0; i < op.results.size(); ++i)
          names_[op.results[i]] = base + "#" + std::to_string(i);
      }
    }
    for (const ir::Region& nested : op.regions) {
      nameArgs(nested);
      nameOps(nested);
    }
  }
}

}  // namespace jft::fusion
