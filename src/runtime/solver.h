// One (batched) dense linear-algebra operation as the runtime hands it to a
// solver library (cuSOLVER / cuBLAS on CUDA; hipSOLVER would read the same
// description). The compiler fills it in from the custom calls JAX's GPU
// lowering emits (cusolver_*_ffi, cu_lu_pivots_to_permutation) and from
// stablehlo.triangular_solve / cholesky; nothing here knows CUDA or our IR.
//
// Buffers of its LibraryThunk, in order: the operands the op reads, then the
// results it writes, as the op's kind documents below.
#pragma once

#include <cstdint>
#include <string>

namespace jft::runtime {

enum class SolverKind : uint8_t {
  kPotrf,  // Cholesky factorization
  kGetrf,  // LU factorization with partial pivoting
  kLuPivotsToPermutation,
  kTriangularSolve,
};

enum class SolverType : uint8_t { kF32, kF64, kC64, kC128 };

struct SolverDesc {
  SolverKind kind = SolverKind::kPotrf;
  SolverType type = SolverType::kF32;
  int64_t batch = 1;
  int64_t m = 0, n = 0;
  bool lower = false;
  friend bool operator==(const SolverDesc&, const SolverDesc&) = default;
};

// "potrf f32 batch 1 32x32 lower" for errors and the route report.
std::string solverText(const SolverDesc& desc);

}  // namespace jft::runtime
