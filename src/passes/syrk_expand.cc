#include "passes/syrk_expand.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "passes/op_emitter.h"

namespace jft::passes {
namespace {

constexpr std::string_view kTarget = "cusolver_syrk_ffi";

bool kernelType(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F64 || t == ElementType::C64 ||
         t == ElementType::C128;
}

// `transpose` from backend_config (a dictionary, as JAX's FFI lowering
// writes it) or mhlo.backend_config; a bool or an integer.
std::optional<bool> transposeFlag(const ir::Op& op) {
  for (const char* holder : {"backend_config", "mhlo.backend_config"}) {
    const auto* dict = ir::findAttrAs<ir::NamedAttrs>(op.attrs, holder);
    if (dict == nullptr) continue;
    const ir::Attribute* a = ir::findAttr(*dict, "transpose");
    if (a == nullptr) continue;
    if (a->is<bool>()) return a->as<bool>();
    if (a->is<int64_t>()) return a->as<int64_t>() != 0;
    if (a->is<ir::DenseElements>())
      if (auto v = ir::scalarInteger(a->as<ir::DenseElements>())) return *v != 0;
  }
  return std::nullopt;
}

// Layouts, when listed, must be row-major: the kernel's reading (and so this
// rewrite) assumes it.
std::optional<std::string> layoutProblem(const ir::Module& module, const ir::Op& op) {
  for (const char* which : {"operand_layouts", "result_layouts"}) {
    const auto* layouts = ir::findAttrAs<ir::AttrList>(op.attrs, which);
    if (layouts == nullptr) continue;
    const bool operands = which[0] == 'o';
    const std::vector<ValueId>& values = operands ? op.operands : op.results;
    if (layouts->size() != values.size())
      return std::string(which) + " lists " + std::to_string(layouts->size()) +
             " layouts for " + std::to_string(values.size()) + " values";
    for (size_t i = 0; i < values.size(); ++i) {
      std::vector<int64_t> row_major;
      for (int64_t d = module.typeOf(values[i]).rank() - 1; d >= 0; --d)
        row_major.push_back(d);
      const ir::Attribute& layout = (*layouts)[i];
      if (!layout.is<std::vector<int64_t>>() ||
          layout.as<std::vector<int64_t>>() != row_major)
        return std::string(which) + " entry " + std::to_string(i) +
               " is not row-major (the only layout this call is read in)";
    }
  }
  return std::nullopt;
}

struct Syrk {
  bool transpose = false;
  ir::Type a, c;
};

// Checks the call against the kernel's signature (syrk_expand.h).
StatusOr<Syrk> check(const ir::Module& module, const ir::Op& op) {
  if (op.operands.size() != 4 || op.results.size() != 1)
    return customCallError(module, op,
                           "expected 4 operands (a, c, alpha, beta) and 1 result, got " +
                               std::to_string(op.operands.size()) + " operands and " +
                               std::to_string(op.results.size()) + " results");
  for (ValueId v :
       {op.operands[0], op.operands[1], op.operands[2], op.operands[3], op.results[0]})
    if (!module.typeOf(v).isTensor())
      return customCallError(
          module, op,
          "every operand and the result must be a tensor, got " + module.typeOf(v).str());
  Syrk s;
  s.a = module.typeOf(op.operands[0]);
  s.c = module.typeOf(op.operands[1]);
  if (!kernelType(s.a.element))
    return customCallError(
        module, op,
        "element type " + std::string(ir::elementTypeName(s.a.element)) +
            " is not one syrk computes (f32, f64, complex<f32>, complex<f64>)");
  const std::optional<bool> transpose = transposeFlag(op);
  if (!transpose.has_value())
    return customCallError(module, op, "the configuration has no bool `transpose`");
  s.transpose = *transpose;
  const int64_t rank = s.a.rank();
  if (rank < 2)
    return customCallError(module, op,
                           "operand a must be a batch of matrices, got " + s.a.str());
  const int64_t m = s.a.dims[rank - 2], n = s.a.dims[rank - 1];
  const int64_t size = s.transpose ? n : m;
  std::vector<int64_t> want = s.a.dims;
  want[rank - 2] = want[rank - 1] = size;
  const ir::Type c_want = ir::Type::tensor(s.a.element, want);
  if (s.c != c_want)
    return customCallError(module, op,
                           "operand c is " + s.c.str() + ", expected " + c_want.str() +
                               " for a " + s.a.str() +
                               (s.transpose ? " with" : " without") + " transpose");
  if (module.typeOf(op.results[0]) != c_want)
    return customCallError(module, op,
                           "the result is " + module.typeOf(op.results[0]).str() +
                               ", expected " + c_want.str());
  for (size_t i : {2u, 3u}) {
    const ir::Type& scalar = module.typeOf(op.operands[i]);
    if (scalar.element != s.a.element || scalar.numElements() != 1)
      return customCallError(module, op,
                             std::string(i == 2 ? "alpha" : "beta") + " is " +
                                 scalar.str() + ", expected one element of " +
                                 std::string(ir::elementTypeName(s.a.element)));
  }
  if (std::optional<std::string> why = layoutProblem(module, op))
    return customCallError(module, op, *why);
  return s;
}

// `value` (one element) as a rank-0 tensor.
ValueId scalarOf(OpEmitter& e, ValueId value) {
  return e.typeOf(value).rank() == 0 ? value : e.reshape(value, {});
}

ValueId compare(OpEmitter& e, ValueId a, ValueId b, ir::ComparisonDirection direction,
                ir::ComparisonType type) {
  return e.emit(OpKind::Compare, {a, b},
                ir::Type::tensor(ElementType::PRED, e.typeOf(a).dims),
                {{"comparison_direction", direction}, {"compare_type", type}});
}

void expandSyrk(ir::Module& module, const ir::Op& op, const Syrk& s,
                std::vector<ir::Op>& out) {
  OpEmitter e(module, op, out);
  const ValueId a = op.operands[0], c = op.operands[1];
  const int64_t rank = s.a.rank();
  const std::vector<int64_t>& dims = s.c.dims;
  // P = A A^T (or A^T A): both sides contract the same dim of a, so the free
  // dims of the result are a's other matrix dim twice.
  ir::DotDimensionNumbers numbers;
  for (int64_t d = 0; d + 2 < rank; ++d) {
    numbers.lhs_batching_dims.push_back(d);
    numbers.rhs_batching_dims.push_back(d);
  }
  const int64_t contracted = s.transpose ? rank - 2 : rank - 1;
  numbers.lhs_contracting_dims = {contracted};
  numbers.rhs_contracting_dims = {contracted};
  const ValueId product = e.emit(
      OpKind::DotGeneral, {a, a}, s.c,
      {{"dot_dimension_numbers", numbers},
       {"precision_config",
        std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGHEST}}});
  const ValueId alpha = scalarOf(e, op.operands[2]);
  const ValueId beta = scalarOf(e, op.operands[3]);
  const ValueId scaled = e.binary(OpKind::Multiply, e.broadcast(alpha, dims), product);
  const ValueId sum = e.binary(OpKind::Add, scaled,
                               e.binary(OpKind::Multiply, e.broadcast(beta, dims), c));
  // beta == 0 does not read c (BLAS), so Inf or NaN there stays out.
  const ir::Type scalar = ir::Type::tensor(s.a.element, {});
  const ValueId zero =
      e.emit(OpKind::Constant, {}, scalar,
             {{"value",
               ir::DenseElements::makeSplat(
                   scalar, std::vector<uint8_t>(
                               static_cast<size_t>(ir::storageBytes(s.a.element)), 0))}});
  const ValueId beta_zero =
      compare(e, beta, zero, ir::ComparisonDirection::EQ, ir::ComparisonType::FLOAT);
  const ValueId updated = e.select(e.broadcast(beta_zero, dims), scaled, sum);
  // Row >= column: the lower triangle, diagonal included.
  const ValueId rows = e.iota(ElementType::I32, dims, rank - 2);
  const ValueId cols = e.iota(ElementType::I32, dims, rank - 1);
  const ValueId lower =
      compare(e, rows, cols, ir::ComparisonDirection::GE, ir::ComparisonType::SIGNED);
  e.giveId(e.select(lower, updated, c), op.results[0]);
}

}  // namespace

StatusOr<bool> expandSyrkCalls(ir::Module& module) {
  return rewriteCustomCalls(module, kTarget,
                            [&](const ir::Op& op, std::vector<ir::Op>& out) -> Status {
                              JFT_ASSIGN_OR_RETURN(Syrk s, check(module, op));
                              expandSyrk(module, op, s, out);
                              return Status::ok();
                            });
}

}  // namespace jft::passes
