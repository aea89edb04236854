// The TTIR backend's table (see capability.h): which ops and element types
// its emitters take.
#include "codegen/ttir/capability.h"

#include <string_view>
#include <unordered_set>

#include "codegen/ttir/complex_emitter.h"
#include "fusion/scan_form.h"
#include "fusion/scatter_form.h"
#include "fusion/ttir_support.h"
#include "support/enum_table.h"

namespace jft::codegen::ttir {
namespace {

using fusion::TtirSupport;
using ir::ElementType;
using ir::OpKind;

TtirSupport yes() {
  return {true, {}};
}
TtirSupport no(std::string reason) {
  return {false, std::move(reason)};
}

TtirSupport noEmitter(OpKind kind) {
  return no("no TTIR emitter for " + std::string(ir::opKindName(kind)) + " yet");
}

// Ops that only move elements (the elemental emitter maps the index and
// reads the operand), whatever their type.
bool isIndexOp(OpKind kind) {
  return isOneOf(
      kind, {OpKind::BroadcastInDim, OpKind::Reshape, OpKind::Transpose, OpKind::Slice,
             OpKind::Concatenate, OpKind::Pad, OpKind::Reverse, OpKind::DynamicSlice,
             OpKind::DynamicUpdateSlice, OpKind::Gather});
}

// The ops the loop family computes on complex values, carried as two real
// tiles (codegen/ttir/complex_emitter.h): index ops and constants move both
// parts; the complex emitter's elementwise ops combine them.
TtirSupport checkComplexOp(const ir::Module& module, const ir::Op& op) {
  if (isIndexOp(op.kind) || op.kind == OpKind::Constant) return yes();
  switch (op.kind) {
    case OpKind::Compare: {
      const auto* d =
          ir::findAttrAs<ir::ComparisonDirection>(op.attrs, "comparison_direction");
      if (d && (*d == ir::ComparisonDirection::EQ || *d == ir::ComparisonDirection::NE))
        return yes();
      return no(
          "compare of complex values other than EQ and NE: complex numbers have "
          "no order");
    }
    case OpKind::ReduceWindow:
    case OpKind::Composite: {
      // Cumulative sums and products (the scan family carries two parts).
      const std::optional<fusion::ScanForm> form = fusion::scanFormOf(module, op);
      if (!form)
        return no(std::string(ir::opKindName(op.kind)) +
                  " of complex values other than a cumulative sum or product");
      std::string why;
      if (!fusion::complexReduceCombiner(module, *form->body, &why)) return no(why);
      return yes();
    }
    case OpKind::Scatter:
      // Set and add, part by part (scatter_form.h).
      if (std::string why = fusion::scatterUnsupported(module, op); !why.empty())
        return no(why);
      return yes();
    case OpKind::Reduce: {
      // Two real lanes per complex accumulator (reduction_emitter.cc).
      if (op.operands.size() != 2 || op.regions.size() != 1)
        return no("combiner of several complex operands (one complex operand is run)");
      std::string why;
      if (!fusion::complexReduceCombiner(module, op.regions[0], &why)) return no(why);
      return yes();
    }
    default:
      if (complexOperandCount(op.kind) != 0) return yes();
      return no("no TTIR emitter for " + std::string(ir::opKindName(op.kind)) +
                " of complex values yet");
  }
}

// Every operand and result is a tensor of an element type Triton holds, or
// complex for the ops checkComplexOp allows.
TtirSupport checkTypes(const ir::Module& module, const ir::Op& op) {
  auto check = [&](ir::ValueId id) -> TtirSupport {
    const ir::Type& type = module.typeOf(id);
    if (!type.isTensor())
      return no("value of type " + type.str() + " cannot be held by Triton");
    if (ir::isComplex(type.element)) return checkComplexOp(module, op);
    if (!ttirHoldsElementType(type.element))
      return no("element type " + std::string(ir::elementTypeName(type.element)) +
                " cannot be held by Triton");
    return yes();
  };
  for (ir::ValueId id : op.operands)
    if (TtirSupport s = check(id); !s.ok) return s;
  for (ir::ValueId id : op.results)
    if (TtirSupport s = check(id); !s.ok) return s;
  return yes();
}

// A combiner the reduction emitter can inline: scalar elementwise ops and
// scalar constants over values of the region or splat constants it captures.
TtirSupport checkRegion(const ir::Module& module, const ir::Region& body,
                        bool scalar_only);

TtirSupport checkSelectAndScatter(const ir::Module& module, const ir::Op& op);

TtirSupport checkCombiner(const ir::Module& module, const ir::Op& reduce) {
  if (reduce.regions.size() != 1) return no("reduce without exactly one combiner");
  return checkRegion(module, reduce.regions[0], true);
}

// `scalar_only`: a reduce combiner; otherwise a chlo.scan body, whose ops
// compute on slices (the emitter applies them lane by lane all the same).
TtirSupport checkRegion(const ir::Module& module, const ir::Region& body,
                        bool scalar_only) {
  if (body.ops.empty() || body.ops.back().kind != OpKind::Return)
    return no("reduce combiner does not end in a return");
  std::unordered_set<ir::ValueId> local(body.args.begin(), body.args.end());
  for (const ir::Op& op : body.ops) {
    if (op.kind == OpKind::Return) continue;
    const bool scalar_constant =
        op.kind == OpKind::Constant && fusion::isSplatConstant(op);
    if (!fusion::isTtirElementwise(op.kind) && !scalar_constant)
      return no("reduce combiner holds " + std::string(ir::opKindName(op.kind)) +
                ", which a TTIR reduction cannot run");
    if (TtirSupport s = checkTypes(module, op); !s.ok) return s;
    for (ir::ValueId id : op.results)
      if (scalar_only && module.typeOf(id).rank() != 0)
        return no("reduce combiner computes on tensors");
    for (ir::ValueId id : op.operands)
      if (!local.contains(id))
        return no("reduce combiner reads a value from outside its region");
    local.insert(op.results.begin(), op.results.end());
  }
  return yes();
}

// The window emitter re-runs each window's selection per output lane: its
// select and scatter regions must be scalar elementwise ops, the padding
// non-negative, and the re-reads bounded (window_emitter.h).
TtirSupport checkSelectAndScatter(const ir::Module& module, const ir::Op& op) {
  if (op.operands.size() != 3 || op.regions.size() != 2)
    return no("select_and_scatter without 3 operands and 2 regions");
  const size_t rank = static_cast<size_t>(module.typeOf(op.operands[0]).rank());
  auto ints = [&](std::string_view name, size_t count, int64_t fill) {
    std::vector<int64_t> v = fusion::intListAttr(op.attrs, name);
    if (v.empty()) v.assign(count, fill);
    return v;
  };
  const std::vector<int64_t> window = ints("window_dimensions", rank, 1);
  const std::vector<int64_t> strides = ints("window_strides", rank, 1);
  const std::vector<int64_t> padding = ints("padding", 2 * rank, 0);
  if (window.size() != rank || strides.size() != rank || padding.size() != 2 * rank)
    return no("select_and_scatter with window attributes not of its rank");
  int64_t reads = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (padding[2 * d] < 0 || padding[2 * d + 1] < 0)
      return no("select_and_scatter with negative padding");
    if (strides[d] < 1 || window[d] < 1)
      return no("select_and_scatter with empty windows");
    reads *= window[d] * ((window[d] + strides[d] - 1) / strides[d]);
    if (reads > 1024)
      return no("select_and_scatter whose outputs each re-read more than 1024 elements");
  }
  if (TtirSupport s = checkRegion(module, op.regions[0], true); !s.ok) return s;
  return checkRegion(module, op.regions[1], true);
}

TtirSupport checkOp(const ir::Module& module, const ir::Op& op) {
  switch (op.kind) {
    case OpKind::BitcastConvert: {
      if (op.operands.size() != 1 || op.results.size() != 1) return noEmitter(op.kind);
      const ir::Type& in = module.typeOf(op.operands[0]);
      const ir::Type& out = module.typeOf(op.results[0]);
      if (ir::bitWidth(in.element) != ir::bitWidth(out.element))
        return no("bitcast_convert between element types of different widths");
      return yes();
    }
    case OpKind::Pad: {
      const auto* interior =
          ir::findAttrAs<std::vector<int64_t>>(op.attrs, "interior_padding");
      if (interior)
        for (int64_t p : *interior)
          if (p < 0) return no("pad with negative interior padding");
      return yes();
    }
    case OpKind::Constant:
      return fusion::isSplatConstant(op) ? yes() : no("a non-splat constant is a buffer");
    case OpKind::Reduce:
      return checkCombiner(module, op);
    case OpKind::ReduceWindow:
    case OpKind::Composite: {
      const std::optional<fusion::ScanForm> form = fusion::scanFormOf(module, op);
      if (form) return checkRegion(module, *form->body, !form->composite);
      if (op.kind == OpKind::Composite)
        return no("no TTIR emitter for composite " + fusion::compositeName(op));
      // Pooling: the loop family walks each output's window.
      if (op.regions.size() != 1) return no("reduce_window without one body");
      return checkRegion(module, op.regions[0], true);
    }
    case OpKind::SelectAndScatter:
      return checkSelectAndScatter(module, op);
    case OpKind::Sort: {
      // Rows up to 2^17 (sort_emitter.h: one tile, or tiles merged through
      // scratch), a comparator of elementwise ops and splat constants
      // (captured ones are checked by the emitter).
      const auto* dim = ir::findAttrAs<int64_t>(op.attrs, "dimension");
      const ir::Type& type = module.typeOf(op.operands.at(0));
      if (!dim || *dim < 0 || *dim >= type.rank()) return no("sort without a dimension");
      const int64_t n = type.dims[static_cast<size_t>(*dim)];
      if (n < 2 || n > (int64_t{1} << 17))
        return no("sort of rows of " + std::to_string(n) +
                  " elements (rows of 2..131072 are sorted)");
      if (op.regions.size() != 1) return no("sort without one comparator");
      for (const ir::Op& inner : op.regions[0].ops)
        if (inner.kind != OpKind::Return && inner.kind != OpKind::Constant &&
            !fusion::isTtirElementwise(inner.kind))
          return no("sort comparator holds " + std::string(ir::opKindName(inner.kind)));
      return yes();
    }
    case OpKind::Scatter:
      if (std::string why = fusion::scatterUnsupported(module, op); !why.empty())
        return no(why);
      return yes();
    case OpKind::Gather:
      // The gather emitter reads start indices as integers (clamped in
      // their own type); dimension numbers are checked by the verifier.
      if (op.operands.size() != 2 ||
          !ir::isInteger(module.typeOf(op.operands[1]).element))
        return no("gather with non-integer start indices");
      return yes();
    default:
      return yes();
  }
}

bool isTtirMovement(OpKind kind) {
  return isIndexOp(kind) ||
         isOneOf(kind, {OpKind::Iota, OpKind::ReduceWindow, OpKind::SelectAndScatter,
                        OpKind::Composite, OpKind::Scatter, OpKind::Sort,
                        OpKind::Constant, OpKind::Reduce});
}

}  // namespace

bool isTtirFloat(ElementType type) {
  return isOneOf(type, {ElementType::F16, ElementType::BF16, ElementType::F32,
                        ElementType::F64, ElementType::F8E4M3FN, ElementType::F8E5M2});
}

bool ttirHoldsElementType(ElementType type) {
  if (ir::isPred(type)) return true;
  if (ir::isInteger(type)) return ir::bitWidth(type) >= 8;  // no sub-byte integers
  return isTtirFloat(type);
}

fusion::TtirSupport ttirSupport(const ir::Module& module, const ir::Op& op) {
  if (!fusion::isTtirElementwise(op.kind) && !isTtirMovement(op.kind))
    return noEmitter(op.kind);
  if (TtirSupport s = checkTypes(module, op); !s.ok) return s;
  return checkOp(module, op);
}

bool ttirKeepsComposite(const ir::Module& module, const ir::Op& composite) {
  return fusion::scanFormOf(module, composite) && ttirSupport(module, composite).ok;
}

fusion::TtirCapability ttirCapability() {
  return {ttirHoldsElementType, ttirSupport};
}

fusion::PlanOptions withTtir(fusion::PlanOptions options) {
  options.ttir = ttirCapability();
  return options;
}

}  // namespace jft::codegen::ttir
