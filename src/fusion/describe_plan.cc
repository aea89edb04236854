#include "fusion/fusion.h"
#include "fusion/value_names.h"

namespace jft::fusion {
namespace {

template <typename T, typename Print>
std::string list(const std::vector<T>& items, Print print) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + print(items[i]);
  return out + "]";
}

}  // namespace

std::string describePlan(const ir::Module& module, const ir::Region& region,
                         const Plan& plan) {
  (void)module;
  const ValueNames names(region);
  auto index = [](size_t i) { return std::to_string(i); };
  std::string out;
  for (const Fusion& f : plan.fusions) {
    out += f.name + " " + routeName(f.route) + "/" + familyName(f.family) +
           " ops=" + list(f.ops, index) + " in=" + list(f.inputs, names) +
           " out=" + list(f.outputs, names) + "\n";
  }
  for (const UnsupportedOp& u : plan.unsupported) {
    out += "unsupported op " + std::to_string(u.op) + " " + u.what;
    if (!u.location.empty()) out += " at " + u.location;
    out += ": " + u.reason + "\n";
  }
  return out;
}

std::string describePlan(const ir::Module& module, const ir::Function& function,
                         const Plan& plan) {
  return describePlan(module, function.body, plan);
}

}  // namespace jft::fusion
