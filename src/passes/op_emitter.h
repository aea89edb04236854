// Appends new ops to a region being rebuilt by a rewrite, each at the
// location of the op it replaces: the small vocabulary the expansion passes
// (rng_expand, bitcast_widths, float8_dot) spell their output in.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/dense_elements.h"
#include "ir/module.h"
#include "support/status.h"

namespace jft::passes {

// The type of a complex tensor's real (or imaginary) part.
inline ir::Type complexPartType(const ir::Type& complex) {
  return ir::Type::tensor(ir::complexComponent(complex.element), complex.dims);
}

// The IR names every rewrite that emits ops spells its output in, declared
// once here rather than at the top of each pass.
using Dims = std::vector<int64_t>;
using ir::ElementType;
using ir::OpKind;
using ir::ValueId;

class OpEmitter {
 public:
  OpEmitter(ir::Module& module, const ir::Op& at, std::vector<ir::Op>& out)
      : module_(module), at_(at), out_(out) {}

  ValueId emit(OpKind kind, std::vector<ValueId> operands, const ir::Type& type,
               ir::NamedAttrs attrs = {}, std::vector<ir::Region> regions = {}) {
    out_.push_back(make(kind, std::move(operands), type, std::move(attrs)));
    out_.back().regions = std::move(regions);
    return out_.back().results[0];
  }

  // An op at the replaced op's location, for a region being built by hand.
  ir::Op make(OpKind kind, std::vector<ValueId> operands, const ir::Type& type,
              ir::NamedAttrs attrs = {}) {
    ir::Op op;
    op.kind = kind;
    op.operands = std::move(operands);
    op.results = {module_.newValue(type)};
    op.attrs = std::move(attrs);
    op.loc = at_.loc;
    return op;
  }

  // A region of two scalar arguments of `scalar` returning `kind` of them
  // (a reduction's combiner).
  ir::Region binaryRegion(OpKind kind, const ir::Type& scalar) {
    ir::Region body;
    body.args = {module_.newValue(scalar), module_.newValue(scalar)};
    body.ops.push_back(make(kind, {body.args[0], body.args[1]}, scalar));
    ir::Op ret;
    ret.kind = OpKind::Return;
    ret.operands = {body.ops.back().results[0]};
    ret.loc = at_.loc;
    body.ops.push_back(std::move(ret));
    return body;
  }

  // The op emitted here that produces `value` produces `id` instead: the
  // replaced op's result, so its users need no rewriting.
  void giveId(ValueId value, ValueId id) {
    for (auto op = out_.rbegin(); op != out_.rend(); ++op)
      if (!op->results.empty() && op->results[0] == value) {
        op->results[0] = id;
        return;
      }
  }

  ir::Type typeOf(ValueId v) const { return module_.typeOf(v); }

  ValueId constant(ElementType element, const Dims& dims, uint64_t value) {
    const ir::Type type = ir::Type::tensor(element, dims);
    std::vector<uint8_t> bytes(static_cast<size_t>(ir::storageBytes(element)));
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = static_cast<uint8_t>(value >> (8 * i));  // little-endian
    return emit(OpKind::Constant, {}, type,
                {{"value", ir::DenseElements::makeSplat(type, std::move(bytes))}});
  }

  ValueId binary(OpKind kind, ValueId a, ValueId b) {
    return emit(kind, {a, b}, typeOf(a));
  }

  ValueId withConstant(OpKind kind, ValueId a, uint64_t c) {
    const ir::Type type = typeOf(a);
    return binary(kind, a, constant(type.element, type.dims, c));
  }

  ValueId convert(ValueId a, ElementType element) {
    return emit(OpKind::Convert, {a}, ir::Type::tensor(element, typeOf(a).dims));
  }

  // A complex value as real(x) then imag(x) appended to `out`; any other
  // value as itself.
  void appendParts(ValueId x, std::vector<ValueId>& out) {
    const ir::Type type = typeOf(x);
    if (!ir::isComplex(type.element)) {
      out.push_back(x);
      return;
    }
    out.push_back(emit(OpKind::Real, {x}, complexPartType(type)));
    out.push_back(emit(OpKind::Imag, {x}, complexPartType(type)));
  }

  ValueId reshape(ValueId a, const Dims& dims) {
    return emit(OpKind::Reshape, {a}, ir::Type::tensor(typeOf(a).element, dims));
  }

  ValueId broadcast(ValueId scalar, const Dims& dims) {
    return emit(OpKind::BroadcastInDim, {scalar},
                ir::Type::tensor(typeOf(scalar).element, dims),
                {{"broadcast_dimensions", Dims{}}});
  }

  ValueId iota(ElementType element, const Dims& dims, int64_t dim) {
    return emit(OpKind::Iota, {}, ir::Type::tensor(element, dims),
                {{"iota_dimension", dim}});
  }

  ValueId slice(ValueId a, const Dims& start, const Dims& limit) {
    Dims dims, strides(start.size(), 1);
    for (size_t i = 0; i < start.size(); ++i) dims.push_back(limit[i] - start[i]);
    return emit(
        OpKind::Slice, {a}, ir::Type::tensor(typeOf(a).element, dims),
        {{"start_indices", start}, {"limit_indices", limit}, {"strides", strides}});
  }

  ValueId concatenate(const std::vector<ValueId>& parts, int64_t dim) {
    Dims dims = typeOf(parts[0]).dims;
    dims[static_cast<size_t>(dim)] = 0;
    for (ValueId p : parts)
      dims[static_cast<size_t>(dim)] += typeOf(p).dims[static_cast<size_t>(dim)];
    return emit(OpKind::Concatenate, parts,
                ir::Type::tensor(typeOf(parts[0]).element, dims), {{"dimension", dim}});
  }

  // Word i of a 1-d tensor, as a scalar.
  ValueId word(ValueId vector, int64_t i) {
    return reshape(slice(vector, {i}, {i + 1}), {});
  }

  ValueId lessUnsigned(ValueId a, ValueId b) {
    return emit(OpKind::Compare, {a, b},
                ir::Type::tensor(ElementType::PRED, typeOf(a).dims),
                {{"comparison_direction", ir::ComparisonDirection::LT},
                 {"compare_type", ir::ComparisonType::UNSIGNED}});
  }

  ValueId select(ValueId pred, ValueId a, ValueId b) {
    return emit(OpKind::Select, {pred, a, b}, typeOf(a));
  }

  // The low and high 32-bit words of a ui64 tensor.
  std::array<ValueId, 2> halves(ValueId u64) {
    return {convert(u64, ElementType::U32),
            convert(withConstant(OpKind::ShiftRightLogical, u64, 32), ElementType::U32)};
  }

  ValueId join(ValueId low, ValueId high) {
    const ValueId hi =
        withConstant(OpKind::ShiftLeft, convert(high, ElementType::U64), 32);
    return binary(OpKind::Or, convert(low, ElementType::U64), hi);
  }

 private:
  ir::Module& module_;
  const ir::Op& at_;
  std::vector<ir::Op>& out_;
};

// Rebuilds every region of `module` (nested ones first), letting `expand`
// replace each op: it appends the op's replacement to `out` and returns
// true, or returns false to keep the op. Returns whether any op was replaced.
inline bool rewriteOps(
    ir::Module& module,
    const std::function<bool(const ir::Op&, std::vector<ir::Op>&)>& expand) {
  bool changed = false;
  std::function<void(ir::Region&)> rebuild = [&](ir::Region& region) {
    std::vector<ir::Op> ops;
    ops.reserve(region.ops.size());
    for (ir::Op& op : region.ops) {
      for (ir::Region& nested : op.regions) rebuild(nested);
      if (expand(op, ops))
        changed = true;
      else
        ops.push_back(std::move(op));
    }
    region.ops = std::move(ops);
  };
  for (ir::Function& function : module.functions) rebuild(function.body);
  return changed;
}

// rewriteOps with a per-op rewrite that also reads and extends `module`
// (types, fresh ids): the common form of a pass's entry point.
inline bool rewriteOps(ir::Module& module,
                       bool (*expand)(ir::Module&, const ir::Op&, std::vector<ir::Op>&)) {
  return rewriteOps(module, [&](const ir::Op& op, std::vector<ir::Op>& out) {
    return expand(module, op, out);
  });
}

// A user error about custom call `op` (one rewriteCustomCalls matched): its
// target and location first, then `why`.
inline Status customCallError(const ir::Module& module, const ir::Op& op,
                              const std::string& why) {
  const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
  return invalidArgument("custom_call @" + (target != nullptr ? *target : std::string()) +
                         " at " + module.locations.describe(op.loc) + ": " + why);
}

// rewriteOps over the custom calls to `target`: `expand` checks a call and
// appends its replacement, or returns the error that stops the rewrite
// (nothing more is replaced) and is returned.
inline StatusOr<bool> rewriteCustomCalls(
    ir::Module& module, std::string_view target,
    const std::function<Status(const ir::Op&, std::vector<ir::Op>&)>& expand) {
  Status failure = Status::ok();
  const bool changed =
      rewriteOps(module, [&](const ir::Op& op, std::vector<ir::Op>& out) {
        if (!failure.isOk() || op.kind != ir::OpKind::CustomCall) return false;
        const auto* name = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
        if (name == nullptr || *name != target) return false;
        failure = expand(op, out);
        return failure.isOk();
      });
  if (!failure.isOk()) return failure;
  return changed;
}

}  // namespace jft::passes
