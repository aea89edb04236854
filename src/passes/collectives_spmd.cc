// Collectives over several participants into their canonical form
// (collectives_spmd.h).
#include "passes/collectives_spmd.h"

#include <string>
#include <vector>

#include "passes/op_emitter.h"
#include "support/enum_table.h"

namespace jft::passes {
namespace {

bool reduces(OpKind kind) {
  return kind == OpKind::AllReduce || kind == OpKind::ReduceScatter ||
         kind == OpKind::CrossReplicaSum;
}

// The types NCCL reduces (runtime::CollectiveType, by our names).
bool ncclReduces(ElementType t) {
  return isOneOf(t, {ElementType::I8, ElementType::U8, ElementType::I32, ElementType::U32,
                     ElementType::I64, ElementType::U64, ElementType::F16,
                     ElementType::BF16, ElementType::F32, ElementType::F64,
                     ElementType::F8E4M3FN, ElementType::F8E5M2});
}

// 2-, 4- and 16-bit integers: no NCCL type; 32 bits hold them exactly.
bool widenedInteger(ElementType t) {
  return ir::isInteger(t) && ir::bitWidth(t) != 8 && ir::bitWidth(t) < 32;
}

ElementType wideInteger(ElementType t) {
  return ir::isSignedInteger(t) ? ElementType::I32 : ElementType::U32;
}

// The reduction a canonical region computes, and the type it runs on.
struct Wire {
  OpKind op = OpKind::Add;  // Add, Multiply, Minimum, Maximum
  ElementType element = ElementType::F32;
};

StatusOr<Wire> reductionWire(const ir::Module& module, const ir::Op& op,
                             const RegionReduction& r) {
  const ElementType t = r.element;
  const std::string type(ir::elementTypeName(t));
  if (ir::isPred(t)) {
    // On booleans add is or and multiply is and (spec): maximum and minimum
    // of the bytes 0 and 1.
    const bool any = r.op == OpKind::Add || r.op == OpKind::Or || r.op == OpKind::Maximum;
    return Wire{any ? OpKind::Maximum : OpKind::Minimum, t};
  }
  if (ir::isComplex(t)) {
    if (r.op == OpKind::Add) return Wire{r.op, t};
    return collectiveUnsupported(
        module, op,
        "a " + std::string(ir::opKindName(r.op)) + " of " + type +
            " has no exact NCCL reduction (complex values are summed as pairs of "
            "their real type, nothing else)");
  }
  if (ncclReduces(t)) return Wire{r.op, t};
  if (widenedInteger(t)) return Wire{r.op, wideInteger(t)};
  if (r.op == OpKind::Minimum || r.op == OpKind::Maximum)
    return Wire{r.op, ElementType::F32};  // every value of a narrow float is an f32
  return collectiveUnsupported(
      module, op,
      "NCCL cannot " + std::string(r.op == OpKind::Add ? "sum" : "multiply") + " " +
          type +
          ", and doing it in a wider type would round once instead of after "
          "every step");
}

// The element a data-moving collective carries: its own, 16-bit (and
// narrower) integers widened as for reductions; the compiler moves the
// other one-byte types as bytes and complex values as pairs.
ElementType movingWire(ElementType t) {
  return widenedInteger(t) ? wideInteger(t) : t;
}

void setAttr(ir::NamedAttrs& attrs, const std::string& name, ir::Attribute value) {
  for (auto& [key, attr] : attrs)
    if (key == name) {
      attr = std::move(value);
      return;
    }
  attrs.push_back({name, std::move(value)});
}

class Lowering {
 public:
  Lowering(ir::Module& module, const ir::Op& op, const CollectiveGroupsForm& groups,
           std::vector<ir::Op>& out)
      : module_(module), op_(op), groups_(groups), e_(module, op, out) {}

  Status run() {
    const int64_t ranks = groups_.ranks;
    size_t operands = op_.operands.size();
    if (op_.kind == OpKind::CollectiveBroadcast &&
        ir::findAttr(op_.attrs, "has_dynamic_root") != nullptr)
      return collectiveUnsupported(module_, op_,
                                   "has_dynamic_root is not supported (the runtime "
                                   "broadcasts from each group's first process)");
    if (operands == 0 || op_.results.size() != operands)
      return collectiveError(module_, op_,
                             std::to_string(operands) + " operands and " +
                                 std::to_string(op_.results.size()) +
                                 " results do not pair up one to one");
    const bool shaped = op_.kind == OpKind::AllGather ||
                        op_.kind == OpKind::ReduceScatter || op_.kind == OpKind::AllToAll;
    if (shaped && ranks < 1)
      return collectiveError(module_, op_,
                             "its replica_groups differ in size, so the result shape "
                             "has no one group size to follow");
    if (reduces(op_.kind)) {
      JFT_ASSIGN_OR_RETURN(RegionReduction region, regionReductionOf(module_, op_));
      JFT_ASSIGN_OR_RETURN(wire_, reductionWire(module_, op_, region));
      region_element_ = region.element;
    }
    attrs_ = op_.attrs;
    kind_ = op_.kind == OpKind::CrossReplicaSum ? OpKind::AllReduce : op_.kind;
    for (size_t i = 0; i < operands; ++i) {
      const ir::Type in = module_.typeOf(op_.operands[i]);
      const ir::Type result = module_.typeOf(op_.results[i]);
      if (!in.isTensor() || !result.isTensor())
        return collectiveError(module_, op_,
                               "operand " + std::to_string(i) +
                                   " or its result is not "
                                   "a tensor");
      JFT_ASSIGN_OR_RETURN(ir::Type expected, expectedResult(in, ranks));
      if (expected != result)
        return collectiveError(
            module_, op_,
            "result " + std::to_string(i) + " is " + result.str() +
                ", but over process groups of " + std::to_string(ranks) + " (" +
                groupModeName(groups_.mode) + ") it is " + expected.str());
      JFT_ASSIGN_OR_RETURN(ValueId value, lowerOperand(op_.operands[i], ranks));
      e_.giveId(convertTo(value, result.element), op_.results[i]);
    }
    return Status::ok();
  }

 private:
  // The spec's result type for operand type `in` (checking the dims).
  StatusOr<ir::Type> expectedResult(const ir::Type& in, int64_t ranks) {
    Dims dims = in.dims;
    const ElementType element = reduces(op_.kind) ? region_element_ : in.element;
    auto dimAttr = [&](const char* name) -> StatusOr<int64_t> {
      JFT_ASSIGN_OR_RETURN(int64_t d, collectiveIntAttr(module_, op_, name));
      if (d < 0 || d >= in.rank())
        return collectiveError(module_, op_,
                               std::string(name) + " " + std::to_string(d) +
                                   " is not a dimension of " + in.str());
      return d;
    };
    auto divisible = [&](int64_t d, const char* what) -> Status {
      if (dims[static_cast<size_t>(d)] % ranks != 0)
        return collectiveError(module_, op_,
                               std::string(what) + " " + std::to_string(d) + " of " +
                                   in.str() + " does not split into " +
                                   std::to_string(ranks) + " parts, one per process");
      return Status::ok();
    };
    switch (op_.kind) {
      case OpKind::AllGather: {
        JFT_ASSIGN_OR_RETURN(dim_, dimAttr("all_gather_dim"));
        dims[static_cast<size_t>(dim_)] *= ranks;
        break;
      }
      case OpKind::ReduceScatter: {
        JFT_ASSIGN_OR_RETURN(dim_, dimAttr("scatter_dimension"));
        JFT_RETURN_IF_ERROR(divisible(dim_, "scatter_dimension"));
        dims[static_cast<size_t>(dim_)] /= ranks;
        break;
      }
      case OpKind::AllToAll: {
        JFT_ASSIGN_OR_RETURN(dim_, dimAttr("split_dimension"));
        JFT_ASSIGN_OR_RETURN(concat_, dimAttr("concat_dimension"));
        JFT_ASSIGN_OR_RETURN(int64_t count,
                             collectiveIntAttr(module_, op_, "split_count"));
        if (count != ranks)
          return collectiveError(module_, op_,
                                 "split_count " + std::to_string(count) +
                                     " is not the size of its process groups, " +
                                     std::to_string(ranks) + " (" +
                                     groupModeName(groups_.mode) + ")");
        JFT_RETURN_IF_ERROR(divisible(dim_, "split_dimension"));
        dims[static_cast<size_t>(dim_)] /= ranks;
        dims[static_cast<size_t>(concat_)] *= ranks;
        break;
      }
      default:
        break;
    }
    return ir::Type::tensor(element, dims);
  }

  ValueId convertTo(ValueId value, ElementType element) {
    if (module_.typeOf(value).element == element) return value;
    return e_.convert(value, element);
  }

  ValueId transpose(ValueId value, const Dims& perm) {
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
    if (identity) return value;
    const ir::Type in = module_.typeOf(value);
    Dims dims;
    for (int64_t p : perm) dims.push_back(in.dims[static_cast<size_t>(p)]);
    return e_.emit(OpKind::Transpose, {value}, ir::Type::tensor(in.element, dims),
                   {{"permutation", perm}});
  }

  // The permutation moving dim `d` of a rank-`rank` value to the front, and
  // its inverse (moving the front dim back to `d`).
  static Dims toFront(int64_t d, int64_t rank) {
    Dims perm{d};
    for (int64_t i = 0; i < rank; ++i)
      if (i != d) perm.push_back(i);
    return perm;
  }
  static Dims fromFront(int64_t d, int64_t rank) {
    Dims perm;
    for (int64_t i = 1; i <= d; ++i) perm.push_back(i);
    perm.push_back(0);
    for (int64_t i = d + 1; i < rank; ++i) perm.push_back(i);
    return perm;
  }

  // The canonical op on `value` giving a tensor of `dims`.
  ValueId collective(ValueId value, const Dims& dims) {
    const ElementType element = module_.typeOf(value).element;
    std::vector<ir::Region> regions;
    if (kind_ == OpKind::AllReduce || kind_ == OpKind::ReduceScatter)
      regions.push_back(e_.binaryRegion(wire_.op, ir::Type::scalar(element)));
    return e_.emit(kind_, {value}, ir::Type::tensor(element, dims), attrs_,
                   std::move(regions));
  }

  StatusOr<ValueId> lowerOperand(ValueId operand, int64_t ranks) {
    ValueId v = operand;
    if (reduces(op_.kind)) {
      v = convertTo(v, region_element_);  // to_destination_type
      v = convertTo(v, wire_.element);
    } else {
      v = convertTo(v, movingWire(module_.typeOf(v).element));
    }
    const Dims dims = module_.typeOf(v).dims;
    const int64_t rank = static_cast<int64_t>(dims.size());
    switch (kind_) {
      case OpKind::AllGather:
      case OpKind::ReduceScatter: {
        setAttr(attrs_,
                kind_ == OpKind::AllGather ? "all_gather_dim" : "scatter_dimension",
                int64_t{0});
        const ValueId front = transpose(v, toFront(dim_, rank));
        Dims out = module_.typeOf(front).dims;
        out[0] = kind_ == OpKind::AllGather ? out[0] * ranks : out[0] / ranks;
        return transpose(collective(front, out), fromFront(dim_, rank));
      }
      case OpKind::AllToAll: {
        setAttr(attrs_, "split_dimension", int64_t{0});
        setAttr(attrs_, "concat_dimension", int64_t{0});
        // [.., a_s, ..] -> [.., ranks, a_s / ranks, ..] -> [ranks, b...], b
        // being the operand's dims with a_s / ranks: chunk j, the part for
        // process j, is contiguous.
        Dims split = dims;
        split[static_cast<size_t>(dim_)] /= ranks;
        split.insert(split.begin() + dim_, ranks);
        const ValueId chunks = transpose(e_.reshape(v, split), toFront(dim_, rank + 1));
        // Received: [ranks (sender), b...]; the senders' parts concatenate
        // along concat_dimension: move the sender dim right before it and
        // merge the two.
        const Dims received = module_.typeOf(chunks).dims;
        const ValueId exchanged = collective(chunks, received);
        const ValueId placed = transpose(exchanged, fromFront(concat_, rank + 1));
        Dims merged(received.begin() + 1, received.end());
        merged[static_cast<size_t>(concat_)] *= ranks;
        return e_.reshape(placed, merged);
      }
      default:
        return collective(v, dims);
    }
  }

  ir::Module& module_;
  const ir::Op& op_;
  const CollectiveGroupsForm& groups_;
  OpEmitter e_;
  ir::NamedAttrs attrs_;
  OpKind kind_ = OpKind::AllReduce;
  Wire wire_;
  ElementType region_element_ = ElementType::F32;
  int64_t dim_ = 0;     // all_gather_dim, scatter_dimension, split_dimension
  int64_t concat_ = 0;  // concat_dimension
};

}  // namespace

StatusOr<bool> lowerCollectivesForParticipants(ir::Module& module,
                                               const ParticipantGrid& grid) {
  if (grid.replicas < 1 || grid.partitions < 1 || grid.participants() < 2)
    return invalidArgument(
        "lowering collectives for several participants needs at "
        "least two, not " +
        std::to_string(grid.replicas) + " replicas x " + std::to_string(grid.partitions) +
        " partitions");
  Status failure = Status::ok();
  const bool changed =
      rewriteOps(module, [&](const ir::Op& op, std::vector<ir::Op>& out) {
        if (!failure.isOk() || !isCollective(op.kind)) return false;
        StatusOr<CollectiveGroupsForm> groups = collectiveGroupsOf(module, op, grid);
        if (!groups.isOk()) {
          failure = groups.status();
          return false;
        }
        const size_t before = out.size();
        failure = Lowering(module, op, *groups, out).run();
        if (!failure.isOk()) {
          out.resize(before);
          return false;
        }
        return true;
      });
  if (!failure.isOk()) return failure;
  return changed;
}

}  // namespace jft::passes
