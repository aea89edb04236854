// The fully manual program's body becomes @main.
#include "frontend/sdy/localize_manual.h"

#include <algorithm>
#include <map>
#include <set>

namespace jft::frontend::sdy {
namespace {

using frontend::MAttr;
using frontend::MAttrPtr;
using frontend::MOp;
using frontend::MType;
using frontend::MTypePtr;

// ("x", 2) for each `"x"=2` in a mesh's text; names alone (size 0) for a
// list of axes such as manual_axes' `{"x", "y"}`.
std::map<std::string, int64_t> quotedAxes(const std::string& text) {
  std::map<std::string, int64_t> axes;
  size_t at = 0;
  while ((at = text.find('"', at)) != std::string::npos) {
    size_t end = text.find('"', at + 1);
    if (end == std::string::npos) break;
    std::string name = text.substr(at + 1, end - at - 1);
    int64_t size = 0;
    if (end + 1 < text.size() && text[end + 1] == '=') {
      size_t digits = end + 2;
      while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
        size = size * 10 + (text[digits] - '0');
        ++digits;
      }
    }
    axes[name] = size;
    at = end + 1;
  }
  return axes;
}

bool isCast(const MOp& op) {
  return op.name == "builtin.unrealized_conversion_cast";
}

// The per-value attribute dictionaries without their sharding entries.
MAttrPtr withoutShardings(const MAttrPtr& perValue) {
  if (perValue == nullptr || perValue->kind != MAttr::Kind::Array) return perValue;
  auto out = std::make_shared<MAttr>(*perValue);
  for (MAttrPtr& element : out->elements) {
    if (element == nullptr || element->kind != MAttr::Kind::Dictionary) continue;
    auto dict = std::make_shared<MAttr>(*element);
    std::erase_if(dict->entries,
                  [](const auto& entry) { return namesSharding(entry.first); });
    element = dict;
  }
  return out;
}

}  // namespace

bool namesSharding(std::string_view key) {
  return key.find("sharding") != std::string_view::npos;
}

bool localizeFullyManual(frontend::MTree& tree, std::string& whyNot) {
  if (tree.top.size() != 1 || tree.top[0].name != "builtin.module" ||
      tree.top[0].regions.size() != 1 || tree.top[0].regions[0].blocks.size() != 1) {
    whyNot = "the program is not one module";
    return false;
  }
  std::vector<MOp>& moduleOps = tree.top[0].regions[0].blocks[0].ops;

  std::map<std::string, int64_t> mesh;
  MOp* main = nullptr;
  for (MOp& op : moduleOps) {
    if (op.name == "sdy.mesh") {
      const MAttr* attr = op.attr("mesh");
      if (attr == nullptr || attr->str.empty()) {
        whyNot = "its sdy.mesh is held only as bytes";
        return false;
      }
      for (const auto& [name, size] : quotedAxes(attr->str)) mesh[name] = size;
    }
    const MAttr* symbol = op.attr("sym_name");
    if (op.name == "vhlo.func_v1" && symbol != nullptr && symbol->str == "main")
      main = &op;
  }
  if (main == nullptr || main->regions.size() != 1 ||
      main->regions[0].blocks.size() != 1) {
    whyNot = "it has no @main with one block";
    return false;
  }
  frontend::MBlock& body = main->regions[0].blocks[0];

  // The block: casts, one manual computation, casts, the return.
  std::map<uint32_t, const MOp*> producers;
  MOp* manual = nullptr;
  for (MOp& op : body.ops) {
    for (uint32_t result : op.results) producers[result] = &op;
    if (op.name == "sdy.manual_computation") {
      if (manual != nullptr) {
        whyNot = "@main holds more than one sdy.manual_computation";
        return false;
      }
      manual = &op;
    } else if (!isCast(op) && &op != &body.ops.back()) {
      whyNot = "@main computes outside its sdy.manual_computation (" + op.name + ")";
      return false;
    }
  }
  if (manual == nullptr) {
    whyNot = "@main holds no sdy.manual_computation";
    return false;
  }
  const MOp& ret = body.ops.back();
  if (ret.name != "vhlo.return_v1") {
    whyNot = "@main does not end in vhlo.return_v1";
    return false;
  }

  // Every mesh axis that splits anything must be manual.
  const MAttr* manualAxes = manual->attr("manual_axes");
  if (manualAxes == nullptr || manualAxes->str.empty()) {
    whyNot = "its manual_axes are missing or held only as bytes";
    return false;
  }
  std::map<std::string, int64_t> manualNames = quotedAxes(manualAxes->str);
  for (const auto& [name, size] : mesh) {
    if (size != 1 && manualNames.count(name) == 0) {
      whyNot = "mesh axis \"" + name + "\" is not manual (a partitioner's job)";
      return false;
    }
  }

  // Arguments go straight in, in order; results come straight out, in order.
  auto traced = [&](uint32_t value) {
    for (auto found = producers.find(value);
         found != producers.end() && isCast(*found->second) &&
         found->second->operands.size() == 1;
         found = producers.find(value))
      value = found->second->operands[0];
    return value;
  };
  if (manual->operands.size() != body.args.size()) {
    whyNot = "@main's arguments do not all go straight into the manual computation";
    return false;
  }
  for (size_t i = 0; i < body.args.size(); ++i) {
    if (traced(manual->operands[i]) != body.args[i]) {
      whyNot = "argument " + std::to_string(i) + " of @main is not operand " +
               std::to_string(i) + " of the manual computation";
      return false;
    }
  }
  if (ret.operands.size() != manual->results.size()) {
    whyNot = "@main does not return exactly the manual computation's results";
    return false;
  }
  for (size_t i = 0; i < ret.operands.size(); ++i) {
    if (traced(ret.operands[i]) != manual->results[i]) {
      whyNot = "result " + std::to_string(i) + " of @main is not result " +
               std::to_string(i) + " of the manual computation";
      return false;
    }
  }

  if (manual->regions.size() != 1 || manual->regions[0].blocks.size() != 1 ||
      manual->regions[0].blocks[0].ops.empty() ||
      manual->regions[0].blocks[0].ops.back().name != "sdy.return") {
    whyNot = "the manual computation's body is not one block ending in sdy.return";
    return false;
  }
  frontend::MBlock inner = std::move(manual->regions[0].blocks[0]);
  MOp innerReturn = std::move(inner.ops.back());
  inner.ops.pop_back();

  // The per-device result types: what sdy.return returns.
  std::map<uint32_t, MTypePtr> types;
  for (size_t i = 0; i < inner.args.size() && i < inner.arg_types.size(); ++i)
    types[inner.args[i]] = inner.arg_types[i];
  for (const MOp& op : inner.ops) {
    for (size_t r = 0; r < op.results.size() && r < op.result_types.size(); ++r)
      types[op.results[r]] = op.result_types[r];
  }
  auto functionType = std::make_shared<MType>();
  functionType->kind = MType::Kind::Function;
  functionType->dialect = "builtin";
  functionType->elements = inner.arg_types;
  functionType->num_inputs = inner.arg_types.size();
  for (uint32_t value : innerReturn.operands) {
    auto found = types.find(value);
    if (found == types.end() || found->second == nullptr) {
      // Restore what was moved out: the tree must stay as it was.
      inner.ops.push_back(std::move(innerReturn));
      manual->regions[0].blocks[0] = std::move(inner);
      whyNot = "the manual computation returns a value it does not define";
      return false;
    }
    functionType->elements.push_back(found->second);
  }
  auto typeAttr = std::make_shared<MAttr>();
  typeAttr->kind = MAttr::Kind::TypeAttr;
  typeAttr->type = functionType;

  MOp newReturn;
  newReturn.name = "vhlo.return_v1";
  newReturn.loc = innerReturn.loc;
  newReturn.operands = innerReturn.operands;
  inner.ops.push_back(std::move(newReturn));

  for (auto& [name, attr] : main->attrs) {
    if (name == "function_type") attr = typeAttr;
    if (name == "arg_attrs" || name == "res_attrs") attr = withoutShardings(attr);
  }
  body = std::move(inner);
  return true;
}

}  // namespace jft::frontend::sdy
