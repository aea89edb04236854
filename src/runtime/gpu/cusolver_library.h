// cuSOLVER (dense) and cuBLAS, each opened once per process with dlopen and
// resolved into the entry points of cusolver_api.h. Loading never aborts: a
// machine without the library gets UNAVAILABLE listing every file tried.
#pragma once

#include <array>
#include <string>

#include "runtime/gpu/cusolver_api.h"
#include "runtime/gpu/library_loader.h"
#include "runtime/solver.h"
#include "support/status.h"

namespace jft::runtime::gpu {

// Index of a matrix element type in the per-type tables below (f32, f64,
// c64, c128 = S, D, C, Z); -1 for kS32.
int solverTypeIndex(SolverType type);

struct CusolverLibrary {
  // $JFT_CUSOLVER_LIBRARY when set, then libcusolver.so.12, .so.11, .so.
  static StatusOr<const CusolverLibrary*> load();

  JFT_CUSOLVER_FUNCTIONS(JFT_DECLARE_ENTRY_POINT)
  std::array<GetrfBufferSizeFn, 4> getrf_buffer_size{};
  std::array<GetrfFn, 4> getrf{};
  std::array<PotrfBufferSizeFn, 4> potrf_buffer_size{};
  std::array<PotrfFn, 4> potrf{};
  std::array<GeqrfBufferSizeFn, 4> geqrf_buffer_size{};
  std::array<GeqrfFn, 4> geqrf{};
  std::array<OrgqrBufferSizeFn, 4> orgqr_buffer_size{};
  std::array<OrgqrFn, 4> orgqr{};  // orgqr for S, D; ungqr for C, Z
  // sy* for S, D; he* for C, Z.
  std::array<SyevdBufferSizeFn, 4> syevd_buffer_size{};
  std::array<SyevdFn, 4> syevd{};
  std::array<SyevjBufferSizeFn, 4> syevj_buffer_size{};
  std::array<SyevjFn, 4> syevj{};
  std::array<SyevjBatchedBufferSizeFn, 4> syevj_batched_buffer_size{};
  std::array<SyevjBatchedFn, 4> syevj_batched{};
  std::array<GesvdjBufferSizeFn, 4> gesvdj_buffer_size{};
  std::array<GesvdjFn, 4> gesvdj{};
  std::array<GesvdjBatchedBufferSizeFn, 4> gesvdj_batched_buffer_size{};
  std::array<GesvdjBatchedFn, 4> gesvdj_batched{};
  std::array<GesvdBufferSizeFn, 4> gesvd_buffer_size{};
  std::array<GesvdFn, 4> gesvd{};
  std::array<SytrdBufferSizeFn, 4> sytrd_buffer_size{};  // hetrd for C, Z
  std::array<SytrdFn, 4> sytrd{};
  std::array<OrmqrBufferSizeFn, 4> ormqr_buffer_size{};  // unmqr for C, Z
  std::array<OrmqrFn, 4> ormqr{};
  // Optional (cuSOLVER 11.7.1 and newer): null when the library lacks them.
  GeevBufferSizeFn geev_buffer_size = nullptr;
  GeevFn geev = nullptr;
  std::string library_name;

  // OK for success; otherwise a status naming `what` and the status
  // (NOT_SUPPORTED becomes UNIMPLEMENTED, ALLOC_FAILED RESOURCE_EXHAUSTED).
  Status check(cusolverStatus_t status, const std::string& what) const;
};

struct CublasLibrary {
  // $JFT_CUBLAS_LIBRARY when set, then libcublas.so.13, .so.12, .so.
  static StatusOr<const CublasLibrary*> load();

  JFT_CUBLAS_FUNCTIONS(JFT_DECLARE_ENTRY_POINT)
  std::array<TrsmFn, 4> trsm{};
  std::string library_name;

  Status check(cublasStatusCode_t status, const std::string& what) const;
};

}  // namespace jft::runtime::gpu
