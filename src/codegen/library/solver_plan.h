// How one linear-algebra op maps onto a column-major solver description
// (runtime/solver.h), without touching the module: which operands the
// library reads and which results it writes, in buffer order, and whether
// the matrix must be moved to and from column-major order first.
//
// Our values are row-major, and a row-major matrix is the column-major
// transpose. Where that is harmless the flags absorb it: a Cholesky factor
// of A^T in the other triangle is the transpose of A's (potrf, cholesky:
// `lower` flips); op(A) X = B is X^T op(A)^T = B^T (triangular_solve: the
// side and the triangle flip, m and n swap, op stays). LU and QR have no
// such identity, so the matrix operand and result of getrf, geqrf and orgqr
// are transposed by TTIR kernels around the call. syevd reads a real
// symmetric operand in place with `lower` flipped (its transpose is itself;
// a complex Hermitian one's is its conjugate, so that one is copied) but
// writes the eigenvectors column-major, transposed after the call; gesvdj's
// and gesvdp's operand is copied column-major and their U and V transposed
// back; gesvd's likewise for a tall matrix, while a wide one comes row-major
// with `transposed` and runs as its column-major transpose with no copy at
// all (solver_plan.cc works out why u and vt then come out right); sytrd's
// operand and reduced matrix (reflectors stored in a triangle, which no
// flag maps onto the other) are copied both ways; geev's operand is copied
// (a general matrix's transpose has A's left eigenvectors, not its right
// ones) and its right eigenvectors transposed back; ormqr's reflectors and
// c are copied and its product transposed back (the reflectors are columns,
// and a complex Q^T, which the row-major view of c would need, is no op the
// library has). Complex matrices take the same copies as real ones.
// cu_cholesky_update_ffi is no library call: its row-major factor is
// updated as it is, by a host function the device runs in stream order.
//
// The cuSOLVER custom calls must carry the layouts JAX gives them: column-
// major matrices ((r-2, r-1, r-3, ..., 0), minor to major) and row-major
// vectors; any other layout is rejected, since the library would read the
// memory in another order than the values' meaning.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/module.h"
#include "runtime/solver.h"
#include "support/status.h"

namespace jft::codegen::library {

struct SolverPlan {
  runtime::SolverDesc desc;
  std::vector<ir::ValueId> inputs;   // operands of the op, in buffer order
  std::vector<ir::ValueId> outputs;  // results of the op, in buffer order
  // Indices into inputs (outputs) of the matrices the library reads (writes)
  // column-major: each is transposed in its last two dims before (after)
  // the call.
  std::vector<size_t> column_major_inputs;
  std::vector<size_t> column_major_outputs;
  // A scratch buffer after the outputs: the info vector of a cholesky op,
  // which has no result for it.
  uint64_t workspace_bytes = 0;
};

// The plan for `op` (cusolver_getrf_ffi, cusolver_potrf_ffi,
// cusolver_geqrf_ffi, cusolver_orgqr_ffi, cusolver_syevd_ffi,
// cusolver_gesvdj_ffi, cusolver_gesvd_ffi, cusolver_gesvdp_ffi,
// cusolver_sytrd_ffi, cusolver_geev_ffi, cusolver_ormqr_ffi,
// cu_cholesky_update_ffi, cu_lu_pivots_to_permutation,
// triangular_solve, cholesky), or UNIMPLEMENTED saying why no solver
// library computes it (the target, an element type, a layout).
StatusOr<SolverPlan> planSolver(const ir::Module& module, const ir::Op& op);

}  // namespace jft::codegen::library
