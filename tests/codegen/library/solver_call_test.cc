// The solver lowering: each op's column-major description and buffer order
// (read off the StableHLO spec and jaxlib's FFI contracts by hand), the
// transposes around getrf, clear errors for what no library computes, and
// the row-major -> column-major flag mapping checked numerically: a naive
// column-major LAPACK-style reference run on our row-major buffers with the
// planned flags must satisfy the op's own equation (op(A) X = B, L L^T = A,
// A[perm] = L U) evaluated row-major.
#include "codegen/library/solver_call.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <utility>

#include "codegen/library/solver_one_op.h"
#include "codegen/library/solver_plan.h"
#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "compiler/program_checks.h"
#include "compiler/zoo_fixture.h"
#include "ir/builder.h"
#include "runtime/library_op.h"
#include "runtime/program.h"
#include "runtime/program_check.h"

#ifdef JFT_FAKE_WORKER
#include <unistd.h>

#include "kernel_compiler/fake_worker_command.h"
#include "kernel_compiler/kernel_compiler.h"
#endif

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using runtime::SolverDesc;
using runtime::SolverKind;
using runtime::SolverTranspose;
using runtime::SolverType;

using testing::expectRejected;
using testing::f32;
using testing::i32;
using testing::layouts;
using testing::OneOp;

ir::NamedAttrs getrfAttrs(std::vector<std::vector<int64_t>> operand,
                          std::vector<std::vector<int64_t>> result,
                          const std::string& batch_dims = "1") {
  return {{"call_target_name", std::string("cusolver_getrf_ffi")},
          {"operand_layouts", layouts(std::move(operand))},
          {"result_layouts", layouts(std::move(result))},
          {"mhlo.frontend_attributes",
           ir::NamedAttrs{{"num_batch_dims", ir::Attribute(batch_dims)}}}};
}

// A batch of 3 f32 4x5 matrices, as JAX lowers lax.linalg.lu on GPU.
OneOp batchedGetrf() {
  return OneOp(OpKind::CustomCall, {f32({3, 4, 5})},
               {f32({3, 4, 5}), i32({3, 4}), i32({3})},
               getrfAttrs({{1, 2, 0}}, {{1, 2, 0}, {1, 0}, {0}}));
}

TEST(SolverPlan, GetrfFactorsTheColumnMajorCopy) {
  OneOp x = batchedGetrf();
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kGetrf;
  want.type = SolverType::kF32;
  want.batch = 3;
  want.m = 4;
  want.n = 5;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  const ir::Op& op = x.op();
  EXPECT_EQ(p->inputs, std::vector<ir::ValueId>{op.operands[0]});
  EXPECT_EQ(p->outputs, op.results);  // lu, pivots, info
  EXPECT_EQ(p->workspace_bytes, 0u);
}

TEST(SolverCall, GetrfRunsBetweenTwoTransposeKernels) {
  OneOp x = batchedGetrf();
  const ir::Op op = x.op();
  StatusOr<LibraryCall> call = lowerSolverCall(x.m, x.group, op);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  ASSERT_TRUE(call->other.has_value());
  ASSERT_EQ(call->transposes.size(), 1u);
  ASSERT_EQ(call->after.size(), 1u);
  const OperandTranspose& in = call->transposes[0];
  const OperandTranspose& out = call->after[0];
  // Before: the operand, last two dims swapped, into the call's input.
  EXPECT_EQ(in.group.inputs, std::vector<ir::ValueId>{op.operands[0]});
  EXPECT_EQ(call->other->inputs, in.group.outputs);
  EXPECT_EQ(x.m.typeOf(in.group.outputs[0]), f32({3, 5, 4}));
  EXPECT_EQ(
      *ir::findAttrAs<std::vector<int64_t>>(in.scratch.body.ops[0].attrs, "permutation"),
      (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(in.group.route, fusion::Route::kTtir);
  // After: the call's column-major LU back into the op's result.
  ASSERT_EQ(call->other->outputs.size(), 3u);
  EXPECT_EQ(out.group.inputs, std::vector<ir::ValueId>{call->other->outputs[0]});
  EXPECT_EQ(out.group.outputs, std::vector<ir::ValueId>{op.results[0]});
  EXPECT_EQ(x.m.typeOf(call->other->outputs[0]), f32({3, 5, 4}));
  EXPECT_EQ(call->other->outputs[1], op.results[1]);
  EXPECT_EQ(call->other->outputs[2], op.results[2]);
}

TEST(SolverPlan, QrFactorsAndHouseholderProductUseColumnMajorCopies) {
  // jnp.linalg.qr of a batch of 2 6x4 matrices: geqrf, then orgqr on the
  // reflectors with 4 taus.
  OneOp geqrf(OpKind::CustomCall, {f32({2, 6, 4})}, {f32({2, 6, 4}), f32({2, 4})},
              {{"call_target_name", std::string("cusolver_geqrf_ffi")},
               {"operand_layouts", layouts({{1, 2, 0}})},
               {"result_layouts", layouts({{1, 2, 0}, {1, 0}})}});
  StatusOr<SolverPlan> qr = geqrf.plan();
  ASSERT_TRUE(qr.isOk()) << qr.status().toString();
  EXPECT_EQ(runtime::solverText(qr->desc), "geqrf f32 batch 2 6x4");
  EXPECT_EQ(qr->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(qr->column_major_outputs, std::vector<size_t>{0});
  EXPECT_EQ(qr->outputs, geqrf.op().results);  // qr, tau
  EXPECT_EQ(runtime::solverBufferBytes(qr->desc),
            (std::vector<uint64_t>{2 * 24 * 4, 2 * 24 * 4, 2 * 4 * 4}));
  OneOp orgqr(OpKind::CustomCall, {f32({2, 6, 4}), f32({2, 4})}, {f32({2, 6, 4})},
              {{"call_target_name", std::string("cusolver_orgqr_ffi")},
               {"operand_layouts", layouts({{1, 2, 0}, {1, 0}})},
               {"result_layouts", layouts({{1, 2, 0}})}});
  StatusOr<SolverPlan> q = orgqr.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "orgqr f32 batch 2 6x4 k 4");
  EXPECT_EQ(q->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(q->column_major_outputs, std::vector<size_t>{0});
  EXPECT_EQ(q->inputs, orgqr.op().operands);  // a, tau
  // Wide reflectors are not a Householder product cuSOLVER computes.
  OneOp wide(OpKind::CustomCall, {f32({4, 6}), f32({4})}, {f32({4, 6})},
             {{"call_target_name", std::string("cusolver_orgqr_ffi")},
              {"operand_layouts", layouts({{0, 1}, {0}})},
              {"result_layouts", layouts({{0, 1}})}});
  Status s = checkSolverCall(wide.m, wide.op());
  EXPECT_NE(s.message().find("rows >= columns >= taus, not 4, 6, 4"), std::string::npos)
      << s.message();
}

TEST(SolverPlan, ComplexFactorizationsUseComplexColumnMajorCopies) {
  // lax.linalg.lu and qr of complex matrices: the same copies as real ones
  // (the loop family moves a complex value's two parts alike).
  OneOp lu(OpKind::CustomCall, {Type::tensor(ElementType::C64, {2, 4, 4})},
           {Type::tensor(ElementType::C64, {2, 4, 4}), i32({2, 4}), i32({2})},
           getrfAttrs({{1, 2, 0}}, {{1, 2, 0}, {1, 0}, {0}}));
  StatusOr<SolverPlan> p = lu.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "getrf c64 batch 2 4x4");
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  const Type z = Type::tensor(ElementType::C128, {6, 4});
  OneOp geqrf(OpKind::CustomCall, {z}, {z, Type::tensor(ElementType::C128, {4})},
              {{"call_target_name", std::string("cusolver_geqrf_ffi")},
               {"operand_layouts", layouts({{0, 1}})},
               {"result_layouts", layouts({{0, 1}, {0}})}});
  StatusOr<SolverPlan> qr = geqrf.plan();
  ASSERT_TRUE(qr.isOk()) << qr.status().toString();
  // qr and a 6*4*16 each, tau 4*16.
  EXPECT_EQ(runtime::solverBufferBytes(qr->desc), (std::vector<uint64_t>{384, 384, 64}));
  StatusOr<LibraryCall> call = lowerSolverCall(lu.m, lu.group, lu.op());
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  ASSERT_EQ(call->transposes.size(), 1u);
  EXPECT_EQ(lu.m.typeOf(call->transposes[0].group.outputs[0]),
            Type::tensor(ElementType::C64, {2, 4, 4}));
}

TEST(SolverPlan, PotrfFlipsTheTriangleAndKeepsInfo) {
  for (const char* holder : {"mhlo.backend_config", "backend_config"}) {
    OneOp x(OpKind::CustomCall, {f32({6, 6})}, {f32({6, 6}), i32({})},
            {{"call_target_name", std::string("cusolver_potrf_ffi")},
             {holder, ir::NamedAttrs{{"lower", ir::Attribute(true)}}},
             {"operand_layouts", layouts({{0, 1}})},
             {"result_layouts", layouts({{0, 1}, {}})}});
    StatusOr<SolverPlan> p = x.plan();
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    EXPECT_EQ(runtime::solverText(p->desc), "potrf f32 batch 1 6x6 upper") << holder;
    EXPECT_TRUE(p->column_major_inputs.empty());
    EXPECT_TRUE(p->column_major_outputs.empty());
    EXPECT_EQ(p->outputs, x.op().results);
  }
}

TEST(SolverPlan, CholeskyOpPutsInfoInScratch) {
  OneOp x(OpKind::Cholesky, {f32({2, 3, 5, 5})}, {f32({2, 3, 5, 5})},
          {{"lower", ir::Attribute(true)}});
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "potrf f32 batch 6 5x5 upper");
  EXPECT_EQ(p->workspace_bytes, 6u * 4u);
  OneOp upper(OpKind::Cholesky, {f32({5, 5})}, {f32({5, 5})}, {});
  EXPECT_TRUE(upper.plan()->desc.lower);  // lower = false: U^H U, the column-major L
}

TEST(SolverPlan, PermutationSizesComeFromBothTypes) {
  OneOp x(OpKind::CustomCall, {i32({2, 6})}, {i32({2, 8})},
          {{"call_target_name", std::string("cu_lu_pivots_to_permutation")}});
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "lu_pivots_to_permutation s32 batch 2 8x6");
}

TEST(SolverPlan, TriangularSolveSwapsSideAndTriangle) {
  // b is 2 x [6 rows, 4 cols]; a is 6x6 on the left, 4x4 on the right.
  struct Case {
    bool left, lower;
    ir::Transpose transpose;
    bool unit;
    const char* text;
  };
  for (const Case& c : {Case{true, true, ir::Transpose::NO_TRANSPOSE, true,
                             "triangular_solve f32 batch 2 4x6 right upper N unit"},
                        Case{true, false, ir::Transpose::TRANSPOSE, false,
                             "triangular_solve f32 batch 2 4x6 right lower T"},
                        Case{false, true, ir::Transpose::ADJOINT, false,
                             "triangular_solve f32 batch 2 4x6 left upper T"}}) {
    const int64_t k = c.left ? 6 : 4;
    OneOp x(OpKind::TriangularSolve, {f32({2, k, k}), f32({2, 6, 4})}, {f32({2, 6, 4})},
            {{"left_side", ir::Attribute(c.left)},
             {"lower", ir::Attribute(c.lower)},
             {"unit_diagonal", ir::Attribute(c.unit)},
             {"transpose_a", ir::Attribute(c.transpose)}});
    StatusOr<SolverPlan> p = x.plan();
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    EXPECT_EQ(runtime::solverText(p->desc), c.text);
    EXPECT_EQ(p->inputs, x.op().operands);
    EXPECT_EQ(runtime::solverBufferBytes(p->desc),
              (std::vector<uint64_t>{static_cast<uint64_t>(2 * k * k * 4), 2 * 24 * 4,
                                     2 * 24 * 4}));
  }
}

TEST(SolverCheck, ClearReasons) {
  // A row-major matrix: the library would read it transposed.
  expectRejected(
      OneOp(OpKind::CustomCall, {f32({3, 4, 5})}, {f32({3, 4, 5}), i32({3, 4}), i32({3})},
            getrfAttrs({{2, 1, 0}}, {{1, 2, 0}, {1, 0}, {0}})),
      {"custom_call @cusolver_getrf_ffi", "operand 0 has layout {2,1,0}", "column-major",
       "{1,2,0}"});
  // No layouts at all is the default row-major one.
  expectRejected(
      OneOp(OpKind::CustomCall, {f32({4, 4})}, {f32({4, 4}), i32({4}), i32({})},
            {{"call_target_name", std::string("cusolver_getrf_ffi")}}),
      {"operand 0 has layout {1,0}"});
  expectRejected(OneOp(OpKind::CustomCall, {Type::tensor(ElementType::BF16, {4, 4})},
                       {Type::tensor(ElementType::BF16, {4, 4}), i32({4}), i32({})},
                       getrfAttrs({{0, 1}}, {{0, 1}, {0}, {}})),
                 {"element type bf16", "f32, f64, complex<f32>, complex<f64>"});
  expectRejected(
      OneOp(OpKind::CustomCall, {f32({4, 4})}, {f32({4, 4}), i32({4}), i32({})},
            getrfAttrs({{0, 1}}, {{0, 1}, {0}, {}})),
      {"num_batch_dims is 1 but the operand has 0 batch dims"});
  expectRejected(
      OneOp(OpKind::CustomCall, {f32({4, 4})}, {f32({4, 4}), i32({3}), i32({})},
            getrfAttrs({{0, 1}}, {{0, 1}, {0}, {}})),
      {"the pivots result is tensor<3xi32>, expected tensor<4xi32>"});
  expectRejected(OneOp(OpKind::CustomCall, {f32({4, 4})}, {f32({4, 4})},
                       {{"call_target_name", std::string("cusolver_csrlsvqr_ffi")}}),
                 {"no library route for custom_call @cusolver_csrlsvqr_ffi yet"});
  expectRejected(OneOp(OpKind::CustomCall, {f32({4, 4})}, {f32({4}), f32({4, 4})},
                       {{"call_target_name", std::string("cusolver_gesvdp_ffi")}}),
                 {"custom_call @cusolver_gesvdp_ffi: expected 1 operands and 5 results"});
  expectRejected(OneOp(OpKind::Cholesky, {f32({4, 5})}, {f32({4, 5})}, {}),
                 {"cholesky", "not square"});
}

// --- the mapping, numerically -----------------------------------------------

// Column-major element (i, j) of a matrix with leading dimension ld.
double& at(std::vector<double>& a, int64_t ld, int64_t i, int64_t j) {
  return a[i + j * ld];
}

// Column-major trsm as BLAS defines it (alpha = 1), in place on B (m x n).
void referenceTrsm(const SolverDesc& d, const std::vector<double>& aIn,
                   std::vector<double>& b) {
  std::vector<double> a = aIn;
  const int64_t k = d.left_side ? d.m : d.n;
  // op(A) as a dense k x k matrix, its unused triangle zero, diagonal 1 if unit.
  std::vector<double> op(static_cast<size_t>(k * k), 0.0);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j) {
      const bool inTriangle = d.lower ? i >= j : i <= j;
      double v = inTriangle ? at(a, k, i, j) : 0.0;
      if (i == j && d.unit_diagonal) v = 1.0;
      if (d.transpose == SolverTranspose::kNone)
        at(op, k, i, j) = v;
      else
        at(op, k, j, i) = v;
    }
  // Solve by Gaussian elimination on the dense op(A) (small, well conditioned).
  auto solveLeft = [&](std::vector<double>& rhs, int64_t rows, int64_t cols) {
    std::vector<double> m = op;
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t r = c + 1; r < k; ++r) {
        const double f = at(m, k, r, c) / at(m, k, c, c);
        for (int64_t j = 0; j < k; ++j) at(m, k, r, j) -= f * at(m, k, c, j);
        for (int64_t j = 0; j < cols; ++j) at(rhs, rows, r, j) -= f * at(rhs, rows, c, j);
      }
    }
    for (int64_t c = k - 1; c >= 0; --c)
      for (int64_t j = 0; j < cols; ++j) {
        double s = at(rhs, rows, c, j);
        for (int64_t t = c + 1; t < k; ++t) s -= at(m, k, c, t) * at(rhs, rows, t, j);
        at(rhs, rows, c, j) = s / at(m, k, c, c);
      }
  };
  if (d.left_side) {
    solveLeft(b, d.m, d.n);
    return;
  }
  // X op(A) = B  <=>  op(A)^T X^T = B^T.
  std::vector<double> bt(b.size());
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j) at(bt, d.n, j, i) = at(b, d.m, i, j);
  std::vector<double> opT = op;
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j) at(op, k, i, j) = at(opT, k, j, i);
  solveLeft(bt, d.n, d.m);
  for (int64_t i = 0; i < d.m; ++i)
    for (int64_t j = 0; j < d.n; ++j) at(b, d.m, i, j) = at(bt, d.n, j, i);
}

TEST(SolverMapping, TriangularSolveSatisfiesTheRowMajorEquation) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  const int64_t rows = 5, cols = 3;
  for (bool left : {true, false})
    for (bool lower : {true, false})
      for (auto t : {ir::Transpose::NO_TRANSPOSE, ir::Transpose::TRANSPOSE})
        for (bool unit : {false, true}) {
          const int64_t k = left ? rows : cols;
          OneOp x(OpKind::TriangularSolve, {f32({k, k}), f32({rows, cols})},
                  {f32({rows, cols})},
                  {{"left_side", ir::Attribute(left)},
                   {"lower", ir::Attribute(lower)},
                   {"unit_diagonal", ir::Attribute(unit)},
                   {"transpose_a", ir::Attribute(t)}});
          StatusOr<SolverPlan> p = x.plan();
          ASSERT_TRUE(p.isOk()) << p.status().toString();
          // Row-major A (diagonally dominant) and B; X solved in place on B's buffer.
          std::vector<double> a(static_cast<size_t>(k * k)), b(rows * cols);
          for (int64_t i = 0; i < k; ++i)
            for (int64_t j = 0; j < k; ++j) a[i * k + j] = i == j ? 4.0 + i : draw(rng);
          for (double& v : b) v = draw(rng);
          std::vector<double> xs = b;
          referenceTrsm(p->desc, a, xs);
          // op(A) logically (row-major meaning), then the residual.
          auto opA = [&](int64_t i, int64_t j) {
            const int64_t r = t == ir::Transpose::NO_TRANSPOSE ? i : j;
            const int64_t c = t == ir::Transpose::NO_TRANSPOSE ? j : i;
            if (r == c && unit) return 1.0;
            if (lower ? r < c : r > c) return 0.0;
            return a[r * k + c];
          };
          double worst = 0;
          for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
              double s = 0;
              for (int64_t q = 0; q < k; ++q)
                s += left ? opA(i, q) * xs[q * cols + j] : xs[i * cols + q] * opA(q, j);
              worst = std::max(worst, std::fabs(s - b[i * cols + j]));
            }
          EXPECT_LT(worst, 1e-12) << runtime::solverText(p->desc);
        }
}

// Column-major Cholesky of the triangle d.lower names, in place.
void referencePotrf(const SolverDesc& d, std::vector<double>& a) {
  const int64_t n = d.n;
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = j; i < n; ++i) {
      // L(i, j) in the lower case; U(j, i) = L(i, j) in the upper one.
      auto el = [&](int64_t r, int64_t c) -> double& {
        return d.lower ? at(a, n, r, c) : at(a, n, c, r);
      };
      double s = el(i, j);
      for (int64_t q = 0; q < j; ++q) s -= el(i, q) * el(j, q);
      el(i, j) = i == j ? std::sqrt(s) : s / el(j, j);
    }
}

TEST(SolverMapping, CholeskyFactorIsTheRowMajorOne) {
  const int64_t n = 4;
  // A = M M^T + n I, symmetric positive definite.
  std::vector<double> m = {1, 2, 0, 1, 0, 1, 3, 1, 2, 0, 1, 1, 1, 1, 0, 2};
  std::vector<double> a(n * n, 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t q = 0; q < n; ++q) a[i * n + j] += m[i * n + q] * m[j * n + q];
      if (i == j) a[i * n + j] += n;
    }
  for (bool lower : {true, false}) {
    OneOp x(OpKind::Cholesky, {f32({n, n})}, {f32({n, n})},
            {{"lower", ir::Attribute(lower)}});
    StatusOr<SolverPlan> p = x.plan();
    ASSERT_TRUE(p.isOk());
    std::vector<double> f = a;
    referencePotrf(p->desc, f);
    // Row-major meaning: lower -> L with L L^T = A; upper -> U with U^T U = A.
    auto tri = [&](int64_t i, int64_t j) {
      return (lower ? i >= j : i <= j) ? f[i * n + j] : 0.0;
    };
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t q = 0; q < n; ++q)
          s += lower ? tri(i, q) * tri(j, q) : tri(q, i) * tri(q, j);
        worst = std::max(worst, std::fabs(s - a[i * n + j]));
      }
    EXPECT_LT(worst, 1e-12) << (lower ? "lower" : "upper");
  }
}

// Column-major getrf with partial pivoting (LAPACK's ipiv, 1-based).
void referenceGetrf(const SolverDesc& d, std::vector<double>& a,
                    std::vector<int32_t>& ipiv) {
  const int64_t m = d.m, n = d.n;
  for (int64_t c = 0; c < std::min(m, n); ++c) {
    int64_t p = c;
    for (int64_t r = c + 1; r < m; ++r)
      if (std::fabs(at(a, m, r, c)) > std::fabs(at(a, m, p, c))) p = r;
    ipiv[static_cast<size_t>(c)] = static_cast<int32_t>(p + 1);
    for (int64_t j = 0; j < n; ++j) std::swap(at(a, m, c, j), at(a, m, p, j));
    for (int64_t r = c + 1; r < m; ++r) {
      at(a, m, r, c) /= at(a, m, c, c);
      for (int64_t j = c + 1; j < n; ++j)
        at(a, m, r, j) -= at(a, m, r, c) * at(a, m, c, j);
    }
  }
}

TEST(SolverMapping, LuOfTheTransposedCopyAndItsPermutation) {
  // Row-major 4x3 A; the plan transposes it to column-major, factors, and
  // transposes the LU back; JAX then takes pivots - 1 to the permutation.
  const int64_t m = 4, n = 3;
  std::vector<double> a = {1, 2, 3, 4, 0, 6, 7, 8, 10, 2, 9, 1};
  OneOp x(OpKind::CustomCall, {f32({m, n})}, {f32({m, n}), i32({n}), i32({})},
          getrfAttrs({{0, 1}}, {{0, 1}, {0}, {}}, "0"));
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  ASSERT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  ASSERT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  std::vector<double> column(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      column[j * m + i] = a[i * n + j];  // the transpose kernel
  std::vector<int32_t> ipiv(3);
  referenceGetrf(p->desc, column, ipiv);
  std::vector<double> lu(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) lu[i * n + j] = column[j * m + i];  // and back
  std::vector<int32_t> pivots;
  for (int32_t v : ipiv) pivots.push_back(v - 1);
  std::vector<int32_t> perm(m);
  runtime::luPivotsToPermutation(pivots.data(), perm.data(), 1, n, m);
  // A[perm[i], :] = (L U)[i, :], L unit lower m x n, U upper n x n.
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < n; ++q) {
        const double l = q == i ? 1.0 : (q < i ? lu[i * n + q] : 0.0);
        const double u = q <= j ? lu[q * n + j] : 0.0;
        s += l * u;
      }
      EXPECT_NEAR(s, a[perm[i] * n + j], 1e-12) << i << "," << j;
    }
}

// --- the zoo's linalg program -----------------------------------------------

std::vector<std::string> solverTexts(const runtime::Program& p) {
  std::vector<std::string> texts;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* l = std::get_if<runtime::LibraryThunk>(&t))
      texts.push_back(runtime::libraryOpText(l->op));
  return texts;
}

// jnp.linalg.solve and cholesky of a 32x32 SPD matrix, 4 right-hand sides
// (tests/fixtures/zoo/linalg/program.mlir): getrf, the permutation, the two
// triangular solves of _lu_solve (unit lower, then upper: on the column-major
// view of the 32x4 b they solve from the right), and potrf lower = true.
void expectLinalgProgram(const runtime::Program& p) {
  std::vector<std::string> texts = solverTexts(p);
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(texts,
            (std::vector<std::string>{
                "getrf f32 batch 1 32x32", "lu_pivots_to_permutation s32 batch 1 32x32",
                "potrf f32 batch 1 32x32 upper",
                "triangular_solve f32 batch 1 4x32 right lower N",
                "triangular_solve f32 batch 1 4x32 right upper N unit"}));
  for (size_t t = 0; t < p.thunks.size(); ++t) {
    const auto* l = std::get_if<runtime::LibraryThunk>(&p.thunks[t]);
    if (l == nullptr) continue;
    const auto& desc = std::get<runtime::SolverDesc>(l->op);
    // Every buffer holds what the description touches.
    std::vector<uint64_t> need = runtime::solverBufferBytes(desc);
    ASSERT_EQ(l->buffers.size(), need.size()) << runtime::solverText(desc);
    for (size_t i = 0; i < need.size(); ++i)
      EXPECT_GE(p.slots.at(static_cast<size_t>(l->buffers[i])).bytes, need[i])
          << runtime::solverText(desc) << " buffer " << i;
    if (desc.kind != SolverKind::kGetrf) continue;
    // The column-major copy is written by the launch just before; the LU is
    // read back by the launch just after.
    ASSERT_GT(t, 0u);
    ASSERT_LT(t + 1, p.thunks.size());
    const auto* before = std::get_if<runtime::LaunchThunk>(&p.thunks[t - 1]);
    const auto* after = std::get_if<runtime::LaunchThunk>(&p.thunks[t + 1]);
    ASSERT_NE(before, nullptr);
    ASSERT_NE(after, nullptr);
    EXPECT_EQ(before->buffers.back(), l->buffers[0]);
    EXPECT_EQ(after->buffers.front(), l->buffers[1]);
  }
}

TEST(SolverZoo, LinalgCompilesInFlOnly) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.matmul = fusion::MatmulRoute::kLibrary;  // the library route under test
  StatusOr<Executable> result = compile(testing::zooArtifact("linalg"), options, nullptr);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  expectLinalgProgram(result->program);
  testing::expectConsistentProgram(result->program, false);
  // Five library rows name the same descriptions, and one more for the a a^T product.
  size_t library = 0;
  for (const RouteEntry& e : result->report.entries) library += e.route == "library";
  EXPECT_EQ(library, 6u) << result->report.text();

#ifdef JFT_FAKE_WORKER
  namespace fs = std::filesystem;
  fs::path dir =
      fs::temp_directory_path() / ("jft_solver_zoo_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    kernel_compiler::KernelCompilerOptions kc;
    kc.pool = kernel_compiler::testing::fakePoolOptions(2, (dir / "failures").string());
    kc.cache_dir = (dir / "cache").string();
    auto compiler = kernel_compiler::KernelCompiler::create(std::move(kc));
    ASSERT_TRUE(compiler.isOk()) << compiler.status().toString();
    StatusOr<Executable> built =
        compile(testing::zooArtifact("linalg"), options, compiler->get());
    ASSERT_TRUE(built.isOk()) << built.status().toString();
    testing::expectConsistentProgram(built->program, true);
    Status loadable = runtime::checkProgram(built->program, 32);
    EXPECT_TRUE(loadable.isOk()) << loadable.toString();
    expectLinalgProgram(built->program);
  }
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace jft::compiler
