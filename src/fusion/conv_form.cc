// Reading a convolution's attributes (the verifier has checked their sizes).
#include "fusion/conv_form.h"

#include "fusion/scan_form.h"

namespace jft::fusion {
namespace {

std::vector<int64_t> intsOr(const ir::Op& op, std::string_view name, size_t size,
                            int64_t fill) {
  std::vector<int64_t> values = intListAttr(op.attrs, name);
  if (values.size() != size) values.assign(size, fill);
  return values;
}

std::vector<bool> boolsOr(const ir::Op& op, std::string_view name, size_t size) {
  std::vector<bool> values(size, false);
  const ir::Attribute* a = ir::findAttr(op.attrs, name);
  if (a == nullptr) return values;
  if (a->is<std::vector<bool>>() && a->as<std::vector<bool>>().size() == size)
    return a->as<std::vector<bool>>();
  if (a->is<ir::DenseElements>()) {
    const ir::DenseElements& d = a->as<ir::DenseElements>();
    const size_t bytes = static_cast<size_t>(ir::storageBytes(d.type.element));
    if (bytes == 0 || d.bytes.size() != size * bytes) return values;
    for (size_t i = 0; i < size; ++i) values[i] = d.bytes[i * bytes] != 0;
  }
  return values;
}

}  // namespace

StatusOr<ConvForm> readConvForm(const ir::Module& module, const ir::Op& op) {
  const auto* dn =
      ir::findAttrAs<ir::ConvDimensionNumbers>(op.attrs, "dimension_numbers");
  if (op.kind != ir::OpKind::Convolution || dn == nullptr || op.operands.size() != 2 ||
      op.results.size() != 1)
    return invalidArgument(convText(module, op) + ": not a verified convolution");
  ConvForm form;
  form.dn = *dn;
  form.lhs = module.typeOf(op.operands[0]);
  form.rhs = module.typeOf(op.operands[1]);
  form.out = module.typeOf(op.results[0]);
  form.spatial = static_cast<int64_t>(dn->input_spatial_dims.size());
  const size_t s = static_cast<size_t>(form.spatial);
  form.strides = intsOr(op, "window_strides", s, 1);
  std::vector<int64_t> padding = intsOr(op, "padding", 2 * s, 0);
  for (size_t i = 0; i < s; ++i) {
    form.pad_lo.push_back(padding[2 * i]);
    form.pad_hi.push_back(padding[2 * i + 1]);
  }
  form.lhs_dilation = intsOr(op, "lhs_dilation", s, 1);
  form.rhs_dilation = intsOr(op, "rhs_dilation", s, 1);
  form.reversal = boolsOr(op, "window_reversal", s);
  if (const auto* g = ir::findAttrAs<int64_t>(op.attrs, "feature_group_count"))
    form.feature_groups = *g;
  if (const auto* g = ir::findAttrAs<int64_t>(op.attrs, "batch_group_count"))
    form.batch_groups = *g;
  return form;
}

std::string convText(const ir::Module& module, const ir::Op& op) {
  std::string text = "stablehlo.convolution (";
  for (size_t i = 0; i < op.operands.size(); ++i)
    text += (i ? ", " : "") + module.typeOf(op.operands[i]).str();
  text += ")";
  if (!op.results.empty()) text += " -> " + module.typeOf(op.results[0]).str();
  return text + " at " + module.locations.describe(op.loc);
}

}  // namespace jft::fusion
