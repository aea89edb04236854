// mhlo.layout_mode on the entry function: parsing and the transposes.
#include "compiler/entry_layouts.h"

#include <string>

#include "ir/attribute.h"

namespace jft::compiler {
namespace {

constexpr const char* kLayoutMode = "mhlo.layout_mode";

bool digit(char c) {
  return c >= '0' && c <= '9';
}

// Major-to-minor order of a minor-to-major list.
std::vector<int64_t> majorToMinor(const MinorToMajor& minor_to_major) {
  return {minor_to_major.rbegin(), minor_to_major.rend()};
}

// The physical shape: the logical dims major to minor.
ir::Type physicalType(const ir::Type& logical, const MinorToMajor& minor_to_major) {
  std::vector<int64_t> dims;
  for (int64_t d : majorToMinor(minor_to_major))
    dims.push_back(logical.dims[static_cast<size_t>(d)]);
  return ir::Type::tensor(logical.element, std::move(dims));
}

std::vector<int64_t> inverse(const std::vector<int64_t>& permutation) {
  std::vector<int64_t> out(permutation.size());
  for (size_t i = 0; i < permutation.size(); ++i)
    out[static_cast<size_t>(permutation[i])] = static_cast<int64_t>(i);
  return out;
}

ir::Op transposeOp(ir::ValueId operand, ir::ValueId result,
                   std::vector<int64_t> permutation, ir::LocId loc) {
  ir::Op op;
  op.kind = ir::OpKind::Transpose;
  op.operands = {operand};
  op.results = {result};
  op.attrs = {{"permutation", std::move(permutation)}};
  op.loc = loc;
  return op;
}

// The layout the attributes of one entry value ask for; `what` names the
// value in errors ("parameter 2").
StatusOr<std::optional<MinorToMajor>> requested(const ir::NamedAttrs& attrs,
                                                const ir::Type& type,
                                                const std::string& what) {
  const auto* mode = ir::findAttrAs<std::string>(attrs, kLayoutMode);
  if (mode == nullptr) return std::optional<MinorToMajor>();
  if (!type.isTensor()) return std::optional<MinorToMajor>();
  StatusOr<std::optional<MinorToMajor>> parsed =
      parseLayoutMode(*mode, static_cast<int64_t>(type.dims.size()));
  if (!parsed.isOk())
    return Status(parsed.status().code(),
                  what + " (" + type.str() + "): " + parsed.status().message());
  return parsed;
}

}  // namespace

MinorToMajor rowMajor(size_t rank) {
  MinorToMajor out;
  for (size_t d = rank; d > 0; --d) out.push_back(static_cast<int64_t>(d - 1));
  return out;
}

std::string layoutText(const MinorToMajor& minor_to_major) {
  std::string text = "{";
  for (size_t i = 0; i < minor_to_major.size(); ++i)
    text += (i == 0 ? "" : ",") + std::to_string(minor_to_major[i]);
  return text + "}";
}

StatusOr<std::optional<MinorToMajor>> parseLayoutMode(std::string_view text,
                                                      int64_t rank) {
  if (text.empty() || text == "default" || text == "auto")
    return std::optional<MinorToMajor>();
  const std::string quoted = "layout_mode '" + std::string(text) + "'";
  if (text.front() != '{' || text.back() != '}')
    return invalidArgument(quoted +
                           " is neither 'default', 'auto' nor a layout such as "
                           "'{1,0}'");
  const std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.find(':') != std::string_view::npos)
    return unimplemented(quoted +
                         ": tiled layouts, memory spaces and element sizes are not "
                         "supported; ask for a dense layout (a permutation of the dims)");
  MinorToMajor dims;
  size_t at = 0;
  while (at < inner.size()) {
    size_t end = at;
    while (end < inner.size() && digit(inner[end])) ++end;
    if (end == at || end - at > 9)
      return invalidArgument(quoted + ": expected a dim number at offset " +
                             std::to_string(at + 1));
    dims.push_back(std::stoll(std::string(inner.substr(at, end - at))));
    if (end < inner.size() && inner[end] != ',')
      return invalidArgument(quoted + ": expected ',' at offset " +
                             std::to_string(end + 1));
    at = end + 1;
  }
  if (static_cast<int64_t>(dims.size()) != rank)
    return invalidArgument(quoted + " lists " + std::to_string(dims.size()) +
                           " dims for a value of rank " + std::to_string(rank));
  std::vector<bool> seen(dims.size(), false);
  for (int64_t d : dims) {
    if (d >= rank || seen[static_cast<size_t>(d)])
      return invalidArgument(quoted + " is not a permutation of the dims 0.." +
                             std::to_string(rank - 1));
    seen[static_cast<size_t>(d)] = true;
  }
  if (dims == rowMajor(dims.size())) return std::optional<MinorToMajor>();
  return std::optional<MinorToMajor>(std::move(dims));
}

StatusOr<EntryLayouts> applyEntryLayouts(ir::Module& module, ir::Function& function) {
  EntryLayouts layouts;
  ir::Region& body = function.body;
  const size_t params = body.args.size();
  const size_t results = function.result_types.size();
  layouts.parameters.resize(params);
  layouts.outputs.resize(results);
  for (ir::ValueId arg : body.args) layouts.parameter_types.push_back(module.typeOf(arg));
  layouts.output_types = function.result_types;

  std::vector<ir::Op> prologue;
  for (size_t i = 0; i < params; ++i) {
    const ir::NamedAttrs none;
    const ir::NamedAttrs& attrs =
        i < function.arg_attrs.size() ? function.arg_attrs[i] : none;
    JFT_ASSIGN_OR_RETURN(
        std::optional<MinorToMajor> layout,
        requested(attrs, layouts.parameter_types[i], "parameter " + std::to_string(i)));
    if (!layout) continue;
    // The old argument value keeps its logical type and its uses; it is now
    // the transpose of a new argument holding the physical shape.
    const ir::ValueId logical = body.args[i];
    const ir::ValueId physical =
        module.newValue(physicalType(layouts.parameter_types[i], *layout));
    body.args[i] = physical;
    prologue.push_back(
        transposeOp(physical, logical, inverse(majorToMinor(*layout)), function.loc));
    layouts.parameters[i] = std::move(*layout);
  }

  if (body.ops.empty() || body.ops.back().kind != ir::OpKind::Return)
    return invalidArgument("the entry function @" + function.name +
                           " does not end in a return");
  std::vector<ir::Op> epilogue;
  for (size_t i = 0; i < results; ++i) {
    const ir::NamedAttrs none;
    const ir::NamedAttrs& attrs =
        i < function.result_attrs.size() ? function.result_attrs[i] : none;
    JFT_ASSIGN_OR_RETURN(
        std::optional<MinorToMajor> layout,
        requested(attrs, layouts.output_types[i], "result " + std::to_string(i)));
    if (!layout) continue;
    const ir::Type physical = physicalType(layouts.output_types[i], *layout);
    const ir::ValueId transposed = module.newValue(physical);
    ir::ValueId& returned = body.ops.back().operands.at(i);
    epilogue.push_back(
        transposeOp(returned, transposed, majorToMinor(*layout), body.ops.back().loc));
    returned = transposed;
    function.result_types[i] = physical;
    layouts.outputs[i] = std::move(*layout);
  }
  body.ops.insert(body.ops.end() - 1, epilogue.begin(), epilogue.end());
  body.ops.insert(body.ops.begin(), prologue.begin(), prologue.end());
  return layouts;
}

}  // namespace jft::compiler
