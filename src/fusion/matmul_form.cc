#include "fusion/matmul_form.h"

#include <algorithm>

#include "fusion/op_text.h"
#include "ir/attribute_printer.h"
#include "support/int_lists.h"

namespace jft::fusion {
namespace {

using ir::ElementType;

bool wantsHighest(const ir::Op& op) {
  const auto* config =
      ir::findAttrAs<std::vector<ir::Precision>>(op.attrs, "precision_config");
  return config != nullptr && std::find(config->begin(), config->end(),
                                        ir::Precision::HIGHEST) != config->end();
}

std::vector<int64_t> freeDims(size_t rank, const std::vector<int64_t>& batch,
                              const std::vector<int64_t>& contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < static_cast<int64_t>(rank); ++d)
    if (std::find(batch.begin(), batch.end(), d) == batch.end() &&
        std::find(contracting.begin(), contracting.end(), d) == contracting.end())
      free.push_back(d);
  return free;
}

bool validDims(const std::vector<int64_t>& dims, size_t rank) {
  for (int64_t d : dims)
    if (d < 0 || static_cast<size_t>(d) >= rank) return false;
  return true;
}

bool isDotOperandType(ElementType t) {
  return t == ElementType::F16 || t == ElementType::BF16 || t == ElementType::F32;
}

}  // namespace

std::string inputPrecisionOf(const ir::Op& op, ir::ElementType operand) {
  return operand == ElementType::F32 && wantsHighest(op) ? "ieee" : "tf32";
}

bool xlaComputesExactly(int64_t m, int64_t n, int64_t k) {
  // In double: the extents' product may not fit an int64.
  const double size =
      (static_cast<double>(m) + static_cast<double>(n)) * static_cast<double>(k);
  if (size < 100) return true;
  const bool lhs_vector = m == 1, rhs_vector = n == 1;
  return (lhs_vector && rhs_vector) || ((lhs_vector || rhs_vector) && size < 1e7);
}

IndexMap indexMapOf(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  IndexMap map;
  for (int64_t d : dims) {
    const int64_t extent = shape[static_cast<size_t>(d)];
    const int64_t stride = strides[static_cast<size_t>(d)];
    if (extent == 1) continue;
    // The previous (outer) segment continues into this dim when it steps
    // exactly over it in memory.
    if (!map.empty() && map.back().stride == stride * extent) {
      map.back().extent *= extent;
      map.back().stride = stride;
      continue;
    }
    map.push_back({extent, stride});
  }
  return map;
}

std::optional<MatmulForm> matmulFormOf(const ir::Module& module, const ir::Op& op,
                                       std::string* why) {
  if (op.kind != ir::OpKind::DotGeneral || op.operands.size() != 2 ||
      op.results.size() != 1)
    return noForm<MatmulForm>(why, "not a dot_general");
  const auto* dn =
      ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
  if (dn == nullptr)
    return noForm<MatmulForm>(why, "dot_general without dot_dimension_numbers");
  const ir::Type& lhs = module.typeOf(op.operands[0]);
  const ir::Type& rhs = module.typeOf(op.operands[1]);
  const ir::Type& result = module.typeOf(op.results[0]);
  if (!lhs.isTensor() || !rhs.isTensor() || !result.isTensor())
    return noForm<MatmulForm>(why, "dot_general of non-tensor values");
  if (lhs.element != rhs.element || !isDotOperandType(lhs.element))
    return noForm<MatmulForm>(
        why, "the TTIR matmul takes f16 x f16, bf16 x bf16 or f32 x f32 (not " +
                 std::string(ir::elementTypeName(lhs.element)) + " x " +
                 std::string(ir::elementTypeName(rhs.element)) + ")");
  if (result.element != ElementType::F32 && result.element != lhs.element)
    return noForm<MatmulForm>(why,
                              "the TTIR matmul writes f32 or the operand type, not " +
                                  std::string(ir::elementTypeName(result.element)));
  if (ir::findAttr(op.attrs, "algorithm") != nullptr)
    return noForm<MatmulForm>(why, "dot algorithms stay on the library route");
  if (dn->lhs_batching_dims.size() != dn->rhs_batching_dims.size() ||
      dn->lhs_contracting_dims.size() != dn->rhs_contracting_dims.size() ||
      !validDims(dn->lhs_batching_dims, lhs.dims.size()) ||
      !validDims(dn->lhs_contracting_dims, lhs.dims.size()) ||
      !validDims(dn->rhs_batching_dims, rhs.dims.size()) ||
      !validDims(dn->rhs_contracting_dims, rhs.dims.size()))
    return noForm<MatmulForm>(why, "dot_general with inconsistent dimension numbers");

  MatmulForm form;
  const std::vector<int64_t> lhs_free =
      freeDims(lhs.dims.size(), dn->lhs_batching_dims, dn->lhs_contracting_dims);
  const std::vector<int64_t> rhs_free =
      freeDims(rhs.dims.size(), dn->rhs_batching_dims, dn->rhs_contracting_dims);
  form.batch = product(lhs.dims, dn->lhs_batching_dims);
  form.m = product(lhs.dims, lhs_free);
  form.k = product(lhs.dims, dn->lhs_contracting_dims);
  form.n = product(rhs.dims, rhs_free);
  if (form.batch == 0 || form.m == 0 || form.n == 0 || form.k == 0)
    return noForm<MatmulForm>(why, "dot_general with an empty dimension");
  // The smallest tile is 16 x 16: the grid must stay within one i32 axis.
  const int64_t programs = form.batch * ((form.m + 15) / 16) * ((form.n + 15) / 16);
  if (programs >= (int64_t{1} << 31))
    return noForm<MatmulForm>(why,
                              "dot_general with more tiles than one grid axis holds");
  form.lhs_batch = indexMapOf(lhs.dims, dn->lhs_batching_dims);
  form.lhs_m = indexMapOf(lhs.dims, lhs_free);
  form.lhs_k = indexMapOf(lhs.dims, dn->lhs_contracting_dims);
  form.rhs_batch = indexMapOf(rhs.dims, dn->rhs_batching_dims);
  form.rhs_k = indexMapOf(rhs.dims, dn->rhs_contracting_dims);
  form.rhs_n = indexMapOf(rhs.dims, rhs_free);
  form.operand = lhs.element;
  form.result = result.element;
  form.input_precision = inputPrecisionOf(op, lhs.element);
  if (lhs.element == ElementType::F32 && xlaComputesExactly(form.m, form.n, form.k))
    form.input_precision = "ieee";
  return form;
}

Route chooseMatmulRoute(const MatmulForm& form, const PlanOptions& options,
                        bool epilogue_fuses) {
  switch (options.matmul) {
    case MatmulRoute::kLibrary:
      return Route::kLibrary;
    case MatmulRoute::kTtir:
      return Route::kTtir;
    case MatmulRoute::kAuto:
      break;
  }
  if (!options.library_route) return Route::kTtir;
  // f32 operands take the same rules as 16-bit ones: the kernel rounds its
  // f32 tiles to TF32 to nearest as cuBLASLt does (the zoo's f32 programs
  // measured 1.3e-3 to 2.5e-3 off upstream while Triton's MMA truncated
  // them, 1e-3 on cuBLASLt), and f32 "ieee" is kept off the large-work path
  // below (FMA units, where cuBLAS's SGEMM wins).
  // In double: the product of four int64 extents may not fit one.
  const double work = static_cast<double>(form.batch) * static_cast<double>(form.m) *
                      static_cast<double>(form.n) * static_cast<double>(form.k);
  if (work <= static_cast<double>(kSmallMatmulWork)) return Route::kTtir;
  if (!epilogue_fuses || form.input_precision == "ieee" || form.k > kMaxFusedEpilogueK)
    return Route::kLibrary;
  for (const IndexMap* map : {&form.lhs_batch, &form.lhs_m, &form.lhs_k, &form.rhs_batch,
                              &form.rhs_k, &form.rhs_n})
    if (map->size() > 1) return Route::kLibrary;
  return Route::kTtir;
}

std::string matmulSignature(const ir::Module& module, const ir::Op& op) {
  return opSignature(module, op) + " " + ir::printAttrDict(op.attrs);
}

const char* matmulRouteName(MatmulRoute route) {
  switch (route) {
    case MatmulRoute::kAuto:
      return "auto";
    case MatmulRoute::kLibrary:
      return "library";
    case MatmulRoute::kTtir:
      return "ttir";
  }
  return "?";
}

}  // namespace jft::fusion
