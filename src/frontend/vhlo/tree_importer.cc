#include "frontend/vhlo/tree_importer.h"

#include <set>

#include "frontend/vhlo/attr_convert.h"
#include "frontend/vhlo/op_attrs.h"
#include "frontend/vhlo/types.h"

namespace jft::frontend::vhlo {
namespace {

// Regions nested deeper than this (while in while in ...) are malformed.
constexpr int kMaxRegionDepth = 200;
// A program claiming more values than this is malformed, not large.
constexpr uint32_t kMaxValues = uint32_t{1} << 27;

std::string plural(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// "2 operands", "1 region", "at least 1 operand".
std::string describeCount(Count count, const char* noun) {
  std::string n = std::to_string(count.min);
  if (count.max == Count::kUnbounded) return "at least " + plural(count.min, noun);
  if (count.min == count.max) return plural(count.min, noun);
  return n + " to " + plural(count.max, noun);
}

bool isFunctionOp(std::string_view name) {
  return name == "vhlo.func_v1";
}

// The serializer wraps ops of other dialects (Shardy) in casts between VHLO
// and builtin types; on one device a sharding constraint or reshard is the
// identity.
bool isTransparentOp(std::string_view name) {
  return name == "builtin.unrealized_conversion_cast" ||
         name == "sdy.sharding_constraint" || name == "sdy.reshard";
}

}  // namespace

TreeImporter::TreeImporter(const MTree& tree)
    : tree_(tree), locations_(module_.locations) {}

OpSite TreeImporter::siteOf(const MOp& op, ir::LocId* loc_out) {
  ir::LocId loc = locations_.import(op.loc.get());
  if (loc_out) *loc_out = loc;
  return OpSite{op.name, locations_.where(loc)};
}

StatusOr<ir::Module> TreeImporter::run() {
  if (tree_.num_values > kMaxValues)
    return invalidArgument("program claims " + std::to_string(tree_.num_values) +
                           " values, more than the importer accepts");
  values_.assign(tree_.num_values, kUndefined);
  const MOp* module = nullptr;
  for (const MOp& op : tree_.top) {
    if (op.name != "builtin.module" || module)
      return invalidArgument("expected one builtin.module at the top level, found " +
                             op.name);
    module = &op;
  }
  if (!module) return invalidArgument("the program holds no builtin.module");
  JFT_RETURN_IF_ERROR(importModule(*module));
  return std::move(module_);
}

Status TreeImporter::importModule(const MOp& module) {
  const OpSite site = siteOf(module);
  for (const auto& [name, attr] : module.attrs) {
    if (name == "sym_name") {
      JFT_ASSIGN_OR_RETURN(module_.name, readString(attr.get(), name, site));
      continue;
    }
    if (name == "sym_visibility") continue;
    JFT_ASSIGN_OR_RETURN(ir::Attribute converted, convertGeneric(attr.get(), name, site));
    module_.attrs.emplace_back(name, std::move(converted));
  }
  if (module.regions.size() != 1 || module.regions[0].blocks.size() > 1)
    return site.invalid("a module must have one region of at most one block");
  if (module.regions[0].blocks.empty()) return Status::ok();

  std::set<std::string> names;
  for (const MOp& op : module.regions[0].blocks[0].ops) {
    if (isFunctionOp(op.name)) {
      JFT_RETURN_IF_ERROR(importFunction(op, siteOf(op)));
      if (!names.insert(module_.functions.back().name).second)
        return siteOf(op).invalid("function @" + module_.functions.back().name +
                                  " is defined twice");
      continue;
    }
    if (op.name.starts_with("vhlo."))
      return siteOf(op).invalid("only functions may appear at module level");
    // Module-level ops of other dialects without regions (sdy.mesh, ...)
    // carry no computation; their attributes are kept on the module for
    // reference. Anything with a body (func.func, ...) would be lost.
    const OpSite foreign = siteOf(op);
    if (!op.regions.empty()) return foreign.notSupported();
    ir::NamedAttrs attrs;
    for (const auto& [name, attr] : op.attrs) {
      JFT_ASSIGN_OR_RETURN(ir::Attribute converted,
                           convertGeneric(attr.get(), name, foreign));
      attrs.emplace_back(name, std::move(converted));
    }
    module_.attrs.emplace_back(op.name, std::move(attrs));
  }
  return Status::ok();
}

Status TreeImporter::importFunction(const MOp& func, const OpSite& site) {
  ir::Function fn;
  fn.loc = locations_.import(func.loc.get());
  JFT_ASSIGN_OR_RETURN(fn.name, readSymbol(func.attr("sym_name"), "sym_name", site));
  const OpSite fn_site{site.op + " @" + fn.name, site.where};

  fn.is_public = true;  // MLIR's default visibility
  if (const MAttr* visibility = func.attr("sym_visibility")) {
    JFT_ASSIGN_OR_RETURN(std::string v,
                         readString(visibility, "sym_visibility", fn_site));
    if (v != "" && v != "public" && v != "private" && v != "nested")
      return fn_site.invalid("unknown visibility '" + v + "'");
    fn.is_public = v == "" || v == "public";
  }

  const MAttr* type_attr = func.attr("function_type");
  if (!type_attr || type_attr->kind != MAttr::Kind::TypeAttr || !type_attr->type ||
      type_attr->type->kind != MType::Kind::Function ||
      type_attr->type->num_inputs > type_attr->type->elements.size())
    return fn_site.invalid("attribute 'function_type' must be a function type");
  const MType& fn_type = *type_attr->type;
  std::vector<ir::Type> input_types;
  for (size_t i = 0; i < fn_type.elements.size(); ++i) {
    JFT_ASSIGN_OR_RETURN(ir::Type t, convertType(fn_type.elements[i].get(), fn_site));
    (i < fn_type.num_inputs ? input_types : fn.result_types).push_back(std::move(t));
  }

  auto perValueAttrs = [&](std::string_view key,
                           size_t count) -> StatusOr<std::vector<ir::NamedAttrs>> {
    std::vector<ir::NamedAttrs> lists(count);
    const MAttr* attr = func.attr(key);
    if (!attr) return lists;
    if (attr->kind != MAttr::Kind::Array)
      return fn_site.invalid("attribute '" + std::string(key) + "' must be an array");
    if (attr->elements.empty()) return lists;
    if (attr->elements.size() != count)
      return fn_site.invalid("attribute '" + std::string(key) + "' has " +
                             std::to_string(attr->elements.size()) + " entries for " +
                             std::to_string(count) + " values");
    for (size_t i = 0; i < count; ++i) {
      JFT_ASSIGN_OR_RETURN(lists[i], readDict(attr->elements[i].get(), key, fn_site));
    }
    return lists;
  };
  JFT_ASSIGN_OR_RETURN(fn.arg_attrs, perValueAttrs("arg_attrs", input_types.size()));
  JFT_ASSIGN_OR_RETURN(fn.result_attrs,
                       perValueAttrs("res_attrs", fn.result_types.size()));

  if (func.regions.size() != 1 || func.regions[0].blocks.empty())
    return fn_site.unimplemented("functions without a body are not supported");
  JFT_ASSIGN_OR_RETURN(fn.body, importRegion(func.regions[0], fn_site, 0));

  if (fn.body.args.size() != input_types.size())
    return fn_site.invalid("the body takes " + plural(fn.body.args.size(), "argument") +
                           " but the function type has " +
                           std::to_string(input_types.size()));
  for (size_t i = 0; i < input_types.size(); ++i)
    if (module_.typeOf(fn.body.args[i]) != input_types[i])
      return fn_site.invalid("argument " + std::to_string(i) + " has type " +
                             module_.typeOf(fn.body.args[i]).str() +
                             " but the function type says " + input_types[i].str());
  const ir::Op& ret = fn.body.ops.back();
  if (ret.operands.size() != fn.result_types.size())
    return fn_site.invalid("returns " + plural(ret.operands.size(), "value") +
                           " but the function type has " +
                           std::to_string(fn.result_types.size()));
  for (size_t i = 0; i < ret.operands.size(); ++i)
    if (module_.typeOf(ret.operands[i]) != fn.result_types[i])
      return fn_site.invalid("result " + std::to_string(i) + " has type " +
                             module_.typeOf(ret.operands[i]).str() +
                             " but the function type says " + fn.result_types[i].str());
  module_.functions.push_back(std::move(fn));
  return Status::ok();
}

StatusOr<ir::Region> TreeImporter::importRegion(const MRegion& region,
                                                const OpSite& owner, int depth) {
  if (depth > kMaxRegionDepth) return owner.invalid("regions are nested too deeply");
  if (region.blocks.size() != 1)
    return owner.invalid("a region must have exactly one block, got " +
                         std::to_string(region.blocks.size()));
  const MBlock& block = region.blocks[0];
  if (block.args.size() != block.arg_types.size())
    return owner.invalid("block arguments and their types differ in number");

  const size_t scope_mark = scope_.size();
  ir::Region out;
  for (size_t i = 0; i < block.args.size(); ++i) {
    JFT_ASSIGN_OR_RETURN(ir::ValueId arg,
                         define(block.args[i], block.arg_types[i], owner));
    out.args.push_back(arg);
  }
  for (const MOp& op : block.ops) {
    JFT_ASSIGN_OR_RETURN(bool forwarded, forwardTransparentOp(op));
    if (forwarded) continue;
    JFT_ASSIGN_OR_RETURN(ir::Op imported, importOp(op, depth));
    out.ops.push_back(std::move(imported));
  }
  if (out.ops.empty() || out.ops.back().kind != ir::OpKind::Return)
    return owner.invalid("a region must end in vhlo.return_v1");

  for (size_t i = scope_mark; i < scope_.size(); ++i) values_[scope_[i]] = kOutOfScope;
  scope_.resize(scope_mark);
  return out;
}

Status TreeImporter::checkCounts(const MOp& op, const VhloOpInfo& info,
                                 const OpSite& site) const {
  if (!info.operands.admits(op.operands.size()))
    return site.invalid("expects " + describeCount(info.operands, "operand") + ", got " +
                        std::to_string(op.operands.size()));
  if (!info.results.admits(op.results.size()))
    return site.invalid("expects " + describeCount(info.results, "result") + ", got " +
                        std::to_string(op.results.size()));
  if (!info.regions.admits(op.regions.size()))
    return site.invalid("expects " + describeCount(info.regions, "region") + ", got " +
                        std::to_string(op.regions.size()));
  if (op.result_types.size() != op.results.size())
    return site.invalid("has " + plural(op.results.size(), "result") + " but " +
                        plural(op.result_types.size(), "result type"));
  if (!op.successors.empty())
    return site.invalid("ops with successors are not supported");
  const size_t n = op.operands.size();
  if (info.operand_shape == OperandShape::PairedInputsAndInits && n % 2 != 0)
    return site.invalid("expects as many init values as inputs, got " +
                        plural(n, "operand") + " in all");
  if (info.operand_shape == OperandShape::ScatterGroups && n % 2 != 1)
    return site.invalid(
        "expects inputs, one index tensor and as many updates as "
        "inputs, got " +
        plural(n, "operand") + " in all");
  return Status::ok();
}

StatusOr<ir::Op> TreeImporter::importOp(const MOp& op, int depth) {
  ir::Op out;
  const OpSite site = siteOf(op, &out.loc);
  const VhloOpInfo* info = findVhloOp(op.name);
  if (info && isFunctionOp(info->name))
    return site.invalid("functions may only appear at module level");
  if (!info || !info->kind) return site.notSupported();
  out.kind = *info->kind;
  JFT_RETURN_IF_ERROR(checkCounts(op, *info, site));

  for (uint32_t id : op.operands) {
    JFT_ASSIGN_OR_RETURN(ir::ValueId v, use(id, site));
    out.operands.push_back(v);
  }
  JFT_ASSIGN_OR_RETURN(out.attrs, importOpAttrs(op, *info, site));
  // Regions come before results: an op's regions cannot see its results.
  for (const MRegion& region : op.regions) {
    JFT_ASSIGN_OR_RETURN(ir::Region r, importRegion(region, site, depth + 1));
    out.regions.push_back(std::move(r));
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    JFT_ASSIGN_OR_RETURN(ir::ValueId v, define(op.results[i], op.result_types[i], site));
    out.results.push_back(v);
  }
  return out;
}

StatusOr<bool> TreeImporter::forwardTransparentOp(const MOp& op) {
  if (!isTransparentOp(op.name)) return false;
  const OpSite site = siteOf(op);
  if (op.operands.size() != 1 || op.results.size() != 1 || op.result_types.size() != 1 ||
      !op.regions.empty())
    return site.invalid("expects one operand, one result and no region");
  JFT_ASSIGN_OR_RETURN(ir::ValueId value, use(op.operands[0], site));
  JFT_ASSIGN_OR_RETURN(ir::Type type, convertType(op.result_types[0].get(), site));
  if (type != module_.typeOf(value))
    return site.unimplemented("changes the type from " + module_.typeOf(value).str() +
                              " to " + type.str() + ", which is not supported");
  const uint32_t result = op.results[0];
  if (result >= values_.size() || values_[result] != kUndefined)
    return site.invalid("result %" + std::to_string(result) +
                        " is out of range or defined twice");
  values_[result] = value;
  scope_.push_back(result);
  return true;
}

StatusOr<ir::ValueId> TreeImporter::use(uint32_t tree_id, const OpSite& site) const {
  if (tree_id >= values_.size())
    return site.invalid("operand %" + std::to_string(tree_id) + " is beyond the " +
                        std::to_string(values_.size()) + " values of the program");
  switch (values_[tree_id]) {
    case kUndefined:
      return site.invalid("operand %" + std::to_string(tree_id) +
                          " is used before it is defined");
    case kOutOfScope:
      return site.invalid("operand %" + std::to_string(tree_id) +
                          " is used outside the region that defines it");
    default:
      return values_[tree_id];
  }
}

StatusOr<ir::ValueId> TreeImporter::define(uint32_t tree_id, const MTypePtr& type,
                                           const OpSite& site) {
  if (tree_id >= values_.size())
    return site.invalid("value %" + std::to_string(tree_id) + " is beyond the " +
                        std::to_string(values_.size()) + " values of the program");
  if (values_[tree_id] != kUndefined)
    return site.invalid("value %" + std::to_string(tree_id) + " is defined twice");
  JFT_ASSIGN_OR_RETURN(ir::Type t, convertType(type.get(), site));
  ir::ValueId v = module_.newValue(std::move(t));
  values_[tree_id] = v;
  scope_.push_back(tree_id);
  return v;
}

}  // namespace jft::frontend::vhlo
