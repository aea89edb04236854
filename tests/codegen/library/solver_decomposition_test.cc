// The eigendecomposition and SVD custom calls of JAX 0.11's GPU lowering
// (cusolver_syevd_ffi for eigh, cusolver_gesvdj_ffi for svd up to 1024 x
// 1024) as solver descriptions. The ops are written as jax/_src/lax/linalg.py
// emits them (read by hand): operand and matrix results column-major
// ((r-2, r-1, r-3, ..., 0)), vectors row-major, the flags in
// mhlo.backend_config, num_batch_dims in mhlo.frontend_attributes; for svd
// the U and V shapes follow its `econ = not full_matrices and m > 32 and
// n > 32` rule. Checked: the description, buffer order and sizes (counted
// by hand), the transposes around the call, what the library reads for each
// `lower` (worked out against the symmetric matrix JAX means), clear errors,
// and whole programs through the pipeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "codegen/library/solver_call.h"
#include "codegen/library/solver_one_op.h"
#include "codegen/library/solver_plan.h"
#include "compiler/compiler.h"
#include "compiler/program_checks.h"
#include "compiler/ir_shorthands.h"
#include "ir/builder.h"
#include "runtime/library_op.h"
#include "runtime/program.h"

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using runtime::EigAlgorithm;
using runtime::SolverDesc;
using runtime::SolverKind;
using runtime::SolverType;
using testing::columnMajor;
using testing::compileAtLine9;
using testing::expectRejected;
using testing::i32;
using testing::layouts;
using testing::OneOp;
using testing::rowMajor;
using testing::tensor;

// Operand a [batch..., n, n]; results v (a's type), w [batch..., n] of the
// real type, info [batch...]; config {algorithm = ui8, lower = bool}.
OneOp eigh(ElementType e, std::vector<int64_t> batch, int64_t n, bool lower,
           int64_t algorithm, ElementType real) {
  std::vector<int64_t> a = batch, w = batch;
  a.insert(a.end(), {n, n});
  w.push_back(n);
  const int64_t r = static_cast<int64_t>(a.size());
  return OneOp(
      OpKind::CustomCall, {tensor(e, a)}, {tensor(e, a), tensor(real, w), i32(batch)},
      {{"call_target_name", std::string("cusolver_syevd_ffi")},
       {"mhlo.backend_config", ir::NamedAttrs{{"algorithm", ir::Attribute(algorithm)},
                                              {"lower", ir::Attribute(lower)}}},
       {"operand_layouts", layouts({columnMajor(r)})},
       {"result_layouts", layouts({columnMajor(r), rowMajor(r - 1), rowMajor(r - 2)})},
       {"mhlo.frontend_attributes",
        ir::NamedAttrs{{"num_batch_dims", ir::Attribute(std::to_string(r - 2))}}}});
}

TEST(SyevdPlan, EighOfABatchReadsTheOperandInPlaceWithTheTriangleFlipped) {
  // jnp.linalg.eigh of f32[2, 3, 5, 5] (UPLO 'L': lower = true, algorithm 0).
  OneOp x = eigh(ElementType::F32, {2, 3}, 5, true, 0, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kSyevd;
  want.type = SolverType::kF32;
  want.batch = 6;
  want.m = want.n = 5;
  want.lower = false;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(runtime::solverText(p->desc), "syevd f32 batch 6 5x5 upper");
  EXPECT_EQ(p->inputs, x.op().operands);
  EXPECT_EQ(p->outputs, x.op().results);  // v, w, info
  EXPECT_TRUE(p->column_major_inputs.empty());
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  // a and v 6*25*4, w 6*5*4, info 6*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{600, 600, 120, 24}));
}

TEST(SyevdPlan, AlgorithmAndTriangleOfEachCall) {
  struct Case {
    bool lower;
    int64_t algorithm;
    const char* text;
    EigAlgorithm want;
  };
  for (const Case& c :
       {Case{false, 0, "syevd f64 batch 1 40x40 lower", EigAlgorithm::kDefault},
        Case{true, 1, "syevd f64 batch 1 40x40 upper qr", EigAlgorithm::kQr},
        Case{false, 2, "syevd f64 batch 1 40x40 lower jacobi", EigAlgorithm::kJacobi}}) {
    OneOp x = eigh(ElementType::F64, {}, 40, c.lower, c.algorithm, ElementType::F64);
    StatusOr<SolverPlan> p = x.plan();
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    EXPECT_EQ(runtime::solverText(p->desc), c.text);
    EXPECT_EQ(p->desc.algorithm, c.want);
    // f64 w: 40 * 8 bytes; info one int.
    EXPECT_EQ(runtime::solverBufferBytes(p->desc),
              (std::vector<uint64_t>{12800, 12800, 320, 4}));
  }
}

TEST(SyevdPlan, TheLibrarySeesTheSymmetricMatrixJaxMeans) {
  // Row-major buffer of a non-symmetric A: JAX means the symmetric matrix
  // made of A's `lower` triangle. The library reads the same buffer column-
  // major (element (i, j) at i + j n) and symmetrizes the triangle the
  // description names: both must be one matrix.
  const int64_t n = 4;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  std::vector<double> buffer(n * n);
  for (double& v : buffer) v = draw(rng);
  for (bool lower : {true, false}) {
    OneOp x = eigh(ElementType::F32, {}, n, lower, 0, ElementType::F32);
    StatusOr<SolverPlan> p = x.plan();
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    auto library = [&](int64_t i, int64_t j) {
      const bool inTriangle = p->desc.lower ? i >= j : i <= j;
      return inTriangle ? buffer[i + j * n] : buffer[j + i * n];
    };
    auto meant = [&](int64_t i, int64_t j) {
      const bool inTriangle = lower ? i >= j : i <= j;
      return inTriangle ? buffer[i * n + j] : buffer[j * n + i];
    };
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j)
        EXPECT_EQ(library(i, j), meant(i, j))
            << "lower " << lower << " " << i << "," << j;
  }
}

TEST(SyevdCall, EigenvectorsAreTransposedAfterTheCall) {
  OneOp x = eigh(ElementType::F32, {3}, 6, true, 0, ElementType::F32);
  const ir::Op op = x.op();
  StatusOr<LibraryCall> call = lowerSolverCall(x.m, x.group, op);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  ASSERT_TRUE(call->other.has_value());
  EXPECT_TRUE(call->transposes.empty());
  EXPECT_EQ(call->other->inputs, op.operands);
  ASSERT_EQ(call->after.size(), 1u);
  const OperandTranspose& out = call->after[0];
  EXPECT_EQ(out.group.inputs, std::vector<ir::ValueId>{call->other->outputs[0]});
  EXPECT_EQ(out.group.outputs, std::vector<ir::ValueId>{op.results[0]});
  EXPECT_NE(call->other->outputs[0], op.results[0]);
  EXPECT_EQ(x.m.typeOf(call->other->outputs[0]), tensor(ElementType::F32, {3, 6, 6}));
  EXPECT_EQ(call->other->outputs[1], op.results[1]);
  EXPECT_EQ(call->other->outputs[2], op.results[2]);
}

// Operand a [batch..., m, n]; results work (a's type), s [batch..., k], u
// [batch..., m, m | k], v [batch..., n, n | k], info; config {compute_uv,
// full_matrices}. `econ` is what linalg.py passes as full_matrices = not econ.
OneOp svd(ElementType e, std::vector<int64_t> batch, int64_t m, int64_t n, bool full,
          bool computeUv, ElementType real) {
  const int64_t k = std::min(m, n);
  auto withBatch = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> d = batch;
    d.insert(d.end(), tail.begin(), tail.end());
    return d;
  };
  const int64_t r = static_cast<int64_t>(batch.size()) + 2;
  return OneOp(
      OpKind::CustomCall, {tensor(e, withBatch({m, n}))},
      {tensor(e, withBatch({m, n})), tensor(real, withBatch({k})),
       tensor(e, withBatch({m, full ? m : k})), tensor(e, withBatch({n, full ? n : k})),
       i32(batch)},
      {{"call_target_name", std::string("cusolver_gesvdj_ffi")},
       {"mhlo.backend_config", ir::NamedAttrs{{"compute_uv", ir::Attribute(computeUv)},
                                              {"full_matrices", ir::Attribute(full)}}},
       {"operand_layouts", layouts({columnMajor(r)})},
       {"result_layouts", layouts({columnMajor(r), rowMajor(r - 1), columnMajor(r),
                                   columnMajor(r), rowMajor(r - 2)})},
       {"mhlo.frontend_attributes",
        ir::NamedAttrs{{"num_batch_dims", ir::Attribute(std::to_string(r - 2))}}}});
}

TEST(GesvdjPlan, SvdOfSmallMatricesIsFull) {
  // jnp.linalg.svd of f32[3, 6, 4], full_matrices True or False: both
  // dims <= 32, so linalg.py asks for full U (6x6) and V (4x4) and slices.
  OneOp x = svd(ElementType::F32, {3}, 6, 4, true, true, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kGesvdj;
  want.type = SolverType::kF32;
  want.batch = 3;
  want.m = 6;
  want.n = 4;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(runtime::solverText(p->desc), "gesvdj f32 batch 3 6x4 full");
  EXPECT_EQ(p->inputs, x.op().operands);
  EXPECT_EQ(p->outputs, x.op().results);  // work, s, u, v, info
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, (std::vector<size_t>{2, 3}));
  // a, work 3*24*4; s 3*4*4; u 3*36*4; v 3*16*4; info 3*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{288, 288, 48, 432, 192, 12}));
}

TEST(GesvdjPlan, LargeMatricesWithoutFullMatricesAreEconomic) {
  // f64[64, 48], full_matrices=False: m, n > 32, so econ: U 64x48, V 48x48.
  OneOp x = svd(ElementType::F64, {}, 64, 48, false, true, ElementType::F64);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "gesvdj f64 batch 1 64x48 econ");
  EXPECT_FALSE(p->desc.full_matrices);
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{64 * 48 * 8, 64 * 48 * 8, 48 * 8, 64 * 48 * 8,
                                   48 * 48 * 8, 4}));
  // A wide one: 40x100, U 40x40, V 100x40.
  OneOp wide = svd(ElementType::F32, {2}, 40, 100, false, true, ElementType::F32);
  StatusOr<SolverPlan> w = wide.plan();
  ASSERT_TRUE(w.isOk()) << w.status().toString();
  EXPECT_EQ(runtime::solverBufferBytes(w->desc),
            (std::vector<uint64_t>{2 * 4000 * 4, 2 * 4000 * 4, 2 * 40 * 4, 2 * 1600 * 4,
                                   2 * 4000 * 4, 8}));
}

TEST(GesvdjPlan, WithoutVectorsNothingIsTransposedBack) {
  // jnp.linalg.svd(compute_uv=False) of f32[4, 5, 7]: U and V are still
  // allocated (5x5, 7x7), as scratch.
  OneOp x = svd(ElementType::F32, {4}, 5, 7, true, false, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "gesvdj f32 batch 4 5x7 full no_uv");
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_TRUE(p->column_major_outputs.empty());
}

TEST(GesvdjCall, OperandCopiedInAndBothFactorsMovedBack) {
  OneOp x = svd(ElementType::F32, {2}, 6, 4, true, true, ElementType::F32);
  const ir::Op op = x.op();
  StatusOr<LibraryCall> call = lowerSolverCall(x.m, x.group, op);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  ASSERT_TRUE(call->other.has_value());
  ASSERT_EQ(call->transposes.size(), 1u);
  EXPECT_EQ(call->transposes[0].group.inputs, std::vector<ir::ValueId>{op.operands[0]});
  EXPECT_EQ(call->other->inputs, call->transposes[0].group.outputs);
  EXPECT_EQ(x.m.typeOf(call->other->inputs[0]), tensor(ElementType::F32, {2, 4, 6}));
  // work, s and info are the op's own results; u and v come back by kernels.
  ASSERT_EQ(call->other->outputs.size(), 5u);
  EXPECT_EQ(call->other->outputs[0], op.results[0]);
  EXPECT_EQ(call->other->outputs[1], op.results[1]);
  EXPECT_EQ(call->other->outputs[4], op.results[4]);
  ASSERT_EQ(call->after.size(), 2u);
  std::set<std::string> names = {call->transposes[0].group.name};
  for (size_t i = 0; i < 2; ++i) {
    const OperandTranspose& t = call->after[i];
    EXPECT_EQ(t.group.inputs, std::vector<ir::ValueId>{call->other->outputs[2 + i]});
    EXPECT_EQ(t.group.outputs, std::vector<ir::ValueId>{op.results[2 + i]});
    names.insert(t.group.name);
  }
  EXPECT_EQ(names.size(), 3u);  // each kernel its own name
}

// As linalg.py's _svd_gpu_sub_lowering writes cusolver_gesvd_ffi (QR, and
// the default above 1024) for jnp.linalg.svd of [batch..., m, n]:
// transposed = m < n, and then every layout row-major and the results
// (work, s, vt, u, info) -- u, vt the shapes of the svd's own U [m, m | k]
// and V^H [n | k, n]; else column-major matrices and (work, s, u, vt,
// info). Without compute_uv u and vt are f[] scalars.
OneOp qrSvd(ElementType e, std::vector<int64_t> batch, int64_t m, int64_t n, bool full,
            bool computeUv, ElementType real) {
  const int64_t k = std::min(m, n);
  const bool transposed = m < n;
  auto withBatch = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> d = batch;
    d.insert(d.end(), tail.begin(), tail.end());
    return d;
  };
  const int64_t r = static_cast<int64_t>(batch.size()) + 2;
  const Type u = computeUv ? tensor(e, withBatch({m, full ? m : k})) : tensor(e, {});
  const Type vt = computeUv ? tensor(e, withBatch({full ? n : k, n})) : tensor(e, {});
  auto layout = [&](const Type& t) {
    return !transposed && t.rank() == r ? columnMajor(r) : rowMajor(t.rank());
  };
  const Type a = tensor(e, withBatch({m, n}));
  std::vector<Type> results = {a, tensor(real, withBatch({k})), transposed ? vt : u,
                               transposed ? u : vt, i32(batch)};
  std::vector<std::vector<int64_t>> resultLayouts;
  for (const Type& t : results) resultLayouts.push_back(layout(t));
  return OneOp(
      OpKind::CustomCall, {a}, results,
      {{"call_target_name", std::string("cusolver_gesvd_ffi")},
       {"mhlo.backend_config", ir::NamedAttrs{{"compute_uv", ir::Attribute(computeUv)},
                                              {"full_matrices", ir::Attribute(full)},
                                              {"transposed", ir::Attribute(transposed)}}},
       {"operand_layouts", layouts({layout(a)})},
       {"result_layouts", layouts(std::move(resultLayouts))},
       {"mhlo.frontend_attributes",
        ir::NamedAttrs{{"num_batch_dims", ir::Attribute(std::to_string(r - 2))}}}});
}

// cusolver_gesvdp_ffi (SvdAlgorithm.POLAR): gesvdj's operands, results and
// layouts, with full_matrices as asked (no small-matrix rule).
OneOp polarSvd(ElementType e, std::vector<int64_t> batch, int64_t m, int64_t n, bool full,
               bool computeUv, ElementType real) {
  OneOp x = svd(e, std::move(batch), m, n, full, computeUv, real);
  for (auto& [name, value] : x.m.functions[0].body.ops[0].attrs)
    if (name == "call_target_name") value = std::string("cusolver_gesvdp_ffi");
  return x;
}

TEST(GesvdPlan, TallMatricesGoColumnMajorAndComeBack) {
  // jnp.linalg.svd of f32[2, 1100, 1030] (gesvd above 1024), full: the
  // library runs 1100x1030 on a column-major copy; u 1100x1100 and vt
  // 1030x1030 are transposed back.
  OneOp x = qrSvd(ElementType::F32, {2}, 1100, 1030, true, true, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kGesvd;
  want.type = SolverType::kF32;
  want.batch = 2;
  want.m = 1100;
  want.n = 1030;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(runtime::solverText(p->desc), "gesvd f32 batch 2 1100x1030 full");
  EXPECT_EQ(p->inputs, x.op().operands);
  EXPECT_EQ(p->outputs, x.op().results);
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, (std::vector<size_t>{2, 3}));
  const uint64_t a = 2ull * 1100 * 1030 * 4;
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{a, a, 2 * 1030 * 4, 2ull * 1100 * 1100 * 4,
                                   2ull * 1030 * 1030 * 4, 8}));
  // Economy: u 6x4 (m x n), vt 4x4; c128, no batch.
  OneOp e = qrSvd(ElementType::C128, {}, 6, 4, false, true, ElementType::F64);
  StatusOr<SolverPlan> q = e.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "gesvd c128 batch 1 6x4 econ");
  EXPECT_EQ(runtime::solverBufferBytes(q->desc),
            (std::vector<uint64_t>{384, 384, 32, 384, 256, 4}));
  EXPECT_EQ(q->column_major_outputs, (std::vector<size_t>{2, 3}));
}

TEST(GesvdPlan, WideMatricesRunAsTheirTransposeWithNoCopy) {
  // f32[1030, 1100]: transposed, row-major memory = the column-major
  // 1100x1030 a^T. u receives a^T's U' (1100x1100 = a's V^H shape), vt
  // a^T's V'^H (1030x1030 = a's U shape); nothing is transposed.
  OneOp x = qrSvd(ElementType::F32, {}, 1030, 1100, true, true, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "gesvd f32 batch 1 1100x1030 full");
  EXPECT_TRUE(p->column_major_inputs.empty());
  EXPECT_TRUE(p->column_major_outputs.empty());
  EXPECT_EQ(p->outputs, x.op().results);
  // Economy 3x5 (k 3): u is a's V^H [3, 5] = a^T's U' 5x3 column-major; vt
  // is a's U [3, 3]; the library's m x n = 5x3.
  OneOp e = qrSvd(ElementType::F64, {4}, 3, 5, false, true, ElementType::F64);
  StatusOr<SolverPlan> q = e.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "gesvd f64 batch 4 5x3 econ");
  EXPECT_EQ(e.m.typeOf(e.op().results[2]), tensor(ElementType::F64, {4, 3, 5}));
  EXPECT_EQ(runtime::solverBufferBytes(q->desc),
            (std::vector<uint64_t>{480, 480, 96, 480, 288, 16}));
  // The call is the library op alone.
  const ir::Op op = e.op();
  StatusOr<LibraryCall> call = lowerSolverCall(e.m, e.group, op);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_TRUE(call->transposes.empty());
  EXPECT_TRUE(call->after.empty());
  EXPECT_EQ(call->other->inputs, op.operands);
  EXPECT_EQ(call->other->outputs, op.results);
}

TEST(GesvdPlan, WithoutVectorsUAndVtAreScalars) {
  // jnp.linalg.svd(compute_uv=False) of f32[3, 1100, 1030]: u, vt f32[],
  // one element each for the whole batch, row-major, never transposed.
  OneOp x = qrSvd(ElementType::F32, {3}, 1100, 1030, true, false, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "gesvd f32 batch 3 1100x1030 full no_uv");
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_TRUE(p->column_major_outputs.empty());
  const std::vector<uint64_t> bytes = runtime::solverBufferBytes(p->desc);
  ASSERT_EQ(bytes.size(), 6u);
  EXPECT_EQ(bytes[3], 4u);
  EXPECT_EQ(bytes[4], 4u);
  // Wide: nothing copied at all.
  OneOp w = qrSvd(ElementType::C64, {}, 2, 7, false, false, ElementType::F32);
  StatusOr<SolverPlan> q = w.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "gesvd c64 batch 1 7x2 econ no_uv");
  EXPECT_TRUE(q->column_major_inputs.empty());
}

TEST(GesvdpPlan, PolarHasGesvdjsBuffersAndCopies) {
  // lax.linalg.svd(algorithm=POLAR) of c64[2, 5, 3], full_matrices False:
  // u 5x3, v 3x3 (V, not V^H), column-major, transposed back.
  OneOp x = polarSvd(ElementType::C64, {2}, 5, 3, false, true, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(p->desc.kind, SolverKind::kGesvdp);
  EXPECT_EQ(runtime::solverText(p->desc), "gesvdp c64 batch 2 5x3 econ");
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, (std::vector<size_t>{2, 3}));
  // a, work 2*15*8; s 2*3*4; u 2*5*3*8; v 2*3*3*8; info 8.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{240, 240, 24, 240, 144, 8}));
  // Wide and without vectors: full scratch u 3x3, v 6x6.
  OneOp w = polarSvd(ElementType::F32, {}, 3, 6, true, false, ElementType::F32);
  StatusOr<SolverPlan> q = w.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "gesvdp f32 batch 1 3x6 full no_uv");
  EXPECT_TRUE(q->column_major_outputs.empty());
}

TEST(DecompositionPlan, ComplexMatricesAreCopiedColumnMajor) {
  // A Hermitian matrix read column-major is its conjugate, so a complex eigh
  // copies its operand and keeps the triangle.
  OneOp h = eigh(ElementType::C64, {2}, 4, true, 0, ElementType::F32);
  StatusOr<SolverPlan> p = h.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "syevd c64 batch 2 4x4 lower");
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  // a, v 2*16*8; w real 2*4*4; info 2*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{256, 256, 32, 8}));
  OneOp s = svd(ElementType::C128, {}, 4, 3, true, true, ElementType::F64);
  StatusOr<SolverPlan> q = s.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "gesvdj c128 batch 1 4x3 full");
  // a, work 12*16; s real 3*8; u 16*16; v 9*16; info 4.
  EXPECT_EQ(runtime::solverBufferBytes(q->desc),
            (std::vector<uint64_t>{192, 192, 24, 256, 144, 4}));
}

// Operand a [batch..., n, n]; results out (a's type), d [batch..., n] and e
// [batch..., n - 1] of the real type, tau [batch..., n - 1], info; config
// {lower}: lax.linalg.tridiagonal.
OneOp tridiagonal(ElementType e, std::vector<int64_t> batch, int64_t n, bool lower,
                  ElementType real) {
  auto withBatch = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> d = batch;
    d.insert(d.end(), tail.begin(), tail.end());
    return d;
  };
  const int64_t r = static_cast<int64_t>(batch.size()) + 2;
  return OneOp(
      OpKind::CustomCall, {tensor(e, withBatch({n, n}))},
      {tensor(e, withBatch({n, n})), tensor(real, withBatch({n})),
       tensor(real, withBatch({n - 1})), tensor(e, withBatch({n - 1})), i32(batch)},
      {{"call_target_name", std::string("cusolver_sytrd_ffi")},
       {"mhlo.backend_config", ir::NamedAttrs{{"lower", ir::Attribute(lower)}}},
       {"operand_layouts", layouts({columnMajor(r)})},
       {"result_layouts", layouts({columnMajor(r), rowMajor(r - 1), rowMajor(r - 1),
                                   rowMajor(r - 1), rowMajor(r - 2)})},
       {"mhlo.frontend_attributes",
        ir::NamedAttrs{{"num_batch_dims", ir::Attribute(std::to_string(r - 2))}}}});
}

TEST(SytrdPlan, TridiagonalCopiesTheMatrixBothWays) {
  // lax.linalg.tridiagonal of f32[2, 6, 6], lower: the reflectors stay in
  // the lower triangle of the returned matrix, so no flag can stand in for
  // the copies.
  OneOp x = tridiagonal(ElementType::F32, {2}, 6, true, ElementType::F32);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(runtime::solverText(p->desc), "sytrd f32 batch 2 6x6 lower");
  EXPECT_EQ(p->outputs, x.op().results);  // out, d, e, tau, info
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  // a, out 2*36*4; d 2*6*4; e, tau 2*5*4; info 2*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{288, 288, 48, 40, 40, 8}));
  // Complex: d and e real, tau complex.
  OneOp z = tridiagonal(ElementType::C128, {}, 4, false, ElementType::F64);
  StatusOr<SolverPlan> q = z.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "sytrd c128 batch 1 4x4 upper");
  EXPECT_EQ(runtime::solverBufferBytes(q->desc),
            (std::vector<uint64_t>{256, 256, 32, 24, 48, 4}));
}

TEST(DecompositionCheck, ClearReasons) {
  // The singular values of a complex matrix are real.
  expectRejected(svd(ElementType::C64, {}, 4, 3, true, true, ElementType::C64),
                 {"the singular value result is tensor<3xcomplex<f32>>, expected "
                  "tensor<3xf32>"});
  // w must be real, of the matrix's precision.
  expectRejected(eigh(ElementType::F32, {}, 4, true, 0, ElementType::F64),
                 {"the eigenvalue result is tensor<4xf64>, expected tensor<4xf32>"});
  expectRejected(eigh(ElementType::F32, {}, 4, true, 3, ElementType::F32),
                 {"algorithm 3 is not 0 (default), 1 (QR) or 2 (Jacobi)"});
  // No flags: not guessed.
  expectRejected(
      OneOp(OpKind::CustomCall, {tensor(ElementType::F32, {4, 4})},
            {tensor(ElementType::F32, {4, 4}), tensor(ElementType::F32, {4}), i32({})},
            {{"call_target_name", std::string("cusolver_syevd_ffi")}}),
      {"the configuration has no bool `lower`"});
  expectRejected(
      OneOp(OpKind::CustomCall, {tensor(ElementType::F32, {4, 5})},
            {tensor(ElementType::F32, {4, 5}), tensor(ElementType::F32, {4}), i32({})},
            {{"call_target_name", std::string("cusolver_syevd_ffi")}}),
      {"not square"});
  // d and e of a complex reduction are real.
  expectRejected(
      tridiagonal(ElementType::C64, {}, 4, true, ElementType::C64),
      {"the diagonal result is tensor<4xcomplex<f32>>, expected tensor<4xf32>"});
  // U of an economic SVD is m x k, not m x m.
  OneOp fullShapes = svd(ElementType::F32, {}, 40, 36, true, true, ElementType::F32);
  ir::NamedAttrs& attrs = fullShapes.m.functions[0].body.ops[0].attrs;
  for (auto& [name, value] : attrs)
    if (name == "mhlo.backend_config")
      value = ir::NamedAttrs{{"compute_uv", ir::Attribute(true)},
                             {"full_matrices", ir::Attribute(false)}};
  expectRejected(fullShapes,
                 {"the U result is tensor<40x40xf32>, expected tensor<40x36xf32>"});
  // A row-major U would be read transposed.
  OneOp rowU = svd(ElementType::F32, {}, 6, 4, true, true, ElementType::F32);
  for (auto& [name, value] : rowU.m.functions[0].body.ops[0].attrs)
    if (name == "result_layouts") value = layouts({{0, 1}, {0}, {1, 0}, {0, 1}, {}});
  expectRejected(rowU, {"result 2 has layout {1,0}", "column-major"});
}

// The backend_config of `x`'s op replaced by `config`.
OneOp withConfig(OneOp x, ir::NamedAttrs config) {
  for (auto& [name, value] : x.m.functions[0].body.ops[0].attrs)
    if (name == "mhlo.backend_config") value = std::move(config);
  return x;
}

TEST(DecompositionCheck, GesvdReasons) {
  const OneOp tall = qrSvd(ElementType::F32, {}, 6, 4, true, true, ElementType::F32);
  // `transposed` is required, and must agree with the shape.
  expectRejected(withConfig(tall, {{"compute_uv", ir::Attribute(true)},
                                   {"full_matrices", ir::Attribute(true)}}),
                 {"custom_call @cusolver_gesvd_ffi", "no bool `transposed`"});
  expectRejected(withConfig(tall, {{"compute_uv", ir::Attribute(true)},
                                   {"full_matrices", ir::Attribute(true)},
                                   {"transposed", ir::Attribute(true)}}),
                 {"custom_call @cusolver_gesvd_ffi",
                  "tensor<6x4xf32> are taller than "
                  "wide but `transposed` is set"});
  OneOp wide = qrSvd(ElementType::F32, {}, 4, 6, true, true, ElementType::F32);
  expectRejected(withConfig(wide, {{"compute_uv", ir::Attribute(true)},
                                   {"full_matrices", ir::Attribute(true)},
                                   {"transposed", ir::Attribute(false)}}),
                 {"wider than tall but `transposed` is not set"});
  // full_matrices false with full shapes: u of a 6x4 economy SVD is 6x4.
  expectRejected(withConfig(tall, {{"compute_uv", ir::Attribute(true)},
                                   {"full_matrices", ir::Attribute(false)},
                                   {"transposed", ir::Attribute(false)}}),
                 {"the u result is tensor<6x6xf32>, expected tensor<6x4xf32>"});
  // compute_uv false with matrices for u and vt: JAX passes scalars.
  expectRejected(withConfig(tall, {{"compute_uv", ir::Attribute(false)},
                                   {"full_matrices", ir::Attribute(true)},
                                   {"transposed", ir::Attribute(false)}}),
                 {"the u result is tensor<6x6xf32>, expected tensor<f32>"});
  // A tall operand left row-major would be read transposed.
  OneOp rowA = qrSvd(ElementType::F32, {}, 6, 4, true, true, ElementType::F32);
  for (auto& [name, value] : rowA.m.functions[0].body.ops[0].attrs)
    if (name == "operand_layouts") value = layouts({{1, 0}});
  expectRejected(rowA, {"operand 0 has layout {1,0}", "column-major"});
  // gesvdp needs its flags too.
  expectRejected(
      withConfig(polarSvd(ElementType::F32, {}, 5, 3, true, true, ElementType::F32),
                 {{"full_matrices", ir::Attribute(true)}}),
      {"custom_call @cusolver_gesvdp_ffi", "no bool `compute_uv`"});
}

// --- whole programs ----------------------------------------------------------

struct CompiledDecomposition {
  runtime::Program program;
  const runtime::LibraryThunk* library = nullptr;
  size_t at = 0;  // its thunk index
};

// main(a) -> the custom call's results `returned`, compiled in fl_only
// without kernel binaries.
CompiledDecomposition compileDecomposition(const OneOp& x,
                                           const std::vector<size_t>& returned) {
  ir::Module m;
  m.name = "jit_decomposition";
  ir::Builder b(m);
  const ir::Op& op = x.op();
  std::vector<Type> results;
  for (size_t i : returned) results.push_back(x.m.typeOf(op.results[i]));
  auto args = b.beginFunction("main", {x.m.typeOf(op.operands[0])}, results);
  b.setLoc(b.fileLoc("model.py", 5, 1));
  std::vector<Type> all;
  for (ir::ValueId r : op.results) all.push_back(x.m.typeOf(r));
  auto values = b.op(OpKind::CustomCall, args, all, op.attrs);
  std::vector<ir::ValueId> out;
  for (size_t i : returned) out.push_back(values[i]);
  b.ret(out);
  b.endFunction();
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result = compileModule(std::move(m), options, nullptr);
  EXPECT_TRUE(result.isOk()) << result.status().toString();
  CompiledDecomposition c;
  if (!result.isOk()) return c;
  c.program = std::move(result->program);
  testing::expectConsistentProgram(c.program, false);
  for (size_t t = 0; t < c.program.thunks.size(); ++t)
    if (const auto* l = std::get_if<runtime::LibraryThunk>(&c.program.thunks[t])) {
      c.library = l;
      c.at = t;
    }
  EXPECT_NE(c.library, nullptr);
  return c;
}

// The slots the launches after thunk `at` read first.
std::set<int> readAfter(const CompiledDecomposition& c) {
  std::set<int> read;
  for (size_t t = c.at + 1; t < c.program.thunks.size(); ++t)
    if (const auto* l = std::get_if<runtime::LaunchThunk>(&c.program.thunks[t]))
      read.insert(l->buffers.front());
  return read;
}

TEST(DecompositionProgram, EighCompilesToOneCallAndOneTranspose) {
  CompiledDecomposition c = compileDecomposition(
      eigh(ElementType::F32, {2}, 8, true, 0, ElementType::F32), {0, 1});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "syevd f32 batch 2 8x8 upper");
  ASSERT_EQ(c.library->buffers.size(), 4u);
  EXPECT_EQ(readAfter(c), std::set<int>{c.library->buffers[1]});
  for (size_t i = 0; i < c.library->buffers.size(); ++i)
    EXPECT_GE(c.program.slots.at(static_cast<size_t>(c.library->buffers[i])).bytes,
              runtime::solverBufferBytes(std::get<SolverDesc>(c.library->op))[i]);
}

TEST(DecompositionProgram, SvdCompilesToOneCallBetweenTransposes) {
  CompiledDecomposition c = compileDecomposition(
      svd(ElementType::F64, {3}, 5, 7, true, true, ElementType::F64), {1, 2, 3});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "gesvdj f64 batch 3 5x7 full");
  ASSERT_EQ(c.library->buffers.size(), 6u);
  ASSERT_GT(c.at, 0u);
  const auto* before = std::get_if<runtime::LaunchThunk>(&c.program.thunks[c.at - 1]);
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->buffers.back(), c.library->buffers[0]);
  EXPECT_EQ(readAfter(c), (std::set<int>{c.library->buffers[3], c.library->buffers[4]}));
  for (size_t i = 0; i < c.library->buffers.size(); ++i)
    EXPECT_GE(c.program.slots.at(static_cast<size_t>(c.library->buffers[i])).bytes,
              runtime::solverBufferBytes(std::get<SolverDesc>(c.library->op))[i]);
}

TEST(DecompositionProgram, WideQrSvdCompilesToTheCallAlone) {
  // f32[2, 3, 5] through gesvd, transposed: no transpose kernel at all.
  CompiledDecomposition c = compileDecomposition(
      qrSvd(ElementType::F32, {2}, 3, 5, true, true, ElementType::F32), {1, 2, 3});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "gesvd f32 batch 2 5x3 full");
  ASSERT_EQ(c.library->buffers.size(), 6u);
  for (size_t t = 0; t < c.program.thunks.size(); ++t)
    EXPECT_EQ(std::get_if<runtime::LaunchThunk>(&c.program.thunks[t]), nullptr) << t;
  for (size_t i = 0; i < c.library->buffers.size(); ++i)
    EXPECT_GE(c.program.slots.at(static_cast<size_t>(c.library->buffers[i])).bytes,
              runtime::solverBufferBytes(std::get<SolverDesc>(c.library->op))[i]);
}

TEST(DecompositionProgram, TallQrSvdWithoutVectorsCopiesOnlyTheOperand) {
  CompiledDecomposition c = compileDecomposition(
      qrSvd(ElementType::F64, {}, 7, 4, false, false, ElementType::F64), {1});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "gesvd f64 batch 1 7x4 econ no_uv");
  ASSERT_GT(c.at, 0u);
  EXPECT_NE(std::get_if<runtime::LaunchThunk>(&c.program.thunks[c.at - 1]), nullptr);
  EXPECT_TRUE(readAfter(c).empty());
  for (size_t i = 0; i < c.library->buffers.size(); ++i)
    EXPECT_GE(c.program.slots.at(static_cast<size_t>(c.library->buffers[i])).bytes,
              runtime::solverBufferBytes(std::get<SolverDesc>(c.library->op))[i]);
}

TEST(DecompositionProgram, GesvdFlagsTheLibraryDoesNotTakeRunJaxlibsHandler) {
  // A cuSOLVER call our library cannot plan (`transposed` set) is still an
  // XLA FFI call: it runs through the handler jaxlib registered under its
  // name, as upstream runs it, on the custom-call route (legal in fl_only).
  OneOp other = withConfig(qrSvd(ElementType::F32, {}, 6, 4, true, true, ElementType::F32),
                           {{"compute_uv", ir::Attribute(true)},
                            {"full_matrices", ir::Attribute(true)},
                            {"transposed", ir::Attribute(true)}});
  StatusOr<Executable> result = compileAtLine9(other, "jit_other_svd", 1);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_EQ(result->report.entries.size(), 1u) << result->report.text();
  EXPECT_EQ(result->report.entries[0].route, "custom_call") << result->report.text();
  EXPECT_NE(result->report.text().find("ffi @cusolver_gesvd_ffi"), std::string::npos)
      << result->report.text();
}

}  // namespace
}  // namespace jft::compiler
