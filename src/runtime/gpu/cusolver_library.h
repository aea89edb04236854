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

  JFT_ENTRY_POINTS(JFT_CUSOLVER_FUNCTIONS)
  // Indexed by solverTypeIndex.
#define JFT_DECLARE_TYPED_ROUTINE(member, Type, name, complex_name) \
  std::array<Type##BufferSizeFn, 4> member##_buffer_size{};         \
  std::array<Type##Fn, 4> member{};
  JFT_CUSOLVER_TYPED_ROUTINES(JFT_DECLARE_TYPED_ROUTINE)
#undef JFT_DECLARE_TYPED_ROUTINE
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

  JFT_ENTRY_POINTS(JFT_CUBLAS_FUNCTIONS)
  std::array<TrsmFn, 4> trsm{};
  std::string library_name;

  Status check(cublasStatusCode_t status, const std::string& what) const;
};

}  // namespace jft::runtime::gpu
