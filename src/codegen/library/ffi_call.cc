#include "codegen/library/ffi_call.h"

#include <cstring>

#include "codegen/library/scratch_kernel.h"
#include "ir/custom_call.h"

namespace jft::codegen::library {
namespace {

// xla::PrimitiveType numbers of our element types; INVALID for those FFI
// has none for.
XLA_FFI_DataType ffiType(ir::ElementType e) {
  using E = ir::ElementType;
  switch (e) {
    case E::PRED:
      return XLA_FFI_DataType_PRED;
    case E::I8:
      return XLA_FFI_DataType_S8;
    case E::I16:
      return XLA_FFI_DataType_S16;
    case E::I32:
      return XLA_FFI_DataType_S32;
    case E::I64:
      return XLA_FFI_DataType_S64;
    case E::U8:
      return XLA_FFI_DataType_U8;
    case E::U16:
      return XLA_FFI_DataType_U16;
    case E::U32:
      return XLA_FFI_DataType_U32;
    case E::U64:
      return XLA_FFI_DataType_U64;
    case E::F16:
      return XLA_FFI_DataType_F16;
    case E::BF16:
      return XLA_FFI_DataType_BF16;
    case E::F32:
      return XLA_FFI_DataType_F32;
    case E::F64:
      return XLA_FFI_DataType_F64;
    case E::C64:
      return XLA_FFI_DataType_C64;
    case E::C128:
      return XLA_FFI_DataType_C128;
    case E::F8E5M2:
      return XLA_FFI_DataType_F8E5M2;
    case E::F8E4M3FN:
      return XLA_FFI_DataType_F8E4M3FN;
    default:
      return XLA_FFI_DataType_INVALID;
  }
}

StatusOr<ffi::BufferShape> shapeOf(const ir::Type& type, const std::string& where) {
  if (type.isToken()) return ffi::BufferShape{XLA_FFI_DataType_TOKEN, {}};
  if (!type.isTensor())
    return unimplemented(where + ": a " + type.str() +
                         " value; FFI calls take tensors and tokens only");
  const XLA_FFI_DataType dtype = ffiType(type.element);
  if (dtype == XLA_FFI_DataType_INVALID)
    return unimplemented(where + ": element type " +
                         std::string(ir::elementTypeName(type.element)) +
                         " has no XLA FFI data type we pass");
  return ffi::BufferShape{dtype, type.dims};
}

StatusOr<ffi::Attribute> convert(const ir::Attribute& a, const std::string& name) {
  if (a.is<ir::NamedAttrs>()) {
    std::vector<std::string> names;
    std::vector<ffi::Attribute> values;
    for (const auto& [key, value] : a.as<ir::NamedAttrs>()) {
      JFT_ASSIGN_OR_RETURN(ffi::Attribute converted, convert(value, key));
      names.push_back(key);
      values.push_back(std::move(converted));
    }
    return ffi::Attribute::dictionary(std::move(names), std::move(values));
  }
  if (a.is<std::string>()) return ffi::Attribute::string(a.as<std::string>());
  if (a.is<bool>()) {
    const uint8_t v = a.as<bool>() ? 1 : 0;
    return ffi::Attribute::scalar(XLA_FFI_DataType_PRED, &v, 1);
  }
  if (a.is<int64_t>()) {  // untyped: MLIR's default i64
    const int64_t v = a.as<int64_t>();
    return ffi::Attribute::scalar(XLA_FFI_DataType_S64, &v, 8);
  }
  if (a.is<double>()) {  // untyped: f64
    const double v = a.as<double>();
    return ffi::Attribute::scalar(XLA_FFI_DataType_F64, &v, 8);
  }
  if (a.is<std::vector<int64_t>>()) {
    const auto& v = a.as<std::vector<int64_t>>();
    return ffi::Attribute::array(XLA_FFI_DataType_S64, v.data(), v.size(), 8);
  }
  if (a.is<ir::DenseElements>()) {
    const ir::DenseElements& d = a.as<ir::DenseElements>();
    const XLA_FFI_DataType dtype = ffiType(d.type.element);
    if (dtype == XLA_FFI_DataType_INVALID || ffi::attributeElementBytes(dtype) == 0 ||
        static_cast<size_t>(d.elementBytes()) != ffi::attributeElementBytes(dtype))
      return unimplemented("attribute '" + name + "' of element type " +
                           std::string(ir::elementTypeName(d.type.element)) +
                           " cannot be passed to an FFI handler");
    const std::vector<uint8_t> bytes = d.expanded();
    if (d.type.rank() == 0)
      return ffi::Attribute::scalar(dtype, bytes.data(), bytes.size());
    if (d.type.rank() != 1)
      return unimplemented("attribute '" + name +
                           "': FFI array attributes are one-dimensional");
    return ffi::Attribute::array(dtype, bytes.data(),
                                 static_cast<size_t>(d.numElements()),
                                 static_cast<size_t>(d.elementBytes()));
  }
  return unimplemented("attribute '" + name +
                       "' has a kind an XLA FFI handler cannot receive (scalars, "
                       "arrays, strings and dictionaries only)");
}

// Each alias as (operand, result); the verifier has checked their types
// agree. Tuple indices beyond picking one of several results are refused.
StatusOr<std::vector<FfiCall::Alias>> aliasesOf(
    const ir::Op& op, const std::vector<ir::OutputOperandAlias>& aliases,
    const std::string& where) {
  std::vector<FfiCall::Alias> out;
  const bool by_result = op.results.size() > 1;
  for (const ir::OutputOperandAlias& alias : aliases) {
    const auto& indices = alias.output_tuple_indices;
    if (!alias.operand_tuple_indices.empty() || indices.size() > (by_result ? 1u : 0u) ||
        (by_result && indices.empty()))
      return unimplemented(where + ": an output/operand alias into a tuple element");
    const auto result = static_cast<size_t>(by_result ? indices[0] : 0);
    const auto operand = static_cast<size_t>(alias.operand_index);
    if (result >= op.results.size() || operand >= op.operands.size())
      return invalidArgument(where + ": an output/operand alias names a missing value");
    for (const FfiCall::Alias& seen : out)
      if (seen.output == result || seen.input == operand)
        return invalidArgument(where +
                               ": a value is named by two output/operand aliases");
    out.push_back({operand, result});
  }
  return out;
}

// The dims of a value of `rank` in memory order (major first) under the
// minor-to-major `layout` of `which` (operand_layouts or result_layouts) entry
// `index`; empty for row-major or no layout given.
StatusOr<std::vector<int64_t>> memoryOrder(const ir::Op& op, const char* which,
                                           size_t index, int64_t rank,
                                           const std::string& where) {
  const auto* layouts = ir::findAttrAs<ir::AttrList>(op.attrs, which);
  if (layouts == nullptr || index >= layouts->size()) return std::vector<int64_t>{};
  const ir::Attribute& a = (*layouts)[index];
  if (!a.is<std::vector<int64_t>>())
    return invalidArgument(where + ": " + which + " entry " + std::to_string(index) +
                           " is not a list of dims");
  const std::vector<int64_t>& minor_to_major = a.as<std::vector<int64_t>>();
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  bool permutation = static_cast<int64_t>(minor_to_major.size()) == rank;
  for (size_t i = 0; i < minor_to_major.size() && permutation; ++i) {
    const int64_t d = minor_to_major[i];
    permutation = d >= 0 && d < rank && !seen[static_cast<size_t>(d)];
    if (permutation) seen[static_cast<size_t>(d)] = true;
  }
  if (!permutation)
    return invalidArgument(where + ": " + which + " entry " + std::to_string(index) +
                           " is not a permutation of the " + std::to_string(rank) +
                           " dims of its value");
  std::vector<int64_t> order(minor_to_major.rbegin(), minor_to_major.rend());
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != static_cast<int64_t>(i)) return order;
  return std::vector<int64_t>{};
}

// Operand and result copies for layouts other than row-major (ffi_call.h).
Status addLayoutCopies(ir::Module& module, const fusion::Fusion& group, const ir::Op& op,
                       const std::string& where, FfiCall& call) {
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const ir::ValueId v = op.operands[i];
    JFT_ASSIGN_OR_RETURN(
        std::vector<int64_t> order,
        memoryOrder(op, "operand_layouts", i, module.typeOf(v).rank(), where));
    if (order.empty()) continue;
    ScratchKernel k(module, group, op, "operand" + std::to_string(i) + "_layout", {v});
    call.inputs[i] = k.transpose(v, order);
    k.finish(call.inputs[i], call.before);
  }
  for (size_t i = 0; i < op.results.size(); ++i) {
    const ir::ValueId v = op.results[i];
    const ir::Type type = module.typeOf(v);  // a copy: newValue moves the table
    JFT_ASSIGN_OR_RETURN(std::vector<int64_t> order,
                         memoryOrder(op, "result_layouts", i, type.rank(), where));
    if (order.empty()) continue;
    // The handler writes the result's dims in memory order; the copy puts
    // logical dim order[j] (dim j there) back in place.
    std::vector<int64_t> dims, back(order.size());
    for (size_t j = 0; j < order.size(); ++j) {
      dims.push_back(type.dims[static_cast<size_t>(order[j])]);
      back[static_cast<size_t>(order[j])] = static_cast<int64_t>(j);
    }
    const ir::ValueId written = module.newValue(ir::Type::tensor(type.element, dims));
    ScratchKernel k(module, group, op, "result" + std::to_string(i) + "_layout",
                    {written});
    k.finish(k.transpose(written, back, v), call.after);
    call.outputs[i] = written;
  }
  return Status::ok();
}

}  // namespace

StatusOr<ffi::Attribute> ffiAttributesOf(const ir::Attribute& config) {
  if (config.is<std::string>() && config.as<std::string>().empty())
    return ffi::Attribute::dictionary({}, {});
  if (!config.is<ir::NamedAttrs>())
    return invalidArgument(
        "backend_config of an XLA FFI call must be a dictionary of attributes");
  return convert(config, "backend_config");
}

StatusOr<FfiCall> lowerFfiGroup(ir::Module& module, const ir::Function& function,
                                const fusion::Plan& plan, size_t g) {
  const fusion::Fusion& group = plan.fusions[g];
  if (group.ops.size() != 1 || group.ops[0] >= function.body.ops.size())
    return internalError(group.name + ": a custom-call group holds one op");
  const ir::Op& op = function.body.ops[group.ops[0]];
  const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
  if (op.kind != ir::OpKind::CustomCall || target == nullptr)
    return internalError(group.name + ": a custom-call group's op is not a custom call");
  FfiCall call;
  call.fusion = g;
  call.thunk.target = *target;
  call.thunk.location = module.locations.describe(op.loc);
  const std::string where =
      "custom_call @" + call.thunk.target +
      (call.thunk.location.empty() ? "" : " at " + call.thunk.location);
  if (ir::findAttr(op.attrs, "called_computations") != nullptr)
    return unimplemented(where + ": called computations are not supported on FFI calls");
  if (const auto* aliases = ir::findAttrAs<std::vector<ir::OutputOperandAlias>>(
          op.attrs, "output_operand_aliases")) {
    JFT_ASSIGN_OR_RETURN(call.aliases, aliasesOf(op, *aliases, where));
  }
  for (ir::ValueId v : op.operands) {
    JFT_ASSIGN_OR_RETURN(ffi::BufferShape shape, shapeOf(module.typeOf(v), where));
    call.inputs.push_back(v);
    call.thunk.argument_shapes.push_back(std::move(shape));
  }
  for (ir::ValueId v : op.results) {
    JFT_ASSIGN_OR_RETURN(ffi::BufferShape shape, shapeOf(module.typeOf(v), where));
    call.outputs.push_back(v);
    call.thunk.result_shapes.push_back(std::move(shape));
  }
  JFT_RETURN_IF_ERROR(addLayoutCopies(module, group, op, where, call));
  const ir::NamedAttrs empty;
  if (const ir::NamedAttrs* config = ir::typedFfiConfig(op, empty)) {
    StatusOr<ffi::Attribute> attrs = ffiAttributesOf(ir::Attribute(*config));
    if (!attrs.isOk()) return attrs.status().withContext(where);
    call.thunk.attributes = std::move(attrs).value();
  } else if (const ir::Attribute* config = ir::findAttr(op.attrs, "backend_config")) {
    StatusOr<ffi::Attribute> attrs = ffiAttributesOf(*config);
    if (!attrs.isOk()) return attrs.status().withContext(where);
    call.thunk.attributes = std::move(attrs).value();
  }
  return call;
}

std::string ffiCallText(const FfiCall& call) {
  std::string text = "ffi @" + call.thunk.target +
                     " args=" + std::to_string(call.inputs.size()) +
                     " results=" + std::to_string(call.outputs.size());
  for (const FfiCall::Alias& alias : call.aliases)
    text +=
        " in_place=" + std::to_string(alias.input) + "->" + std::to_string(alias.output);
  if (!call.before.empty() || !call.after.empty())
    text += " layout_copies=" + std::to_string(call.before.size() + call.after.size());
  if (!call.thunk.attributes.names.empty()) {
    text += " attrs=";
    for (size_t i = 0; i < call.thunk.attributes.names.size(); ++i)
      text += (i ? "," : "") + call.thunk.attributes.names[i];
  }
  return text;
}

}  // namespace jft::codegen::library
