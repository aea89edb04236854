#include "passes/unused_functions.h"

#include <set>
#include <string>
#include <vector>

namespace jft::passes {
namespace {

void collectSymbols(const ir::Attribute& attr, std::vector<std::string>& names) {
  if (const auto* symbol = std::get_if<ir::SymbolRef>(&attr.value)) {
    names.push_back(symbol->name);
  } else if (const auto* list = std::get_if<ir::AttrList>(&attr.value)) {
    for (const ir::Attribute& element : *list) collectSymbols(element, names);
  } else if (const auto* dict = std::get_if<ir::NamedAttrs>(&attr.value)) {
    for (const auto& [name, value] : *dict) collectSymbols(value, names);
  }
}

void collectSymbols(const ir::Region& region, std::vector<std::string>& names) {
  for (const ir::Op& op : region.ops) {
    for (const auto& [name, value] : op.attrs) collectSymbols(value, names);
    for (const ir::Region& nested : op.regions) collectSymbols(nested, names);
  }
}

}  // namespace

bool removeUnusedFunctions(ir::Module& module) {
  std::set<std::string> reached;
  std::vector<std::string> pending;
  auto reach = [&](const std::string& name) {
    if (reached.insert(name).second) pending.push_back(name);
  };
  if (const ir::Function* entry = module.entry()) reach(entry->name);
  for (const ir::Function& function : module.functions)
    if (function.is_public) reach(function.name);
  // Without a root there is no way to tell what is used: keep everything.
  if (pending.empty()) return false;
  while (!pending.empty()) {
    const std::string name = pending.back();
    pending.pop_back();
    const ir::Function* function = module.findFunction(name);
    if (!function) continue;  // a dangling symbol is the verifier's to report
    std::vector<std::string> referenced;
    collectSymbols(function->body, referenced);
    for (const std::string& callee : referenced) reach(callee);
  }
  const size_t before = module.functions.size();
  std::erase_if(module.functions, [&](const ir::Function& function) {
    return !reached.contains(function.name);
  });
  return module.functions.size() != before;
}

}  // namespace jft::passes
