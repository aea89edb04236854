// Linear-algebra ops -> column-major SolverDesc; see solver_plan.h for the
// row-major to column-major mapping each kind uses.
#include "codegen/library/solver_plan.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "fusion/op_route.h"

namespace jft::codegen::library {
namespace {

using runtime::SolverDesc;
using runtime::SolverKind;
using runtime::SolverTranspose;
using runtime::SolverType;

std::string targetOf(const ir::Op& op) {
  const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
  return target != nullptr ? *target : std::string();
}

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string text = "{";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "}";
}

// Builds the reasons of one op: "custom_call @cusolver_getrf_ffi: <why>".
struct Reasons {
  std::string name;
  Status no(const std::string& why) const { return unimplemented(name + ": " + why); }
};

StatusOr<SolverType> matrixType(const Reasons& r, const ir::Type& type) {
  switch (type.element) {
    case ir::ElementType::F32:
      return SolverType::kF32;
    case ir::ElementType::F64:
      return SolverType::kF64;
    case ir::ElementType::C64:
      return SolverType::kC64;
    case ir::ElementType::C128:
      return SolverType::kC128;
    default:
      return r.no("element type " + std::string(ir::elementTypeName(type.element)) +
                  " has no solver routine (f32, f64, complex<f32>, complex<f64>)");
  }
}

int64_t leadingProduct(const std::vector<int64_t>& dims, size_t count) {
  int64_t p = 1;
  for (size_t i = 0; i < count && i < dims.size(); ++i) p *= dims[i];
  return p;
}

std::vector<int64_t> leading(const ir::Type& type, size_t trailing) {
  const size_t rank = type.dims.size();
  return std::vector<int64_t>(type.dims.begin(),
                              type.dims.begin() + static_cast<long>(rank - trailing));
}

// The minor-to-major layouts JAX gives a batch of column-major matrices and
// any row-major value.
std::vector<int64_t> columnMajor(int64_t rank) {
  std::vector<int64_t> layout = {rank - 2, rank - 1};
  for (int64_t d = rank - 3; d >= 0; --d) layout.push_back(d);
  return layout;
}
std::vector<int64_t> rowMajor(int64_t rank) {
  std::vector<int64_t> layout;
  for (int64_t d = rank - 1; d >= 0; --d) layout.push_back(d);
  return layout;
}

// Each operand (then result) must have the layout `matrix` says: column-
// major for the matrices, row-major (or none given) for the rest.
Status checkLayouts(const Reasons& r, const ir::Module& module, const ir::Op& op,
                    const std::vector<bool>& matrixOperands,
                    const std::vector<bool>& matrixResults) {
  for (const char* which : {"operand", "result"}) {
    const bool operands = which[0] == 'o';
    const std::vector<ir::ValueId>& values = operands ? op.operands : op.results;
    const std::vector<bool>& matrix = operands ? matrixOperands : matrixResults;
    const auto* layouts = ir::findAttrAs<ir::AttrList>(
        op.attrs, operands ? "operand_layouts" : "result_layouts");
    if (layouts != nullptr && layouts->size() != values.size())
      return r.no(std::string(which) + "_layouts lists " +
                  std::to_string(layouts->size()) + " layouts for " +
                  std::to_string(values.size()) + " " + which + "s");
    for (size_t i = 0; i < values.size(); ++i) {
      const int64_t rank = module.typeOf(values[i]).rank();
      const bool isMatrix = i < matrix.size() && matrix[i];
      const std::vector<int64_t> want = isMatrix ? columnMajor(rank) : rowMajor(rank);
      std::vector<int64_t> have = rowMajor(rank);
      if (layouts != nullptr) {
        const ir::Attribute& a = (*layouts)[i];
        if (!a.is<std::vector<int64_t>>())
          return r.no(std::string(which) + " " + std::to_string(i) + " has no layout");
        have = a.as<std::vector<int64_t>>();
      }
      if (have == want) continue;
      return r.no(std::string(which) + " " + std::to_string(i) + " has layout " +
                  dimsText(have) + "; the library reads " +
                  (isMatrix ? "column-major matrices " : "row-major vectors ") +
                  dimsText(want));
    }
  }
  return Status::ok();
}

// num_batch_dims of mhlo.frontend_attributes, when given, must be what the
// ranks say.
Status checkBatchDims(const Reasons& r, const ir::Op& op, int64_t batch_dims) {
  const auto* frontend =
      ir::findAttrAs<ir::NamedAttrs>(op.attrs, "mhlo.frontend_attributes");
  if (frontend == nullptr) return Status::ok();
  const auto* given = ir::findAttrAs<std::string>(*frontend, "num_batch_dims");
  if (given == nullptr || *given == std::to_string(batch_dims)) return Status::ok();
  return r.no("num_batch_dims is " + *given + " but the operand has " +
              std::to_string(batch_dims) + " batch dims");
}

// A bool or integer of the custom call's configuration (backend_config as a
// dictionary, or the mhlo.backend_config JAX attaches); nullopt when absent.
std::optional<int64_t> configValue(const ir::Op& op, std::string_view name) {
  for (const char* holder : {"backend_config", "mhlo.backend_config"}) {
    const auto* dict = ir::findAttrAs<ir::NamedAttrs>(op.attrs, holder);
    if (dict == nullptr) continue;
    const ir::Attribute* a = ir::findAttr(*dict, name);
    if (a == nullptr) continue;
    if (a->is<bool>()) return a->as<bool>() ? 1 : 0;
    if (a->is<int64_t>()) return a->as<int64_t>();
    if (a->is<ir::DenseElements>())
      if (auto v = ir::scalarInteger(a->as<ir::DenseElements>())) return v;
  }
  return std::nullopt;
}

bool configFlag(const ir::Op& op, std::string_view name, bool fallback) {
  const std::optional<int64_t> v = configValue(op, name);
  return v.has_value() ? *v != 0 : fallback;
}

// A flag JAX always sets: its absence is an error rather than a guess.
StatusOr<bool> requiredFlag(const Reasons& r, const ir::Op& op, std::string_view name) {
  const std::optional<int64_t> v = configValue(op, name);
  if (!v.has_value())
    return r.no("the configuration has no bool `" + std::string(name) + "`");
  return *v != 0;
}

Status expectType(const Reasons& r, const ir::Type& have, const ir::Type& want,
                  const std::string& what) {
  if (have == want) return Status::ok();
  return r.no(what + " is " + have.str() + ", expected " + want.str());
}

Status expectCounts(const Reasons& r, const ir::Op& op, size_t operands, size_t results) {
  if (op.operands.size() == operands && op.results.size() == results) return Status::ok();
  return r.no("expected " + std::to_string(operands) + " operands and " +
              std::to_string(results) + " results, not " +
              std::to_string(op.operands.size()) + " and " +
              std::to_string(op.results.size()));
}

// The batch of [..., rows, cols] matrices `value` holds; rejects lower ranks.
StatusOr<ir::Type> matrixOperand(const Reasons& r, const ir::Module& module,
                                 ir::ValueId value, const std::string& what) {
  const ir::Type& type = module.typeOf(value);
  if (!type.isTensor() || type.rank() < 2)
    return r.no(what + " " + type.str() + " is not a batch of matrices");
  return type;
}

bool isComplex(SolverType type) {
  return type == SolverType::kC64 || type == SolverType::kC128;
}

// What every cusolver_*_ffi call shares: operand 0 a batch of m x n
// matrices of a solver type, the operand and result counts.
struct MatrixCall {
  ir::Type a;
  SolverType type = SolverType::kF32;
  int64_t m = 0, n = 0;
  std::vector<int64_t> batch_dims;  // a's leading dims

  ir::Type batchOf(ir::ElementType element, std::vector<int64_t> trailing) const {
    std::vector<int64_t> dims = batch_dims;
    dims.insert(dims.end(), trailing.begin(), trailing.end());
    return ir::Type::tensor(element, std::move(dims));
  }
  ir::Type info() const { return batchOf(ir::ElementType::I32, {}); }
  // The element type of eigenvalues and singular values.
  ir::ElementType realElement() const {
    return ir::isComplex(a.element) ? ir::complexComponent(a.element) : a.element;
  }
};

StatusOr<MatrixCall> matrixCall(const Reasons& r, const ir::Module& module,
                                const ir::Op& op, size_t operands, size_t results) {
  JFT_RETURN_IF_ERROR(expectCounts(r, op, operands, results));
  MatrixCall c;
  JFT_ASSIGN_OR_RETURN(c.a, matrixOperand(r, module, op.operands[0], "the operand"));
  JFT_ASSIGN_OR_RETURN(c.type, matrixType(r, c.a));
  const int64_t rank = c.a.rank();
  c.m = c.a.dims[rank - 2];
  c.n = c.a.dims[rank - 1];
  c.batch_dims = leading(c.a, 2);
  return c;
}

// The results' types, each against what it must be, in order.
Status expectResults(const Reasons& r, const ir::Module& module, const ir::Op& op,
                     const std::vector<std::pair<ir::Type, std::string>>& want) {
  for (size_t i = 0; i < want.size(); ++i)
    JFT_RETURN_IF_ERROR(
        expectType(r, module.typeOf(op.results[i]), want[i].first, want[i].second));
  return Status::ok();
}

// The layouts (matrices column-major, the rest row-major) and num_batch_dims;
// then the plan's description of `kind` over c's batch with every operand
// and result as its buffers, in order.
StatusOr<SolverPlan> callPlan(const Reasons& r, const ir::Module& module,
                              const ir::Op& op, const MatrixCall& c, SolverKind kind,
                              const std::vector<bool>& matrixOperands,
                              const std::vector<bool>& matrixResults) {
  JFT_RETURN_IF_ERROR(checkLayouts(r, module, op, matrixOperands, matrixResults));
  JFT_RETURN_IF_ERROR(checkBatchDims(r, op, static_cast<int64_t>(c.batch_dims.size())));
  SolverPlan plan;
  plan.desc.kind = kind;
  plan.desc.type = c.type;
  plan.desc.batch = leadingProduct(c.batch_dims, c.batch_dims.size());
  plan.desc.m = c.m;
  plan.desc.n = c.n;
  plan.inputs = op.operands;
  plan.outputs = op.results;
  return plan;
}

// cusolver_getrf_ffi(a) -> (lu, pivots, info).
StatusOr<SolverPlan> planGetrf(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 3));
  JFT_RETURN_IF_ERROR(expectResults(
      r, module, op,
      {{c.a, "the LU result"},
       {c.batchOf(ir::ElementType::I32, {std::min(c.m, c.n)}), "the pivots result"},
       {c.info(), "the info result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, callPlan(r, module, op, c, SolverKind::kGetrf,
                                                 {true}, {true, false, false}));
  plan.column_major_inputs = {0};
  plan.column_major_outputs = {0};
  return plan;
}

// cusolver_geqrf_ffi(a) -> (qr, tau).
StatusOr<SolverPlan> planGeqrf(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 2));
  JFT_RETURN_IF_ERROR(
      expectResults(r, module, op,
                    {{c.a, "the QR result"},
                     {c.batchOf(c.a.element, {std::min(c.m, c.n)}), "the tau result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, callPlan(r, module, op, c, SolverKind::kGeqrf,
                                                 {true}, {true, false}));
  plan.column_major_inputs = {0};
  plan.column_major_outputs = {0};
  return plan;
}

// cusolver_orgqr_ffi(a, tau) -> q.
StatusOr<SolverPlan> planOrgqr(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 2, 1));
  const ir::Type& tau = module.typeOf(op.operands[1]);
  if (!tau.isTensor() || tau.rank() != c.a.rank() - 1 || tau.element != c.a.element ||
      leading(tau, 1) != c.batch_dims)
    return r.no("tau " + tau.str() + " does not match the operand " + c.a.str());
  const int64_t k = tau.dims.back();
  if (!(c.m >= c.n && c.n >= k))
    return r.no("the reflectors need rows >= columns >= taus, not " +
                std::to_string(c.m) + ", " + std::to_string(c.n) + ", " +
                std::to_string(k));
  JFT_RETURN_IF_ERROR(expectResults(r, module, op, {{c.a, "the Q result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, callPlan(r, module, op, c, SolverKind::kOrgqr,
                                                 {true, false}, {true}));
  plan.desc.k = k;
  plan.column_major_inputs = {0};
  plan.column_major_outputs = {0};
  return plan;
}

// cusolver_syevd_ffi(a) -> (v, w, info), `lower` and `algorithm` in its
// configuration. A real symmetric matrix read column-major is itself with
// its triangles swapped, so a real a goes to the library as it is with
// `lower` flipped; a complex one would read as its conjugate and is copied.
// The eigenvectors come out column-major and are transposed into v.
StatusOr<SolverPlan> planSyevd(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 3));
  if (c.m != c.n) return r.no("the matrices of " + c.a.str() + " are not square");
  JFT_ASSIGN_OR_RETURN(bool lower, requiredFlag(r, op, "lower"));
  const std::optional<int64_t> algorithm = configValue(op, "algorithm");
  if (algorithm.has_value() && (*algorithm < 0 || *algorithm > 2))
    return r.no("algorithm " + std::to_string(*algorithm) +
                " is not 0 (default), 1 (QR) or 2 (Jacobi)");
  JFT_RETURN_IF_ERROR(
      expectResults(r, module, op,
                    {{c.a, "the eigenvector result"},
                     {c.batchOf(c.realElement(), {c.n}), "the eigenvalue result"},
                     {c.info(), "the info result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, callPlan(r, module, op, c, SolverKind::kSyevd,
                                                 {true}, {true, false, false}));
  plan.desc.algorithm = static_cast<runtime::EigAlgorithm>(algorithm.value_or(0));
  plan.desc.lower = isComplex(c.type) ? lower : !lower;
  if (isComplex(c.type)) plan.column_major_inputs = {0};
  plan.column_major_outputs = {0};
  return plan;
}

// cusolver_gesvdj_ffi(a) and cusolver_gesvdp_ffi(a) -> (work, s, u, v,
// info), `full_matrices` and `compute_uv` in their configuration. a is
// copied column-major; u and v come out column-major and are transposed
// back when computed (else they are scratch JAX drops, as is work, the
// library's destroyed copy of a).
StatusOr<SolverPlan> planSvdUv(const Reasons& r, const ir::Module& module,
                               const ir::Op& op, SolverKind kind) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 5));
  JFT_ASSIGN_OR_RETURN(bool full, requiredFlag(r, op, "full_matrices"));
  JFT_ASSIGN_OR_RETURN(bool computeUv, requiredFlag(r, op, "compute_uv"));
  const int64_t k = std::min(c.m, c.n);
  JFT_RETURN_IF_ERROR(
      expectResults(r, module, op,
                    {{c.a, "the work result"},
                     {c.batchOf(c.realElement(), {k}), "the singular value result"},
                     {c.batchOf(c.a.element, {c.m, full ? c.m : k}), "the U result"},
                     {c.batchOf(c.a.element, {c.n, full ? c.n : k}), "the V result"},
                     {c.info(), "the info result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, callPlan(r, module, op, c, kind, {true},
                                                 {true, false, true, true, false}));
  plan.desc.full_matrices = full;
  plan.desc.compute_uv = computeUv;
  plan.column_major_inputs = {0};
  if (computeUv) plan.column_major_outputs = {2, 3};
  return plan;
}

// cusolver_gesvd_ffi(a) -> (out, s, u, vt, info), `full_matrices`,
// `compute_uv` and `transposed` in its configuration. The library needs
// rows >= columns, so JAX passes a wider a (rows < columns) with
// `transposed` and every layout row-major: the library's column-major view
// of that memory is a^T (columns x rows, tall), whose SVD a^T = U' S V'^H
// gives a = conj(V') S U'^T; a's V^H, row-major, is U' column-major and
// a's U, row-major, is V'^H column-major. So the call runs on the memory as
// it is, with m and n swapped, and JAX's u result receives U' (its shape is
// that of a's V^H) and vt receives V'^H (a's U) -- nothing is copied. A tall
// (or square) a without `transposed` comes column-major: copied there, and
// u and vt transposed back. Without compute_uv, u and vt are scalars.
StatusOr<SolverPlan> planGesvd(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 5));
  JFT_ASSIGN_OR_RETURN(bool full, requiredFlag(r, op, "full_matrices"));
  JFT_ASSIGN_OR_RETURN(bool computeUv, requiredFlag(r, op, "compute_uv"));
  JFT_ASSIGN_OR_RETURN(bool transposed, requiredFlag(r, op, "transposed"));
  // The library's view: rows x cols, rows >= cols.
  const int64_t rows = transposed ? c.n : c.m;
  const int64_t cols = transposed ? c.m : c.n;
  if (rows < cols)
    return r.no("the matrices of " + c.a.str() +
                (transposed ? " are taller than wide but `transposed` is set"
                            : " are wider than tall but `transposed` is not set") +
                " (the library needs rows >= columns)");
  const ir::ElementType e = c.a.element;
  const int64_t uCols = full ? rows : cols;
  // u: rows x uCols column-major, vt: cols x cols; as the row-major values
  // JAX declares them, the transposed call's u is [uCols, rows].
  const ir::Type u = !computeUv   ? ir::Type::tensor(e, {})
                     : transposed ? c.batchOf(e, {uCols, rows})
                                  : c.batchOf(e, {rows, uCols});
  const ir::Type vt = computeUv ? c.batchOf(e, {cols, cols}) : ir::Type::tensor(e, {});
  JFT_RETURN_IF_ERROR(
      expectResults(r, module, op,
                    {{c.a, "the out result"},
                     {c.batchOf(c.realElement(), {cols}), "the singular value result"},
                     {u, transposed ? "the u result (a's V^H)" : "the u result"},
                     {vt, transposed ? "the vt result (a's U)" : "the vt result"},
                     {c.info(), "the info result"}}));
  const bool colMajor = !transposed;
  const bool uvMatrices = colMajor && computeUv;
  JFT_ASSIGN_OR_RETURN(SolverPlan plan,
                       callPlan(r, module, op, c, SolverKind::kGesvd, {colMajor},
                                {colMajor, false, uvMatrices, uvMatrices, false}));
  plan.desc.m = rows;
  plan.desc.n = cols;
  plan.desc.full_matrices = full;
  plan.desc.compute_uv = computeUv;
  if (colMajor) plan.column_major_inputs = {0};
  if (uvMatrices) plan.column_major_outputs = {2, 3};
  return plan;
}

// cusolver_sytrd_ffi(a) -> (out, d, e, tau, info), `lower` in its
// configuration. The reflectors left in `out` are a matrix JAX returns, so
// a goes to the library column-major and out comes back.
StatusOr<SolverPlan> planSytrd(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 5));
  if (c.m != c.n || c.n == 0)
    return r.no("the matrices of " + c.a.str() + " are not square and non-empty");
  JFT_ASSIGN_OR_RETURN(bool lower, requiredFlag(r, op, "lower"));
  JFT_RETURN_IF_ERROR(
      expectResults(r, module, op,
                    {{c.a, "the reduced matrix result"},
                     {c.batchOf(c.realElement(), {c.n}), "the diagonal result"},
                     {c.batchOf(c.realElement(), {c.n - 1}), "the off-diagonal result"},
                     {c.batchOf(c.a.element, {c.n - 1}), "the tau result"},
                     {c.info(), "the info result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan,
                       callPlan(r, module, op, c, SolverKind::kSytrd, {true},
                                {true, false, false, false, false}));
  plan.desc.lower = lower;
  plan.column_major_inputs = {0};
  plan.column_major_outputs = {0};
  return plan;
}

// The complex element type of a matrix's eigenvalues (its own when complex).
ir::ElementType complexElement(ir::ElementType e) {
  if (ir::isComplex(e)) return e;
  return e == ir::ElementType::F64 ? ir::ElementType::C128 : ir::ElementType::C64;
}

// cusolver_geev_ffi(a) -> (out, w, vl, vr, info), `left` and `right` in
// its configuration (JAX picks it for eig on CUDA when cuSOLVER is 11.7.1
// or newer and no left eigenvectors are asked for). A general matrix's
// column-major view is its transpose, whose eigenvectors are the left ones,
// so a is copied column-major; vr comes out column-major and is transposed
// back when computed. w is complex even for a real a; out (the library's
// destroyed copy) and vl (never computed) are scratch JAX drops.
StatusOr<SolverPlan> planGeev(const Reasons& r, const ir::Module& module,
                              const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 1, 5));
  if (c.m != c.n) return r.no("the matrices of " + c.a.str() + " are not square");
  JFT_ASSIGN_OR_RETURN(bool left, requiredFlag(r, op, "left"));
  JFT_ASSIGN_OR_RETURN(bool right, requiredFlag(r, op, "right"));
  if (left)
    return r.no(
        "left eigenvectors are asked for, which cuSOLVER's geev does not "
        "compute (JAX lowers those to its host kernel instead)");
  JFT_RETURN_IF_ERROR(expectResults(
      r, module, op,
      {{c.a, "the out result"},
       {c.batchOf(complexElement(c.a.element), {c.n}), "the eigenvalue result"},
       {c.a, "the left eigenvector result"},
       {c.a, "the right eigenvector result"},
       {c.info(), "the info result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan,
                       callPlan(r, module, op, c, SolverKind::kGeev, {true},
                                {true, false, true, true, false}));
  plan.desc.eigenvectors = right;
  plan.column_major_inputs = {0};
  if (right) plan.column_major_outputs = {3};
  return plan;
}

// cusolver_ormqr_ffi(a, tau, c) -> out, `left` and `transpose` in its
// configuration (lax.linalg.ormqr, jax.scipy.linalg.qr_multiply): op(Q) c
// or c op(Q) for the Q of a's reflectors. The reflectors sit in a's
// columns, which no flag maps onto rows, and for a complex Q the row-major
// view would need Q^T, which unmqr lacks; so a and c are copied column-
// major and the product transposed back.
StatusOr<SolverPlan> planOrmqr(const Reasons& r, const ir::Module& module,
                               const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(MatrixCall c, matrixCall(r, module, op, 3, 1));
  const ir::Type& tau = module.typeOf(op.operands[1]);
  if (!tau.isTensor() || tau.rank() != c.a.rank() - 1 || tau.element != c.a.element ||
      leading(tau, 1) != c.batch_dims)
    return r.no("tau " + tau.str() + " does not match the reflectors " + c.a.str());
  JFT_ASSIGN_OR_RETURN(ir::Type x, matrixOperand(r, module, op.operands[2], "c"));
  if (x.element != c.a.element || x.rank() != c.a.rank() || leading(x, 2) != c.batch_dims)
    return r.no("c " + x.str() + " does not match the reflectors " + c.a.str());
  JFT_ASSIGN_OR_RETURN(bool left, requiredFlag(r, op, "left"));
  JFT_ASSIGN_OR_RETURN(bool transpose, requiredFlag(r, op, "transpose"));
  const int64_t rows = x.dims[x.rank() - 2], cols = x.dims[x.rank() - 1];
  const int64_t order = left ? rows : cols;
  const int64_t k = tau.dims.back();
  if (c.m != order)
    return r.no("the reflectors " + c.a.str() + " have " + std::to_string(c.m) +
                " rows but Q must be " + std::to_string(order) + " x " +
                std::to_string(order) + " to multiply c " + x.str() + " on the " +
                (left ? "left" : "right"));
  if (k > c.m || k > c.n)
    return r.no(std::to_string(k) + " reflectors do not fit in " + c.a.str());
  JFT_RETURN_IF_ERROR(expectResults(r, module, op, {{x, "the result"}}));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan, callPlan(r, module, op, c, SolverKind::kOrmqr,
                                                 {true, false, true}, {true}));
  plan.desc.m = rows;
  plan.desc.n = cols;
  plan.desc.k = k;
  plan.desc.reflector_cols = c.n;
  plan.desc.left_side = left;
  plan.desc.transpose = !transpose          ? SolverTranspose::kNone
                        : isComplex(c.type) ? SolverTranspose::kAdjoint
                                            : SolverTranspose::kTranspose;
  plan.column_major_inputs = {0, 2};
  plan.column_major_outputs = {0};
  return plan;
}

// cu_cholesky_update_ffi(r, w) -> (r_out, w_out) (lax.linalg.cholesky_update,
// f32 and f64 only, every layout row-major: JAX's kernel reads the factor
// as it is, and so does the host function the device runs for it).
StatusOr<SolverPlan> planCholeskyUpdate(const Reasons& r, const ir::Module& module,
                                        const ir::Op& op) {
  JFT_RETURN_IF_ERROR(expectCounts(r, op, 2, 2));
  JFT_ASSIGN_OR_RETURN(ir::Type factor,
                       matrixOperand(r, module, op.operands[0], "the factor"));
  if (factor.element != ir::ElementType::F32 && factor.element != ir::ElementType::F64)
    return r.no("element type " + std::string(ir::elementTypeName(factor.element)) +
                " has no Cholesky update (f32, f64)");
  const int64_t n = factor.dims.back();
  if (factor.dims[factor.rank() - 2] != n)
    return r.no("the factors of " + factor.str() + " are not square");
  const ir::Type w = ir::Type::tensor(factor.element, leading(factor, 1));
  JFT_RETURN_IF_ERROR(expectType(r, module.typeOf(op.operands[1]), w, "the vector"));
  JFT_RETURN_IF_ERROR(expectResults(
      r, module, op, {{factor, "the factor result"}, {w, "the vector result"}}));
  JFT_RETURN_IF_ERROR(checkLayouts(r, module, op, {false, false}, {false, false}));
  SolverPlan plan;
  plan.desc.kind = SolverKind::kCholeskyUpdate;
  plan.desc.type =
      factor.element == ir::ElementType::F64 ? SolverType::kF64 : SolverType::kF32;
  plan.desc.batch = leadingProduct(factor.dims, static_cast<size_t>(factor.rank() - 2));
  plan.desc.m = plan.desc.n = n;
  plan.inputs = op.operands;
  plan.outputs = op.results;
  return plan;
}

// The potrf of a's square matrices; `lower` is the triangle the op's own
// (row-major) result holds, so the column-major library computes the other.
StatusOr<SolverPlan> planPotrf(const Reasons& r, const ir::Module& module,
                               const ir::Op& op, bool lower) {
  JFT_ASSIGN_OR_RETURN(ir::Type a,
                       matrixOperand(r, module, op.operands[0], "the operand"));
  JFT_ASSIGN_OR_RETURN(SolverType type, matrixType(r, a));
  const int64_t rank = a.rank();
  if (a.dims[rank - 1] != a.dims[rank - 2])
    return r.no("the matrices of " + a.str() + " are not square");
  JFT_RETURN_IF_ERROR(
      expectType(r, module.typeOf(op.results[0]), a, "the factor result"));
  SolverPlan plan;
  plan.desc.kind = SolverKind::kPotrf;
  plan.desc.type = type;
  plan.desc.batch = leadingProduct(a.dims, static_cast<size_t>(rank - 2));
  plan.desc.m = plan.desc.n = a.dims[rank - 1];
  plan.desc.lower = !lower;
  plan.inputs = {op.operands[0]};
  plan.outputs = {op.results[0]};
  return plan;
}

// cusolver_potrf_ffi(a) -> (factor, info), `lower` in its configuration.
StatusOr<SolverPlan> planPotrfCall(const Reasons& r, const ir::Module& module,
                                   const ir::Op& op) {
  JFT_RETURN_IF_ERROR(expectCounts(r, op, 1, 2));
  JFT_ASSIGN_OR_RETURN(SolverPlan plan,
                       planPotrf(r, module, op, configFlag(op, "lower", false)));
  const ir::Type& a = module.typeOf(op.operands[0]);
  JFT_RETURN_IF_ERROR(expectType(r, module.typeOf(op.results[1]),
                                 ir::Type::tensor(ir::ElementType::I32, leading(a, 2)),
                                 "the info result"));
  JFT_RETURN_IF_ERROR(checkLayouts(r, module, op, {true}, {true, false}));
  JFT_RETURN_IF_ERROR(checkBatchDims(r, op, a.rank() - 2));
  plan.outputs.push_back(op.results[1]);
  return plan;
}

// stablehlo.cholesky(a): the factor only; its info goes to scratch. The
// spec leaves the other triangle implementation-defined: it keeps a's.
StatusOr<SolverPlan> planCholesky(const Reasons& r, const ir::Module& module,
                                  const ir::Op& op) {
  JFT_RETURN_IF_ERROR(expectCounts(r, op, 1, 1));
  const auto* lower = ir::findAttrAs<bool>(op.attrs, "lower");
  JFT_ASSIGN_OR_RETURN(SolverPlan plan,
                       planPotrf(r, module, op, lower != nullptr && *lower));
  plan.workspace_bytes = static_cast<uint64_t>(plan.desc.batch) * 4;
  return plan;
}

// cu_lu_pivots_to_permutation(pivots [..., k]) -> permutation [..., m].
StatusOr<SolverPlan> planPermutation(const Reasons& r, const ir::Module& module,
                                     const ir::Op& op) {
  JFT_RETURN_IF_ERROR(expectCounts(r, op, 1, 1));
  const ir::Type& pivots = module.typeOf(op.operands[0]);
  const ir::Type& result = module.typeOf(op.results[0]);
  if (!pivots.isTensor() || pivots.rank() < 1 || pivots.element != ir::ElementType::I32)
    return r.no("the pivots " + pivots.str() + " are not a batch of i32 vectors");
  if (!result.isTensor() || result.rank() != pivots.rank() ||
      result.element != ir::ElementType::I32 || leading(result, 1) != leading(pivots, 1))
    return r.no("the permutation " + result.str() + " does not match the pivots " +
                pivots.str());
  JFT_RETURN_IF_ERROR(checkLayouts(r, module, op, {false}, {false}));
  JFT_RETURN_IF_ERROR(checkBatchDims(r, op, pivots.rank() - 1));
  SolverPlan plan;
  plan.desc.kind = SolverKind::kLuPivotsToPermutation;
  plan.desc.type = SolverType::kS32;
  plan.desc.batch = leadingProduct(pivots.dims, static_cast<size_t>(pivots.rank() - 1));
  plan.desc.n = pivots.dims.back();
  plan.desc.m = result.dims.back();
  plan.inputs = {op.operands[0]};
  plan.outputs = {op.results[0]};
  return plan;
}

// stablehlo.triangular_solve(a, b): on the column-major view B^T the side
// and the triangle flip and m, n swap; op(A) stays (see solver_plan.h).
StatusOr<SolverPlan> planTriangularSolve(const Reasons& r, const ir::Module& module,
                                         const ir::Op& op) {
  JFT_RETURN_IF_ERROR(expectCounts(r, op, 2, 1));
  JFT_ASSIGN_OR_RETURN(ir::Type a, matrixOperand(r, module, op.operands[0], "a"));
  JFT_ASSIGN_OR_RETURN(ir::Type b, matrixOperand(r, module, op.operands[1], "b"));
  JFT_ASSIGN_OR_RETURN(SolverType type, matrixType(r, b));
  const auto* left = ir::findAttrAs<bool>(op.attrs, "left_side");
  const auto* lower = ir::findAttrAs<bool>(op.attrs, "lower");
  const auto* unit = ir::findAttrAs<bool>(op.attrs, "unit_diagonal");
  const auto* transpose = ir::findAttrAs<ir::Transpose>(op.attrs, "transpose_a");
  const bool leftSide = left != nullptr && *left;
  const int64_t rank = b.rank();
  const int64_t rows = b.dims[rank - 2], cols = b.dims[rank - 1];
  const int64_t k = leftSide ? rows : cols;
  if (a.element != b.element || a.rank() != rank || leading(a, 2) != leading(b, 2) ||
      a.dims[rank - 2] != k || a.dims[rank - 1] != k)
    return r.no("a " + a.str() + " does not fit b " + b.str() + " on the " +
                (leftSide ? "left" : "right"));
  JFT_RETURN_IF_ERROR(expectType(r, module.typeOf(op.results[0]), b, "the result"));
  SolverPlan plan;
  SolverDesc& d = plan.desc;
  d.kind = SolverKind::kTriangularSolve;
  d.type = type;
  d.batch = leadingProduct(b.dims, static_cast<size_t>(rank - 2));
  d.m = cols;
  d.n = rows;
  d.left_side = !leftSide;
  d.lower = !(lower != nullptr && *lower);
  d.unit_diagonal = unit != nullptr && *unit;
  const bool complex = type == SolverType::kC64 || type == SolverType::kC128;
  d.transpose = SolverTranspose::kNone;
  if (transpose != nullptr && *transpose == ir::Transpose::TRANSPOSE)
    d.transpose = SolverTranspose::kTranspose;
  if (transpose != nullptr && *transpose == ir::Transpose::ADJOINT)
    d.transpose = complex ? SolverTranspose::kAdjoint : SolverTranspose::kTranspose;
  plan.inputs = {op.operands[0], op.operands[1]};
  plan.outputs = {op.results[0]};
  return plan;
}

}  // namespace

StatusOr<SolverPlan> planSolver(const ir::Module& module, const ir::Op& op) {
  const Reasons r{fusion::opNameWithTarget(op)};
  switch (op.kind) {
    case ir::OpKind::TriangularSolve:
      return planTriangularSolve(r, module, op);
    case ir::OpKind::Cholesky:
      return planCholesky(r, module, op);
    case ir::OpKind::CustomCall:
      break;
    default:
      return unimplemented("no library route for " + r.name + " yet");
  }
  const std::string target = targetOf(op);
  if (target == "cusolver_getrf_ffi") return planGetrf(r, module, op);
  if (target == "cusolver_potrf_ffi") return planPotrfCall(r, module, op);
  if (target == "cu_lu_pivots_to_permutation") return planPermutation(r, module, op);
  if (target == "cusolver_geqrf_ffi") return planGeqrf(r, module, op);
  if (target == "cusolver_orgqr_ffi") return planOrgqr(r, module, op);
  if (target == "cusolver_syevd_ffi") return planSyevd(r, module, op);
  if (target == "cusolver_gesvdj_ffi")
    return planSvdUv(r, module, op, SolverKind::kGesvdj);
  if (target == "cusolver_gesvdp_ffi")
    return planSvdUv(r, module, op, SolverKind::kGesvdp);
  if (target == "cusolver_gesvd_ffi") return planGesvd(r, module, op);
  if (target == "cusolver_sytrd_ffi") return planSytrd(r, module, op);
  if (target == "cusolver_geev_ffi") return planGeev(r, module, op);
  if (target == "cusolver_ormqr_ffi") return planOrmqr(r, module, op);
  if (target == "cu_cholesky_update_ffi") return planCholeskyUpdate(r, module, op);
  return unimplemented("no library route for " + r.name + " yet");
}

}  // namespace jft::codegen::library
