// The solver runner: SolverDesc (runtime/solver.h) on cuSOLVER (potrf, getrf,
// geqrf, orgqr, ormqr, syevd / syevj, gesvdj, gesvd, gesvdp, sytrd, geev) and
// cuBLAS (trsm), loaded with dlopen on first use and enqueued on the device's
// stream; lu_pivots_to_permutation and cholesky_update, which neither library
// offers, are computed by host functions in stream order (no host wait).
//
// One handle per library per runner (so per device), bound to the device's
// stream; each library is loaded only when a description first needs it.
// Batches run item by item, except the batched Jacobi routines (syevj,
// gesvdj) on matrices up to 32 x 32, as JAX's handlers choose. The library workspace is
// one device buffer, grown to the largest *_bufferSize answer seen (the old one is freed
// behind the work queued on it).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/solver.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class CudaDevice;

class SolverRunner {
 public:
  // The device must outlive the runner. Loads no library yet.
  static StatusOr<std::unique_ptr<SolverRunner>> create(CudaDevice& device);
  virtual ~SolverRunner() = default;
  // buffers: device addresses, as runtime/solver.h documents for desc.kind.
  // INVALID_ARGUMENT for a description validateSolver rejects or the wrong
  // number of buffers; UNAVAILABLE when the library it needs cannot be
  // loaded. Returns once the work is enqueued.
  virtual Status run(const SolverDesc& desc, const std::vector<uint64_t>& buffers) = 0;
};

}  // namespace jft::runtime::gpu
