#include "ir/module.h"

namespace jft::ir {

ValueId Module::newValue(Type type) {
  value_types_.push_back(std::move(type));
  return static_cast<ValueId>(value_types_.size() - 1);
}

Function* Module::findFunction(std::string_view fn_name) {
  for (Function& f : functions)
    if (f.name == fn_name) return &f;
  return nullptr;
}

const Function* Module::findFunction(std::string_view fn_name) const {
  for (const Function& f : functions)
    if (f.name == fn_name) return &f;
  return nullptr;
}

const Function* Module::entry() const {
  if (const Function* main = findFunction("main")) return main;
  const Function* only = nullptr;
  for (const Function& f : functions) {
    if (!f.is_public) continue;
    if (only) return nullptr;
    only = &f;
  }
  return only;
}

}  // namespace jft::ir
