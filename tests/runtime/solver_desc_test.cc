// Solver descriptions: validation, the bytes each buffer must hold (counted
// by hand from runtime/solver.h's buffer lists), the host permutation against
// hand-applied row interchanges, and the load-time check of solver thunks.
#include <gtest/gtest.h>

#include <type_traits>
#include <vector>

#include "runtime/library_op.h"
#include "runtime/program.h"
#include "runtime/program_check.h"
#include "runtime/solver.h"

namespace jft::runtime {
namespace {

SolverDesc desc(SolverKind kind, SolverType type, int64_t batch, int64_t m, int64_t n) {
  SolverDesc d;
  d.kind = kind;
  d.type = type;
  d.batch = batch;
  d.m = m;
  d.n = n;
  return d;
}

TEST(SolverDesc, BufferBytes) {
  // getrf c64 2 x 3x5: a and lu 2*15*8, pivots 2*3*4, info 2*4.
  EXPECT_EQ(solverBufferBytes(desc(SolverKind::kGetrf, SolverType::kC64, 2, 3, 5)),
            (std::vector<uint64_t>{240, 240, 24, 8}));
  // potrf f64 4 x 6x6: 4*36*8 twice, info 16.
  EXPECT_EQ(solverBufferBytes(desc(SolverKind::kPotrf, SolverType::kF64, 4, 6, 6)),
            (std::vector<uint64_t>{1152, 1152, 16}));
  // permutation: 3 x 5 pivots, 3 x 7 entries.
  EXPECT_EQ(solverBufferBytes(
                desc(SolverKind::kLuPivotsToPermutation, SolverType::kS32, 3, 7, 5)),
            (std::vector<uint64_t>{60, 84}));
  // trsm c128, B 2x3: A 3x3 on the right.
  SolverDesc right = desc(SolverKind::kTriangularSolve, SolverType::kC128, 1, 2, 3);
  right.left_side = false;
  EXPECT_EQ(solverBufferBytes(right), (std::vector<uint64_t>{144, 96, 96}));
}

TEST(SolverDesc, QrBufferBytesAndShapes) {
  // geqrf f64 2 x 5x3: a and qr 2*15*8, tau 2*3*8.
  EXPECT_EQ(solverBufferBytes(desc(SolverKind::kGeqrf, SolverType::kF64, 2, 5, 3)),
            (std::vector<uint64_t>{240, 240, 48}));
  // orgqr f32 5x3 from 2 reflectors: a 60, tau 8, q 60.
  SolverDesc q = desc(SolverKind::kOrgqr, SolverType::kF32, 1, 5, 3);
  q.k = 2;
  EXPECT_EQ(solverBufferBytes(q), (std::vector<uint64_t>{60, 8, 60}));
  EXPECT_EQ(solverText(q), "orgqr f32 batch 1 5x3 k 2");
  EXPECT_TRUE(validateSolver(q).isOk());
  q.k = 4;
  EXPECT_FALSE(validateSolver(q).isOk());
}

TEST(SolverDesc, DecompositionBufferBytes) {
  // syevd c64 2 x 3x3: a and v 2*9*8, w real f32 2*3*4, info 2*4.
  EXPECT_EQ(solverBufferBytes(desc(SolverKind::kSyevd, SolverType::kC64, 2, 3, 3)),
            (std::vector<uint64_t>{144, 144, 24, 8}));
  // gesvdj f64 1 x 5x3, full: a and work 120, s 3*8, u 5*5*8, v 3*3*8, info 4.
  SolverDesc svd = desc(SolverKind::kGesvdj, SolverType::kF64, 1, 5, 3);
  EXPECT_EQ(solverBufferBytes(svd), (std::vector<uint64_t>{120, 120, 24, 200, 72, 4}));
  EXPECT_EQ(solverText(svd), "gesvdj f64 batch 1 5x3 full");
  // Economic c128 2 x 3x5: s 2*3*8 (real), u 2*3*3*16, v 2*5*3*16.
  SolverDesc econ = desc(SolverKind::kGesvdj, SolverType::kC128, 2, 3, 5);
  econ.full_matrices = false;
  econ.compute_uv = false;
  EXPECT_EQ(solverBufferBytes(econ), (std::vector<uint64_t>{480, 480, 48, 288, 480, 8}));
  EXPECT_EQ(solverText(econ), "gesvdj c128 batch 2 3x5 econ no_uv");
  EXPECT_TRUE(validateSolver(econ).isOk());
  SolverDesc eig = desc(SolverKind::kSyevd, SolverType::kF32, 1, 4, 4);
  eig.lower = true;
  eig.algorithm = EigAlgorithm::kJacobi;
  EXPECT_EQ(solverText(eig), "syevd f32 batch 1 4x4 lower jacobi");
  Status rect = validateSolver(desc(SolverKind::kSyevd, SolverType::kF32, 1, 4, 5));
  EXPECT_EQ(rect.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(rect.message().find("square"), std::string::npos) << rect.message();
  // sytrd f64 2 x 4x4: a and out 2*16*8, d 2*4*8, e and tau 2*3*8, info 8;
  // a 1x1 matrix has no off-diagonal and no reflector.
  SolverDesc tri = desc(SolverKind::kSytrd, SolverType::kF64, 2, 4, 4);
  EXPECT_EQ(solverBufferBytes(tri), (std::vector<uint64_t>{256, 256, 64, 48, 48, 8}));
  EXPECT_EQ(solverText(tri), "sytrd f64 batch 2 4x4 upper");
  EXPECT_EQ(solverBufferBytes(desc(SolverKind::kSytrd, SolverType::kC64, 1, 1, 1)),
            (std::vector<uint64_t>{8, 8, 4, 0, 0, 4}));
  EXPECT_FALSE(
      validateSolver(desc(SolverKind::kSytrd, SolverType::kF32, 1, 3, 4)).isOk());
  EXPECT_EQ(solverRealType(SolverType::kC64), SolverType::kF32);
  EXPECT_EQ(solverRealType(SolverType::kC128), SolverType::kF64);
  EXPECT_EQ(solverRealType(SolverType::kF64), SolverType::kF64);
}

TEST(SolverDesc, GesvdAndGesvdpBufferBytes) {
  // gesvd f32 3 x 5x3 full: a and out 3*15*4, s 3*3*4, u 3*5*5*4, vt
  // 3*3*3*4, info 3*4.
  SolverDesc qr = desc(SolverKind::kGesvd, SolverType::kF32, 3, 5, 3);
  EXPECT_EQ(solverBufferBytes(qr), (std::vector<uint64_t>{180, 180, 36, 300, 108, 12}));
  EXPECT_EQ(solverText(qr), "gesvd f32 batch 3 5x3 full");
  EXPECT_TRUE(validateSolver(qr).isOk());
  // Economy c64 2 x 6x4: u 2*6*4*8 (m x n), vt still 2*4*4*8; s real 2*4*4.
  qr.type = SolverType::kC64;
  qr.batch = 2;
  qr.m = 6;
  qr.n = 4;
  qr.full_matrices = false;
  EXPECT_EQ(solverBufferBytes(qr), (std::vector<uint64_t>{384, 384, 32, 384, 256, 8}));
  EXPECT_EQ(solverText(qr), "gesvd c64 batch 2 6x4 econ");
  // Without vectors u and vt are one c128 each (JAX's scalars), batch or not.
  SolverDesc noUv = desc(SolverKind::kGesvd, SolverType::kC128, 4, 3, 2);
  noUv.compute_uv = false;
  EXPECT_EQ(solverBufferBytes(noUv), (std::vector<uint64_t>{384, 384, 64, 16, 16, 16}));
  EXPECT_EQ(solverText(noUv), "gesvd c128 batch 4 3x2 full no_uv");
  // The library's restriction: rows >= columns.
  Status wide = validateSolver(desc(SolverKind::kGesvd, SolverType::kF32, 1, 3, 5));
  EXPECT_EQ(wide.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wide.message().find("gesvd f32 batch 1 3x5 full: gesvd needs m >= n"),
            std::string::npos)
      << wide.message();
  // gesvdp has gesvdj's buffers and takes any shape: f64 2 x 3x5 econ, k 3:
  // a and work 2*15*8, s 2*3*8, u 2*3*3*8, v 2*5*3*8, info 8.
  SolverDesc polar = desc(SolverKind::kGesvdp, SolverType::kF64, 2, 3, 5);
  polar.full_matrices = false;
  EXPECT_EQ(solverBufferBytes(polar), (std::vector<uint64_t>{240, 240, 48, 144, 240, 8}));
  EXPECT_EQ(solverText(polar), "gesvdp f64 batch 2 3x5 econ");
  EXPECT_TRUE(validateSolver(polar).isOk());
}

TEST(SolverDesc, GeevBufferBytesAndValidation) {
  // geev f32 2 x 3x3: a, out, vl, vr 2*9*4; w complex<f32> 2*3*8; info 2*4.
  SolverDesc eig = desc(SolverKind::kGeev, SolverType::kF32, 2, 3, 3);
  EXPECT_EQ(solverBufferBytes(eig), (std::vector<uint64_t>{72, 72, 48, 72, 72, 8}));
  EXPECT_EQ(solverText(eig), "geev f32 batch 2 3x3");
  EXPECT_TRUE(validateSolver(eig).isOk());
  // f64: w complex<f64>, 16 bytes an element; c64 w is its own type.
  eig.type = SolverType::kF64;
  EXPECT_EQ(solverBufferBytes(eig)[2], 96u);
  eig.type = SolverType::kC64;
  EXPECT_EQ(solverBufferBytes(eig)[2], 48u);
  eig.type = SolverType::kC128;
  eig.eigenvectors = false;
  EXPECT_EQ(solverBufferBytes(eig), (std::vector<uint64_t>{288, 288, 96, 288, 288, 8}));
  EXPECT_EQ(solverText(eig), "geev c128 batch 2 3x3 no_vectors");
  Status rect = validateSolver(desc(SolverKind::kGeev, SolverType::kF32, 1, 3, 4));
  EXPECT_EQ(rect.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(rect.message().find("geev f32 batch 1 3x4: an eigendecomposition needs a "
                                "square matrix"),
            std::string::npos)
      << rect.message();
}

TEST(SolverDesc, OrmqrBufferBytesAndValidation) {
  // ormqr c64 2 x (C 5x3), left: Q 5x5 from k = 2 reflectors in a 5x4 a:
  // a 2*20*8, tau 2*2*8, c and out 2*15*8.
  SolverDesc q = desc(SolverKind::kOrmqr, SolverType::kC64, 2, 5, 3);
  q.k = 2;
  q.reflector_cols = 4;
  q.transpose = SolverTranspose::kAdjoint;
  EXPECT_EQ(solverBufferBytes(q), (std::vector<uint64_t>{320, 32, 240, 240}));
  EXPECT_EQ(solverText(q), "ormqr c64 batch 2 5x3 k 2 left C");
  EXPECT_TRUE(validateSolver(q).isOk());
  // Right: Q 3x3, so a is 3 x 4 and k at most 3.
  q.left_side = false;
  EXPECT_EQ(solverBufferBytes(q)[0], 192u);
  EXPECT_TRUE(validateSolver(q).isOk());
  q.k = 4;
  Status order = validateSolver(q);
  EXPECT_EQ(order.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(order.message().find("k <= Q's order"), std::string::npos) << order.message();
  // More reflectors than a's columns.
  q.left_side = true;
  q.k = 3;
  q.reflector_cols = 2;
  EXPECT_FALSE(validateSolver(q).isOk());
  // unmqr has no plain transpose; ormqr (real) has.
  q.reflector_cols = 4;
  q.transpose = SolverTranspose::kTranspose;
  Status t = validateSolver(q);
  EXPECT_EQ(t.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.message().find("not Q^T"), std::string::npos) << t.message();
  q.type = SolverType::kF64;
  EXPECT_TRUE(validateSolver(q).isOk());
  EXPECT_EQ(solverText(q), "ormqr f64 batch 2 5x3 k 3 left T");
}

TEST(SolverDesc, CholeskyUpdateBuffersAndValidation) {
  // f64 1 x 4x4: r and r_out 16*8, w and w_out 4*8.
  SolverDesc u = desc(SolverKind::kCholeskyUpdate, SolverType::kF64, 1, 4, 4);
  EXPECT_EQ(solverBufferBytes(u), (std::vector<uint64_t>{128, 32, 128, 32}));
  EXPECT_EQ(solverText(u), "cholesky_update f64 batch 1 4x4");
  EXPECT_TRUE(validateSolver(u).isOk());
  u.type = SolverType::kC64;
  EXPECT_NE(validateSolver(u).message().find("f32 or f64"), std::string::npos);
  EXPECT_FALSE(
      validateSolver(desc(SolverKind::kCholeskyUpdate, SolverType::kF32, 1, 3, 4))
          .isOk());
}

TEST(SolverDesc, CholeskyRankOneUpdateByHand) {
  // 1 x 1: sqrt(3^2 + 4^2) = 5, w rotated to 0.
  double r1[] = {3}, w1[] = {4};
  choleskyRankOneUpdate(r1, w1, SolverType::kF64, 1, 1);
  EXPECT_DOUBLE_EQ(r1[0], 5);
  EXPECT_NEAR(w1[0], 0, 1e-15);
  // w = 0 leaves R as it is.
  float r2[] = {2, 1, 0, 3}, w2[] = {0, 0};
  choleskyRankOneUpdate(r2, w2, SolverType::kF32, 1, 2);
  EXPECT_EQ(std::vector<float>(r2, r2 + 4), (std::vector<float>{2, 1, 0, 3}));
}

// R'^T R' = R^T R + w w^T (the definition), R' upper triangular with a
// positive diagonal, for random factors of a batch, f64 and f32.
template <typename T>
void checkRankOneUpdate(int64_t batch, int64_t n, double tolerance) {
  std::vector<T> r(static_cast<size_t>(batch * n * n), T(0)),
      w(static_cast<size_t>(batch * n));
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / static_cast<double>(1u << 24) - 0.5;
  };
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i; j < n; ++j)
        r[b * n * n + i * n + j] = static_cast<T>(i == j ? 1.0 + next() + 0.5 : next());
      w[b * n + i] = static_cast<T>(2 * next());
    }
  std::vector<T> updated = r, consumed = w;
  choleskyRankOneUpdate(updated.data(), consumed.data(),
                        std::is_same_v<T, double> ? SolverType::kF64 : SolverType::kF32,
                        batch, n);
  for (int64_t b = 0; b < batch; ++b) {
    const T* r0 = r.data() + b * n * n;
    const T* r1 = updated.data() + b * n * n;
    const T* w0 = w.data() + b * n;
    for (int64_t i = 0; i < n; ++i) {
      EXPECT_GT(r1[i * n + i], 0) << "item " << b << " diagonal " << i;
      for (int64_t j = 0; j < i; ++j)
        EXPECT_NEAR(r1[i * n + j], 0, tolerance)
            << "item " << b << " below " << i << "," << j;
      EXPECT_NEAR(consumed[b * n + i], 0, tolerance) << "item " << b << " w " << i;
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double before = static_cast<double>(w0[i]) * static_cast<double>(w0[j]);
        double after = 0;
        for (int64_t p = 0; p < n; ++p) {
          before +=
              static_cast<double>(r0[p * n + i]) * static_cast<double>(r0[p * n + j]);
          after +=
              static_cast<double>(r1[p * n + i]) * static_cast<double>(r1[p * n + j]);
        }
        EXPECT_NEAR(after, before, tolerance)
            << "item " << b << " (" << i << "," << j << ")";
      }
  }
}

TEST(SolverDesc, CholeskyRankOneUpdateKeepsTheProduct) {
  checkRankOneUpdate<double>(3, 7, 1e-12);
  checkRankOneUpdate<float>(2, 5, 1e-5);
}

TEST(SolverDesc, Validation) {
  EXPECT_TRUE(validateSolver(desc(SolverKind::kGetrf, SolverType::kF32, 1, 3, 5)).isOk());
  EXPECT_TRUE(validateSolver(desc(SolverKind::kGetrf, SolverType::kF32, 0, 0, 0)).isOk());
  Status rect = validateSolver(desc(SolverKind::kPotrf, SolverType::kF32, 1, 3, 5));
  EXPECT_EQ(rect.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(rect.message().find("square"), std::string::npos) << rect.message();
  EXPECT_FALSE(
      validateSolver(desc(SolverKind::kGetrf, SolverType::kS32, 1, 3, 3)).isOk());
  EXPECT_FALSE(
      validateSolver(desc(SolverKind::kLuPivotsToPermutation, SolverType::kF32, 1, 3, 3))
          .isOk());
  EXPECT_FALSE(
      validateSolver(desc(SolverKind::kGetrf, SolverType::kF32, 1, -1, 3)).isOk());
  Status big =
      validateSolver(desc(SolverKind::kGetrf, SolverType::kF32, 1, 1 << 16, 1 << 16));
  EXPECT_NE(big.message().find("int sizes"), std::string::npos) << big.message();
}

TEST(SolverDesc, Text) {
  SolverDesc t = desc(SolverKind::kTriangularSolve, SolverType::kF64, 2, 4, 8);
  t.lower = true;
  t.transpose = SolverTranspose::kAdjoint;
  t.unit_diagonal = true;
  EXPECT_EQ(solverText(t), "triangular_solve f64 batch 2 4x8 left lower C unit");
  SolverDesc p = desc(SolverKind::kPotrf, SolverType::kC128, 1, 3, 3);
  EXPECT_EQ(libraryOpText(p), "potrf c128 batch 1 3x3 upper");
}

TEST(SolverDesc, PivotsToPermutationAppliesTheInterchangesInOrder) {
  // Item 0: swap(0,2) -> [2,1,0,3]; swap(1,2) -> [2,0,1,3]; swap(2,3) ->
  // [2,0,3,1]; swap(3,0) -> [1,0,3,2].
  // Item 1: swap(0,0); swap(1,3) -> [0,3,2,1]; -1 and 9 are out of range, skipped.
  const int32_t pivots[] = {2, 2, 3, 0, 0, 3, -1, 9};
  int32_t out[8] = {};
  luPivotsToPermutation(pivots, out, 2, 4, 4);
  EXPECT_EQ(std::vector<int32_t>(out, out + 4), (std::vector<int32_t>{1, 0, 3, 2}));
  EXPECT_EQ(std::vector<int32_t>(out + 4, out + 8), (std::vector<int32_t>{0, 3, 2, 1}));
  // Fewer pivots than rows: the rest stay in place.
  const int32_t two[] = {1, 2};
  int32_t perm[5] = {};
  luPivotsToPermutation(two, perm, 1, 2, 5);
  EXPECT_EQ(std::vector<int32_t>(perm, perm + 5), (std::vector<int32_t>{1, 2, 0, 3, 4}));
}

// A program of one solver thunk over slots of the given sizes.
Program solverProgram(const SolverDesc& d, const std::vector<uint64_t>& bytes) {
  Program p;
  for (uint64_t b : bytes) {
    BufferSlot slot;
    slot.kind = BufferSlot::Kind::kTemp;
    slot.bytes = b;
    slot.offset = p.temp_bytes;
    p.temp_bytes += (b + 255) / 256 * 256;  // temps start 256-byte aligned
    p.slots.push_back(slot);
  }
  LibraryThunk thunk;
  thunk.op = d;
  for (size_t i = 0; i < bytes.size(); ++i) thunk.buffers.push_back(static_cast<int>(i));
  p.thunks.push_back(thunk);
  return p;
}

TEST(SolverDesc, ProgramCheckWantsEveryBufferBigEnough) {
  const SolverDesc getrf = desc(SolverKind::kGetrf, SolverType::kF32, 1, 4, 4);
  EXPECT_TRUE(checkProgram(solverProgram(getrf, {64, 64, 16, 4}), 32).isOk());
  Status small = checkProgram(solverProgram(getrf, {64, 64, 12, 4}), 32);
  EXPECT_EQ(small.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(small.message().find("buffer 2"), std::string::npos) << small.message();
  Status count = checkProgram(solverProgram(getrf, {64, 64, 16}), 32);
  EXPECT_NE(count.message().find("3 buffers, not 4"), std::string::npos)
      << count.message();
  Status bad = checkProgram(
      solverProgram(desc(SolverKind::kPotrf, SolverType::kF32, 1, 4, 3), {48, 48, 4}),
      32);
  EXPECT_NE(bad.message().find("square"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace jft::runtime
