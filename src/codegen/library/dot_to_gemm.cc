// dot_general -> GemmDesc: element types and precision, then for each
// operand whether its memory already reads as a (batched) matrix.
#include "codegen/library/dot_to_gemm.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "fusion/matmul_form.h"
#include "support/int_lists.h"

namespace jft::codegen::library {
namespace {

using runtime::GemmCompute;
using runtime::GemmOperand;
using runtime::GemmType;

std::string typeName(ir::ElementType t) {
  return std::string(ir::elementTypeName(t));
}

bool wantsHighest(const ir::Op& op) {
  const auto* config =
      ir::findAttrAs<std::vector<ir::Precision>>(op.attrs, "precision_config");
  if (config == nullptr) return false;
  return std::find(config->begin(), config->end(), ir::Precision::HIGHEST) !=
         config->end();
}

// A dot algorithm is honoured when it asks for the operands' own types with a
// single-pass product accumulated in the compute type; for f32 that means no
// TF32 rounding.
Status checkAlgorithm(const ir::DotAlgorithm& a, ir::ElementType in) {
  const ir::ElementType acc =
      in == ir::ElementType::F64 ? ir::ElementType::F64 : ir::ElementType::F32;
  if (a.lhs_precision_type.element == in && a.rhs_precision_type.element == in &&
      a.accumulation_type.element == acc && a.lhs_component_count == 1 &&
      a.rhs_component_count == 1 && a.num_primitive_operations == 1)
    return Status::ok();
  return unimplemented("dot algorithm " + typeName(a.lhs_precision_type.element) + " x " +
                       typeName(a.rhs_precision_type.element) + " -> " +
                       typeName(a.accumulation_type.element) + " on " + typeName(in) +
                       " operands has no library GEMM");
}

}  // namespace

StatusOr<GemmTypes> gemmTypesOf(const ir::Op& op, ir::ElementType lhs,
                                ir::ElementType rhs, ir::ElementType result) {
  using ir::ElementType;
  using Types = GemmTypes;
  const std::string combo =
      typeName(lhs) + " x " + typeName(rhs) + " -> " + typeName(result);
  auto none = [&] {
    return unimplemented(std::string(ir::opKindName(op.kind)) + " " + combo +
                         " has no library GEMM");
  };
  if (lhs != rhs) return none();
  const auto* algorithm = ir::findAttrAs<ir::DotAlgorithm>(op.attrs, "algorithm");
  if (algorithm != nullptr) JFT_RETURN_IF_ERROR(checkAlgorithm(*algorithm, lhs));
  const GemmCompute single =
      wantsHighest(op) || algorithm != nullptr ? GemmCompute::kF32 : GemmCompute::kTf32;
  switch (lhs) {
    case ElementType::F32:
      if (result != ElementType::F32) return none();
      return Types{GemmType::kF32, GemmType::kF32, single};
    case ElementType::C64:
      if (result != ElementType::C64) return none();
      return Types{GemmType::kC64, GemmType::kC64, single};
    case ElementType::BF16:
    case ElementType::F16: {
      const GemmType in = lhs == ElementType::BF16 ? GemmType::kBF16 : GemmType::kF16;
      if (result == lhs) return Types{in, in, GemmCompute::kF32};
      if (result == ElementType::F32) return Types{in, GemmType::kF32, GemmCompute::kF32};
      return none();
    }
    case ElementType::F64:
      if (result != ElementType::F64) return none();
      return Types{GemmType::kF64, GemmType::kF64, GemmCompute::kF64};
    case ElementType::C128:
      if (result != ElementType::C128) return none();
      return Types{GemmType::kC128, GemmType::kC128, GemmCompute::kF64};
    case ElementType::I8:
      if (result != ElementType::I32) return none();
      return Types{GemmType::kS8, GemmType::kS32, GemmCompute::kS32};
    default:
      return none();
  }
}

namespace {

// One group of dims (batch, free or contracting) read as a single index.
struct Run {
  int64_t extent = 1;
  int64_t stride = 0;  // of its innermost dim; meaningless when extent is 1
};

struct Operand {
  const std::vector<int64_t>& shape;
  std::vector<int64_t> strides;  // row-major
  std::vector<int64_t> batch;    // in batching order
  std::vector<int64_t> contracting;
  std::vector<int64_t> free;  // ascending

  Operand(const ir::Type& type, const std::vector<int64_t>& batch_dims,
          const std::vector<int64_t>& contractingDims)
      : shape(type.dims),
        strides(type.dims.size()),
        batch(batch_dims),
        contracting(contractingDims) {
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      strides[d] = stride;
      stride *= shape[d];
    }
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
      if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
          std::find(contracting.begin(), contracting.end(), d) == contracting.end())
        free.push_back(d);
  }

  // The dims in `order` as one run, if they are adjacent in memory in that
  // order once dims of size 1 (which take no space) are ignored.
  std::optional<Run> run(const std::vector<int64_t>& order) const {
    Run r;
    int64_t previous = -1;
    for (int64_t d : order) {
      if (shape[d] == 1) continue;
      if (previous >= 0 && strides[previous] != strides[d] * shape[d])
        return std::nullopt;
      r.extent *= shape[d];
      previous = d;
    }
    if (previous >= 0) r.stride = strides[previous];
    return r;
  }

  std::vector<int64_t> contractingIn(const std::vector<int>& pairOrder) const {
    std::vector<int64_t> dims;
    for (int p : pairOrder) dims.push_back(contracting[p]);
    return dims;
  }
};

enum class Form { kEither, kPlain, kTransposed };

// The operand as a matrix rows x cols (lhs: m x k, rhs: k x n), or nothing
// when its memory does not read as one.
std::optional<GemmOperand> view(GemmType type, const Run& batch, const Run& rows,
                                const Run& cols, Form form) {
  GemmOperand op;
  op.type = type;
  if (form != Form::kTransposed && (cols.extent == 1 || cols.stride == 1)) {
    op.transpose = false;
    op.ld = rows.extent == 1 ? cols.extent : rows.stride;
    if (op.ld < cols.extent) return std::nullopt;
  } else if (form != Form::kPlain && (rows.extent == 1 || rows.stride == 1)) {
    op.transpose = true;
    op.ld = cols.extent == 1 ? rows.extent : cols.stride;
    if (op.ld < rows.extent) return std::nullopt;
  } else {
    return std::nullopt;
  }
  op.batch_stride = batch.extent == 1 ? rows.extent * cols.extent : batch.stride;
  return op;
}

std::optional<GemmOperand> viewLhs(const Operand& lhs, const std::vector<int>& pairs,
                                   GemmType type, Form form) {
  auto batch = lhs.run(lhs.batch);
  auto rows = lhs.run(lhs.free);
  auto cols = lhs.run(lhs.contractingIn(pairs));
  if (!batch || !rows || !cols) return std::nullopt;
  return view(type, *batch, *rows, *cols, form);
}

std::optional<GemmOperand> viewRhs(const Operand& rhs, const std::vector<int>& pairs,
                                   GemmType type, Form form) {
  auto batch = rhs.run(rhs.batch);
  auto rows = rhs.run(rhs.contractingIn(pairs));
  auto cols = rhs.run(rhs.free);
  if (!batch || !rows || !cols) return std::nullopt;
  return view(type, *batch, *rows, *cols, form);
}

// Contracting pairs ordered as one operand holds them in memory (outermost
// first), size-1 pairs anywhere.
std::vector<int> memoryOrder(const Operand& x) {
  std::vector<int> pairs(x.contracting.size());
  for (size_t p = 0; p < pairs.size(); ++p) pairs[p] = static_cast<int>(p);
  std::stable_sort(pairs.begin(), pairs.end(), [&](int a, int b) {
    return x.strides[x.contracting[a]] > x.strides[x.contracting[b]];
  });
  return pairs;
}

std::vector<int64_t> concat(std::initializer_list<std::vector<int64_t>> parts) {
  std::vector<int64_t> all;
  for (const auto& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

}  // namespace

StatusOr<DotGemmPlan> planDotAsGemm(const ir::Module& module, const ir::Op& op) {
  if (op.kind != ir::OpKind::DotGeneral || op.operands.size() != 2 ||
      op.results.size() != 1)
    return invalidArgument("planDotAsGemm expects a dot_general");
  const auto* dn =
      ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
  if (dn == nullptr) return invalidArgument("dot_general without dot_dimension_numbers");
  const ir::Type& lhsType = module.typeOf(op.operands[0]);
  const ir::Type& rhsType = module.typeOf(op.operands[1]);
  const ir::Type& resultType = module.typeOf(op.results[0]);
  JFT_ASSIGN_OR_RETURN(GemmTypes types, gemmTypesOf(op, lhsType.element, rhsType.element,
                                                    resultType.element));

  const Operand lhs(lhsType, dn->lhs_batching_dims, dn->lhs_contracting_dims);
  const Operand rhs(rhsType, dn->rhs_batching_dims, dn->rhs_contracting_dims);
  DotGemmPlan plan;
  runtime::GemmDesc& g = plan.gemm;
  g.batch = product(lhs.shape, lhs.batch);
  g.m = product(lhs.shape, lhs.free);
  g.k = product(lhs.shape, lhs.contracting);
  g.n = product(rhs.shape, rhs.free);
  if (g.batch == 0 || g.m == 0 || g.n == 0 || g.k == 0)
    return unimplemented("dot_general with an empty dimension is not a library call");
  if (g.batch > std::numeric_limits<int32_t>::max())
    return unimplemented("dot_general batch " + std::to_string(g.batch) +
                         " exceeds the library's 32-bit batch count");
  // Small and vector f32 products without TF32, as XLA computes them.
  const bool exact = types.in == GemmType::kF32 && types.compute == GemmCompute::kTf32 &&
                     fusion::xlaComputesExactly(g.m, g.n, g.k);
  g.compute = exact ? GemmCompute::kF32 : types.compute;
  g.d_type = types.out;
  g.d_ld = g.n;
  g.d_batch_stride = g.m * g.n;

  // The library reads int8 only as A x B^T, the contracting dim innermost.
  const bool int8 = types.in == GemmType::kS8;
  const Form lhsForm = int8 ? Form::kPlain : Form::kEither;
  const Form rhsForm = int8 ? Form::kTransposed : Form::kEither;

  std::vector<int> canonical(lhs.contracting.size());
  for (size_t p = 0; p < canonical.size(); ++p) canonical[p] = static_cast<int>(p);
  // Try the contracting orders each operand already has; keep the first that
  // reads the most operands in place.
  std::vector<int> pairs = canonical;
  std::optional<GemmOperand> a, b;
  for (const std::vector<int>& order : {memoryOrder(lhs), memoryOrder(rhs), canonical}) {
    auto ta = viewLhs(lhs, order, types.in, lhsForm);
    auto tb = viewRhs(rhs, order, types.in, rhsForm);
    if (int(ta.has_value()) + int(tb.has_value()) >
        int(a.has_value()) + int(b.has_value())) {
      pairs = order;
      a = ta;
      b = tb;
    }
  }

  if (a) {
    g.a = *a;
  } else {
    plan.lhs_permutation = concat({lhs.batch, lhs.free, lhs.contractingIn(pairs)});
    g.a = {types.in, false, g.k, g.m * g.k};
  }
  if (b) {
    g.b = *b;
  } else if (int8) {
    plan.rhs_permutation = concat({rhs.batch, rhs.free, rhs.contractingIn(pairs)});
    g.b = {types.in, true, g.k, g.k * g.n};
  } else {
    plan.rhs_permutation = concat({rhs.batch, rhs.contractingIn(pairs), rhs.free});
    g.b = {types.in, false, g.n, g.k * g.n};
  }
  JFT_RETURN_IF_ERROR(runtime::validateGemm(g));
  return plan;
}

}  // namespace jft::codegen::library
