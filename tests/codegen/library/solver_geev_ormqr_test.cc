// The general eigendecomposition and the Householder product custom calls of
// JAX 0.11's GPU lowering (cusolver_geev_ffi for eig, cusolver_ormqr_ffi for
// lax.linalg.ormqr / jax.scipy.linalg.qr_multiply) as solver descriptions.
// The ops are written as jax/_src/lax/linalg.py emits them (read by hand):
// geev(a) -> (out, w, vl, vr, info) with w complex even for a real a,
// {left, right} in mhlo.backend_config; ormqr(a, tau, c) -> out with {left,
// transpose}; matrices column-major ((r-2, r-1, r-3, ..., 0)), vectors
// row-major (no layout given), num_batch_dims in mhlo.frontend_attributes.
// Checked: the description, buffer sizes (counted by hand from
// runtime/solver.h), which matrices are copied around the call, clear
// errors, and whole programs through the pipeline.
#include <gtest/gtest.h>

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
using runtime::SolverDesc;
using runtime::SolverKind;
using runtime::SolverTranspose;
using runtime::SolverType;
using testing::columnMajor;
using testing::compileAtLine9;
using testing::expectRejected;
using testing::i32;
using testing::layouts;
using testing::OneOp;
using testing::rowMajor;
using testing::tensor;

std::vector<int64_t> join(std::vector<int64_t> batch, std::vector<int64_t> tail) {
  batch.insert(batch.end(), tail.begin(), tail.end());
  return batch;
}
ir::Attribute batchDims(int64_t count) {
  return ir::NamedAttrs{{"num_batch_dims", ir::Attribute(std::to_string(count))}};
}

// jnp.linalg.eig of `e`[batch..., n, n] on CUDA with cuSOLVER >= 11.7.1:
// results out and vl, vr of a's type, w [batch..., n] of `w`, info.
OneOp geev(ElementType e, std::vector<int64_t> batch, int64_t n, bool left, bool right,
           ElementType w) {
  const int64_t r = static_cast<int64_t>(batch.size()) + 2;
  const Type a = tensor(e, join(batch, {n, n}));
  return OneOp(
      OpKind::CustomCall, {a}, {a, tensor(w, join(batch, {n})), a, a, i32(batch)},
      {{"call_target_name", std::string("cusolver_geev_ffi")},
       {"mhlo.backend_config",
        ir::NamedAttrs{{"left", ir::Attribute(left)}, {"right", ir::Attribute(right)}}},
       {"operand_layouts", layouts({columnMajor(r)})},
       {"result_layouts", layouts({columnMajor(r), rowMajor(r - 1), columnMajor(r),
                                   columnMajor(r), rowMajor(r - 2)})},
       {"mhlo.frontend_attributes", batchDims(r - 2)}});
}

// lax.linalg.ormqr(a [batch..., aRows, aCols], tau [batch..., k], c
// [batch..., cRows, cCols], left, transpose) -> out of c's type.
OneOp ormqr(ElementType e, std::vector<int64_t> batch, std::vector<int64_t> a, int64_t k,
            std::vector<int64_t> c, bool left, bool transpose) {
  const int64_t r = static_cast<int64_t>(batch.size()) + 2;
  const Type cType = tensor(e, join(batch, c));
  return OneOp(
      OpKind::CustomCall, {tensor(e, join(batch, a)), tensor(e, join(batch, {k})), cType},
      {cType},
      {{"call_target_name", std::string("cusolver_ormqr_ffi")},
       {"mhlo.backend_config", ir::NamedAttrs{{"left", ir::Attribute(left)},
                                              {"transpose", ir::Attribute(transpose)}}},
       {"operand_layouts", layouts({columnMajor(r), rowMajor(r - 1), columnMajor(r)})},
       {"result_layouts", layouts({columnMajor(r)})},
       {"mhlo.frontend_attributes", batchDims(r - 2)}});
}

// The backend_config (or layouts) of `x`'s op replaced.
OneOp withAttr(OneOp x, const std::string& which, ir::Attribute value) {
  for (auto& [name, attr] : x.m.functions[0].body.ops[0].attrs)
    if (name == which) attr = std::move(value);
  return x;
}

// --- geev --------------------------------------------------------------------

TEST(GeevPlan, EigOfARealBatchCopiesTheOperandAndTheEigenvectors) {
  // jnp.linalg.eig of f32[2, 3, 5, 5]: w complex<f32>, vr f32 (packed).
  OneOp x = geev(ElementType::F32, {2, 3}, 5, false, true, ElementType::C64);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kGeev;
  want.type = SolverType::kF32;
  want.batch = 6;
  want.m = want.n = 5;
  want.eigenvectors = true;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(runtime::solverText(p->desc), "geev f32 batch 6 5x5");
  EXPECT_EQ(p->inputs, x.op().operands);
  EXPECT_EQ(p->outputs, x.op().results);  // out, w, vl, vr, info
  // A's transpose has A's left eigenvectors: a goes over column-major, and
  // only vr (not the scratch out and vl) comes back.
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{3});
  EXPECT_EQ(p->workspace_bytes, 0u);
  // a, out, vl, vr 6*25*4; w 6*5 complex<f32> of 8; info 6*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{600, 600, 240, 600, 600, 24}));
}

TEST(GeevPlan, EachTypesEigenvaluesAreComplex) {
  struct Case {
    ElementType e, w;
    const char* text;
    std::vector<uint64_t> bytes;
  };
  // n = 3, one item: matrices 9 elements, w 3 complex, info 4.
  for (const Case& c : {Case{ElementType::F64,
                             ElementType::C128,
                             "geev f64 batch 1 3x3",
                             {72, 72, 48, 72, 72, 4}},
                        Case{ElementType::C64,
                             ElementType::C64,
                             "geev c64 batch 1 3x3",
                             {72, 72, 24, 72, 72, 4}},
                        Case{ElementType::C128,
                             ElementType::C128,
                             "geev c128 batch 1 3x3",
                             {144, 144, 48, 144, 144, 4}}}) {
    OneOp x = geev(c.e, {}, 3, false, true, c.w);
    StatusOr<SolverPlan> p = x.plan();
    ASSERT_TRUE(p.isOk()) << p.status().toString();
    EXPECT_EQ(runtime::solverText(p->desc), c.text);
    EXPECT_EQ(runtime::solverBufferBytes(p->desc), c.bytes);
    EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{3});
  }
}

TEST(GeevPlan, EigvalsComputesNoVectorsAndCopiesNothingBack) {
  // jnp.linalg.eigvals: right = false; vr is scratch, never transposed.
  OneOp x = geev(ElementType::C128, {4}, 6, false, false, ElementType::C128);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_FALSE(p->desc.eigenvectors);
  EXPECT_EQ(runtime::solverText(p->desc), "geev c128 batch 4 6x6 no_vectors");
  EXPECT_EQ(p->column_major_inputs, std::vector<size_t>{0});
  EXPECT_TRUE(p->column_major_outputs.empty());
  // a, out, vl, vr 4*36*16; w 4*6*16; info 16.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{2304, 2304, 384, 2304, 2304, 16}));
}

TEST(GeevPlan, LowersToTheCallBetweenTwoTransposes) {
  OneOp x = geev(ElementType::F64, {2}, 4, false, true, ElementType::C128);
  const ir::Op op = x.op();
  StatusOr<LibraryCall> call = lowerSolverCall(x.m, x.group, op);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  ASSERT_EQ(call->transposes.size(), 1u);
  ASSERT_EQ(call->after.size(), 1u);
  // The operand is read through its column-major copy; vr is written to a
  // copy the kernel after the call transposes into the op's result.
  EXPECT_EQ(call->transposes[0].group.inputs, std::vector<ir::ValueId>{op.operands[0]});
  EXPECT_EQ(call->other->inputs, call->transposes[0].group.outputs);
  EXPECT_EQ(call->after[0].group.outputs, std::vector<ir::ValueId>{op.results[3]});
  EXPECT_EQ(call->after[0].group.inputs,
            std::vector<ir::ValueId>{call->other->outputs[3]});
  for (size_t i : {size_t{0}, size_t{1}, size_t{2}, size_t{4}})
    EXPECT_EQ(call->other->outputs[i], op.results[i]);
}

TEST(GeevCheck, ClearReasons) {
  // cuSOLVER computes no left eigenvectors (JAX never asks it to).
  expectRejected(geev(ElementType::F32, {}, 4, true, true, ElementType::C64),
                 {"custom_call @cusolver_geev_ffi", "left eigenvectors"});
  // w must be complex, of a's precision.
  expectRejected(geev(ElementType::F32, {}, 4, false, true, ElementType::F32),
                 {"the eigenvalue result is tensor<4xf32>, expected "
                  "tensor<4xcomplex<f32>>"});
  expectRejected(geev(ElementType::F64, {}, 4, false, true, ElementType::C64),
                 {"expected tensor<4xcomplex<f64>>"});
  // Flags are required, not guessed.
  expectRejected(
      withAttr(geev(ElementType::F32, {}, 4, false, true, ElementType::C64),
               "mhlo.backend_config", ir::NamedAttrs{{"left", ir::Attribute(false)}}),
      {"the configuration has no bool `right`"});
  // A row-major vr would be read transposed.
  expectRejected(withAttr(geev(ElementType::F32, {}, 4, false, true, ElementType::C64),
                          "result_layouts", layouts({{0, 1}, {0}, {0, 1}, {1, 0}, {}})),
                 {"result 3 has layout {1,0}", "column-major"});
  expectRejected(
      OneOp(OpKind::CustomCall, {tensor(ElementType::F32, {4, 5})},
            {tensor(ElementType::F32, {4, 5}), tensor(ElementType::C64, {4}),
             tensor(ElementType::F32, {4, 5}), tensor(ElementType::F32, {4, 5}), i32({})},
            {{"call_target_name", std::string("cusolver_geev_ffi")}}),
      {"not square"});
  expectRejected(OneOp(OpKind::CustomCall, {tensor(ElementType::BF16, {4, 4})},
                       {tensor(ElementType::BF16, {4, 4})},
                       {{"call_target_name", std::string("cusolver_geev_ffi")}}),
                 {"expected 1 operands and 5 results"});
}

// --- ormqr -------------------------------------------------------------------

TEST(OrmqrPlan, QTimesCCopiesTheReflectorsAndC) {
  // ormqr(a f32[2, 6, 4], tau [2, 4], c [2, 6, 3]): Q (6 x 6) c.
  OneOp x = ormqr(ElementType::F32, {2}, {6, 4}, 4, {6, 3}, true, false);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kOrmqr;
  want.type = SolverType::kF32;
  want.batch = 2;
  want.m = 6;
  want.n = 3;
  want.k = 4;
  want.reflector_cols = 4;
  want.left_side = true;
  want.transpose = SolverTranspose::kNone;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(runtime::solverText(p->desc), "ormqr f32 batch 2 6x3 k 4 left N");
  EXPECT_EQ(p->inputs, x.op().operands);  // a, tau, c
  EXPECT_EQ(p->outputs, x.op().results);  // out
  EXPECT_EQ(p->column_major_inputs, (std::vector<size_t>{0, 2}));
  EXPECT_EQ(p->column_major_outputs, std::vector<size_t>{0});
  // a 2*24*4, tau 2*4*4, c and out 2*18*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{192, 32, 144, 144}));
  EXPECT_TRUE(runtime::validateSolver(p->desc).isOk());
}

TEST(OrmqrPlan, TransposeIsTForRealAndCForComplex) {
  // qr_multiply(mode='right', conjugate=True) of c128: c [2, 5] times Q^H
  // from the right, Q 5 x 5 of the 3 reflectors of a [5, 3].
  OneOp z = ormqr(ElementType::C128, {}, {5, 3}, 3, {2, 5}, false, true);
  StatusOr<SolverPlan> p = z.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  EXPECT_EQ(p->desc.transpose, SolverTranspose::kAdjoint);
  EXPECT_FALSE(p->desc.left_side);
  EXPECT_EQ(runtime::solverText(p->desc), "ormqr c128 batch 1 2x5 k 3 right C");
  // a 15*16, tau 3*16, c and out 10*16.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{240, 48, 160, 160}));
  EXPECT_TRUE(runtime::validateSolver(p->desc).isOk());
  // Real: the transpose.
  OneOp d = ormqr(ElementType::F64, {3}, {4, 6}, 4, {4, 2}, true, true);
  StatusOr<SolverPlan> q = d.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(q->desc.transpose, SolverTranspose::kTranspose);
  // A wide a (qr_multiply of a 4 x 6 matrix): 4 reflectors, 6 columns.
  EXPECT_EQ(q->desc.reflector_cols, 6);
  EXPECT_EQ(runtime::solverText(q->desc), "ormqr f64 batch 3 4x2 k 4 left T");
  // a 3*24*8, tau 3*4*8, c and out 3*8*8.
  EXPECT_EQ(runtime::solverBufferBytes(q->desc),
            (std::vector<uint64_t>{576, 96, 192, 192}));
  // c64 without transpose.
  OneOp c = ormqr(ElementType::C64, {}, {3, 3}, 2, {3, 3}, true, false);
  StatusOr<SolverPlan> r = c.plan();
  ASSERT_TRUE(r.isOk()) << r.status().toString();
  EXPECT_EQ(runtime::solverText(r->desc), "ormqr c64 batch 1 3x3 k 2 left N");
}

TEST(OrmqrPlan, LowersToTheCallBetweenThreeTransposes) {
  OneOp x = ormqr(ElementType::F32, {}, {5, 3}, 3, {5, 2}, true, false);
  const ir::Op op = x.op();
  StatusOr<LibraryCall> call = lowerSolverCall(x.m, x.group, op);
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  ASSERT_EQ(call->transposes.size(), 2u);
  ASSERT_EQ(call->after.size(), 1u);
  EXPECT_EQ(call->other->inputs[1], op.operands[1]);  // tau as it is
  EXPECT_EQ(call->other->inputs[0], call->transposes[0].group.outputs[0]);
  EXPECT_EQ(call->other->inputs[2], call->transposes[1].group.outputs[0]);
  EXPECT_EQ(call->transposes[1].group.inputs, std::vector<ir::ValueId>{op.operands[2]});
  EXPECT_EQ(call->after[0].group.outputs, op.results);
  // The copies are the transposes: c [5, 2] read as [2, 5].
  EXPECT_EQ(x.m.typeOf(call->other->inputs[2]), tensor(ElementType::F32, {2, 5}));
}

TEST(OrmqrCheck, ClearReasons) {
  // Q's order must be c's rows on the left, its columns on the right.
  expectRejected(ormqr(ElementType::F32, {}, {6, 4}, 4, {5, 3}, true, false),
                 {"custom_call @cusolver_ormqr_ffi", "have 6 rows but Q must be 5 x 5",
                  "on the left"});
  expectRejected(ormqr(ElementType::F32, {}, {6, 4}, 4, {6, 3}, false, false),
                 {"Q must be 3 x 3", "on the right"});
  // More reflectors than a has columns.
  expectRejected(ormqr(ElementType::F32, {}, {6, 2}, 3, {6, 3}, true, false),
                 {"3 reflectors do not fit in tensor<6x2xf32>"});
  // tau and c must match a.
  OneOp badTau(OpKind::CustomCall,
               {tensor(ElementType::F32, {6, 4}), tensor(ElementType::F64, {4}),
                tensor(ElementType::F32, {6, 3})},
               {tensor(ElementType::F32, {6, 3})},
               {{"call_target_name", std::string("cusolver_ormqr_ffi")}});
  expectRejected(badTau, {"tau tensor<4xf64> does not match the reflectors"});
  OneOp badC(OpKind::CustomCall,
             {tensor(ElementType::F32, {2, 6, 4}), tensor(ElementType::F32, {2, 4}),
              tensor(ElementType::F32, {3, 6, 3})},
             {tensor(ElementType::F32, {3, 6, 3})},
             {{"call_target_name", std::string("cusolver_ormqr_ffi")}});
  expectRejected(badC, {"c tensor<3x6x3xf32> does not match the reflectors"});
  expectRejected(
      withAttr(ormqr(ElementType::F32, {}, {6, 4}, 4, {6, 3}, true, false),
               "mhlo.backend_config", ir::NamedAttrs{{"left", ir::Attribute(true)}}),
      {"the configuration has no bool `transpose`"});
  // A row-major c would be read transposed.
  expectRejected(withAttr(ormqr(ElementType::F32, {}, {6, 4}, 4, {6, 3}, true, false),
                          "operand_layouts", layouts({{0, 1}, {0}, {1, 0}})),
                 {"operand 2 has layout {1,0}", "column-major"});
  expectRejected(OneOp(OpKind::CustomCall,
                       {tensor(ElementType::F32, {6, 4}), tensor(ElementType::F32, {4})},
                       {tensor(ElementType::F32, {6, 4})},
                       {{"call_target_name", std::string("cusolver_ormqr_ffi")}}),
                 {"expected 3 operands and 1 results"});
}

// --- cholesky_update ---------------------------------------------------------

// lax.linalg.cholesky_update(r [n, n], w [n]) on CUDA: ffi_lowering without
// layouts (row-major) and without configuration; both results (r_out,
// w_out) are written, JAX keeps r_out.
OneOp choleskyUpdate(ElementType e, int64_t n) {
  const Type r = tensor(e, {n, n}), w = tensor(e, {n});
  return OneOp(OpKind::CustomCall, {r, w}, {r, w},
               {{"call_target_name", std::string("cu_cholesky_update_ffi")}});
}

TEST(CholeskyUpdatePlan, TheRowMajorFactorAsItIs) {
  OneOp x = choleskyUpdate(ElementType::F32, 5);
  StatusOr<SolverPlan> p = x.plan();
  ASSERT_TRUE(p.isOk()) << p.status().toString();
  SolverDesc want;
  want.kind = SolverKind::kCholeskyUpdate;
  want.type = SolverType::kF32;
  want.batch = 1;
  want.m = want.n = 5;
  EXPECT_EQ(p->desc, want) << runtime::solverText(p->desc);
  EXPECT_EQ(p->inputs, x.op().operands);
  EXPECT_EQ(p->outputs, x.op().results);
  EXPECT_TRUE(p->column_major_inputs.empty());
  EXPECT_TRUE(p->column_major_outputs.empty());
  // r, w, r_out, w_out: 25*4, 5*4.
  EXPECT_EQ(runtime::solverBufferBytes(p->desc),
            (std::vector<uint64_t>{100, 20, 100, 20}));
  OneOp d = choleskyUpdate(ElementType::F64, 3);
  StatusOr<SolverPlan> q = d.plan();
  ASSERT_TRUE(q.isOk()) << q.status().toString();
  EXPECT_EQ(runtime::solverText(q->desc), "cholesky_update f64 batch 1 3x3");
}

TEST(CholeskyUpdateCheck, ClearReasons) {
  expectRejected(choleskyUpdate(ElementType::C64, 3),
                 {"custom_call @cu_cholesky_update_ffi", "complex<f32>", "(f32, f64)"});
  expectRejected(OneOp(OpKind::CustomCall,
                       {tensor(ElementType::F32, {3, 3}), tensor(ElementType::F32, {4})},
                       {tensor(ElementType::F32, {3, 3}), tensor(ElementType::F32, {4})},
                       {{"call_target_name", std::string("cu_cholesky_update_ffi")}}),
                 {"the vector is tensor<4xf32>, expected tensor<3xf32>"});
  expectRejected(OneOp(OpKind::CustomCall,
                       {tensor(ElementType::F32, {3, 4}), tensor(ElementType::F32, {4})},
                       {tensor(ElementType::F32, {3, 4}), tensor(ElementType::F32, {4})},
                       {{"call_target_name", std::string("cu_cholesky_update_ffi")}}),
                 {"not square"});
  // A column-major factor would be read transposed.
  OneOp colMajor = choleskyUpdate(ElementType::F32, 3);
  colMajor.m.functions[0].body.ops[0].attrs.emplace_back("operand_layouts",
                                                         layouts({{0, 1}, {0}}));
  expectRejected(colMajor, {"operand 0 has layout {0,1}", "row-major"});
}

// --- whole programs ----------------------------------------------------------

struct CompiledLinalg {
  runtime::Program program;
  const runtime::LibraryThunk* library = nullptr;
  size_t at = 0;  // its thunk index
};

// main(operands...) -> the custom call's results `returned`, compiled in
// fl_only without kernel binaries.
CompiledLinalg compileLinalg(const OneOp& x, const std::vector<size_t>& returned) {
  ir::Module m;
  m.name = "jit_linalg";
  ir::Builder b(m);
  const ir::Op& op = x.op();
  std::vector<Type> params, results, all;
  for (ir::ValueId v : op.operands) params.push_back(x.m.typeOf(v));
  for (size_t i : returned) results.push_back(x.m.typeOf(op.results[i]));
  for (ir::ValueId r : op.results) all.push_back(x.m.typeOf(r));
  auto args = b.beginFunction("main", params, results);
  b.setLoc(b.fileLoc("model.py", 5, 1));
  auto values = b.op(OpKind::CustomCall, args, all, op.attrs);
  std::vector<ir::ValueId> out;
  for (size_t i : returned) out.push_back(values[i]);
  b.ret(out);
  b.endFunction();
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result = compileModule(std::move(m), options, nullptr);
  EXPECT_TRUE(result.isOk()) << result.status().toString();
  CompiledLinalg c;
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

size_t launchesBefore(const CompiledLinalg& c) {
  size_t n = 0;
  for (size_t t = 0; t < c.at; ++t)
    if (std::get_if<runtime::LaunchThunk>(&c.program.thunks[t]) != nullptr) ++n;
  return n;
}
size_t launchesAfter(const CompiledLinalg& c) {
  size_t n = 0;
  for (size_t t = c.at + 1; t < c.program.thunks.size(); ++t)
    if (std::get_if<runtime::LaunchThunk>(&c.program.thunks[t]) != nullptr) ++n;
  return n;
}

void expectSlotsHoldTheBuffers(const CompiledLinalg& c) {
  const std::vector<uint64_t> bytes =
      runtime::solverBufferBytes(std::get<SolverDesc>(c.library->op));
  ASSERT_EQ(c.library->buffers.size(), bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    EXPECT_GE(c.program.slots.at(static_cast<size_t>(c.library->buffers[i])).bytes,
              bytes[i])
        << "buffer " << i;
}

TEST(LinalgProgram, EigCompilesToOneCallBetweenTransposes) {
  // w and vr returned, as jnp.linalg.eig uses them.
  CompiledLinalg c = compileLinalg(
      geev(ElementType::F64, {2}, 4, false, true, ElementType::C128), {1, 3});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "geev f64 batch 2 4x4");
  expectSlotsHoldTheBuffers(c);
  EXPECT_EQ(launchesBefore(c), 1u);
  EXPECT_EQ(launchesAfter(c), 1u);
}

TEST(LinalgProgram, EigvalsCopiesOnlyTheOperand) {
  CompiledLinalg c =
      compileLinalg(geev(ElementType::C64, {}, 5, false, false, ElementType::C64), {1});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "geev c64 batch 1 5x5 no_vectors");
  expectSlotsHoldTheBuffers(c);
  EXPECT_EQ(launchesBefore(c), 1u);
  EXPECT_EQ(launchesAfter(c), 0u);
}

TEST(LinalgProgram, OrmqrCompilesToOneCallBetweenTransposes) {
  CompiledLinalg c =
      compileLinalg(ormqr(ElementType::F32, {3}, {6, 4}, 4, {6, 2}, true, true), {0});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "ormqr f32 batch 3 6x2 k 4 left T");
  expectSlotsHoldTheBuffers(c);
  EXPECT_EQ(launchesBefore(c), 2u);
  EXPECT_EQ(launchesAfter(c), 1u);
}

TEST(LinalgProgram, CholeskyUpdateIsOneLibraryCall) {
  // The fusion planner routes JAX's cu_cholesky_update_ffi to the library
  // (it is no cusolver_* target): one call, nothing copied.
  CompiledLinalg c = compileLinalg(choleskyUpdate(ElementType::F64, 6), {0});
  ASSERT_NE(c.library, nullptr);
  EXPECT_EQ(runtime::libraryOpText(c.library->op), "cholesky_update f64 batch 1 6x6");
  expectSlotsHoldTheBuffers(c);
  EXPECT_EQ(launchesBefore(c), 0u);
  EXPECT_EQ(launchesAfter(c), 0u);
}

TEST(LinalgProgram, GeevLeftVectorsRunJaxlibsHandler) {
  // Left eigenvectors: not in our library's geev, so jaxlib's own handler
  // for the call runs it (the custom-call route), as upstream's does.
  OneOp left = geev(ElementType::F32, {}, 4, true, true, ElementType::C64);
  StatusOr<Executable> result = compileAtLine9(left, "jit_left_eig", 1);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_EQ(result->report.entries.size(), 1u) << result->report.text();
  EXPECT_EQ(result->report.entries[0].route, "custom_call") << result->report.text();
}

}  // namespace
}  // namespace jft::compiler
