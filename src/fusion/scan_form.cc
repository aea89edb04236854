#include "fusion/scan_form.h"

#include <algorithm>
#include <span>
#include <string>
#include <vector>

namespace jft::fusion {
namespace {

std::vector<int64_t> ints(const ir::NamedAttrs& attrs, std::string_view name) {
  return intListAttr(attrs, name);
}

bool allOnes(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x != 1) return false;
  return true;
}

std::optional<ScanForm> reduceWindowScan(const ir::Module& module, const ir::Op& op) {
  if (op.operands.size() != 2 || op.results.size() != 1 || op.regions.size() != 1)
    return std::nullopt;
  const std::vector<int64_t>& dims = module.typeOf(op.operands[0]).dims;
  const size_t rank = dims.size();
  const std::vector<int64_t> window = ints(op.attrs, "window_dimensions");
  const std::vector<int64_t> strides = ints(op.attrs, "window_strides");
  const std::vector<int64_t> base = ints(op.attrs, "base_dilations");
  const std::vector<int64_t> wdil = ints(op.attrs, "window_dilations");
  std::vector<int64_t> padding = ints(op.attrs, "padding");
  if (window.size() != rank || !allOnes(strides) || !allOnes(base) || !allOnes(wdil))
    return std::nullopt;
  if (padding.empty()) padding.assign(2 * rank, 0);
  if (padding.size() != 2 * rank) return std::nullopt;
  std::optional<ScanForm> form;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t lo = padding[2 * d], hi = padding[2 * d + 1];
    if (window[d] == 1 && lo == 0 && hi == 0) continue;
    // Exactly one dim with a window of the whole dim (> 1), padded on one side.
    if (form || window[d] != dims[d] || dims[d] < 2) return std::nullopt;
    const int64_t n = dims[d];
    if (!((lo == n - 1 && hi == 0) || (lo == 0 && hi == n - 1))) return std::nullopt;
    form = ScanForm{};
    form->axis = static_cast<int64_t>(d);
    form->reverse = lo == 0;
  }
  if (!form) return std::nullopt;
  form->input = op.operands[0];
  form->init = op.operands[1];
  form->body = &op.regions[0];
  return form;
}

std::optional<ScanForm> compositeScan(const ir::Module& module, const ir::Op& op) {
  if (compositeName(op) != "chlo.scan") return std::nullopt;
  if (op.operands.size() != 2 || op.results.size() != 2 || op.regions.size() != 1)
    return std::nullopt;
  const auto* attrs = ir::findAttrAs<ir::NamedAttrs>(op.attrs, "composite_attributes");
  if (!attrs) return std::nullopt;
  const auto* dim = ir::findAttrAs<int64_t>(*attrs, "dimension");
  const auto* reverse = ir::findAttrAs<bool>(*attrs, "is_reverse");
  const auto* associative = ir::findAttrAs<bool>(*attrs, "is_associative");
  if (!dim || !associative || !*associative) return std::nullopt;
  const ir::Region& body = op.regions[0];
  if (body.args.size() != 2 || body.ops.empty()) return std::nullopt;
  const ir::Op& ret = body.ops.back();
  // The output is the new carry: a plain associative scan.
  if (ret.kind != ir::OpKind::Return || ret.operands.size() != 2 ||
      ret.operands[0] != ret.operands[1])
    return std::nullopt;
  const size_t rank = module.typeOf(op.operands[0]).dims.size();
  if (*dim < 0 || static_cast<size_t>(*dim) >= rank) return std::nullopt;
  ScanForm form;
  form.composite = true;
  form.axis = *dim;
  form.reverse = reverse && *reverse;
  form.input = op.operands[0];
  form.init = op.operands[1];
  form.body = &body;
  return form;
}

}  // namespace

std::string compositeName(const ir::Op& op) {
  if (op.kind != ir::OpKind::Composite) return {};
  const auto* name = ir::findAttrAs<std::string>(op.attrs, "name");
  return name ? *name : std::string();
}

std::vector<int64_t> intListAttr(const ir::NamedAttrs& attrs, std::string_view name) {
  // Window attributes list one entry per dimension; more than this is not one.
  constexpr int64_t kMaxListElements = int64_t{1} << 20;
  const ir::Attribute* a = ir::findAttr(attrs, name);
  if (!a) return {};
  if (a->is<std::vector<int64_t>>()) return a->as<std::vector<int64_t>>();
  std::vector<int64_t> out;
  if (!a->is<ir::DenseElements>()) return out;
  const ir::DenseElements& d = a->as<ir::DenseElements>();
  if (!d.wellFormed() || d.numElements() > kMaxListElements) return out;
  for (int64_t i = 0; i < d.numElements(); ++i) {
    const std::span<const uint8_t> bytes = d.element(i);
    uint64_t bits = 0;
    for (size_t b = 0; b < bytes.size() && b < 8; ++b)
      bits |= uint64_t{bytes[b]} << (8 * b);
    // Sign-extend narrower integers (an i32 -1 is -1, not 2^32 - 1).
    const size_t width = std::min<size_t>(bytes.size(), 8) * 8;
    if (width > 0 && width < 64 && (bits >> (width - 1)) & 1)
      bits |= ~uint64_t{0} << width;
    out.push_back(static_cast<int64_t>(bits));
  }
  return out;
}

std::optional<ScanForm> scanFormOf(const ir::Module& module, const ir::Op& op) {
  if (op.kind == ir::OpKind::ReduceWindow) return reduceWindowScan(module, op);
  if (op.kind == ir::OpKind::Composite) return compositeScan(module, op);
  return std::nullopt;
}

}  // namespace jft::fusion
