// The solver runner: SolverDesc (runtime/solver.h) on cuSOLVER and cuBLAS,
// loaded with dlopen on first use and enqueued on the device's stream.
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
  static StatusOr<std::unique_ptr<SolverRunner>> create(CudaDevice& device);
  virtual ~SolverRunner() = default;
  // buffers: as runtime/solver.h documents for desc.kind.
  virtual Status run(const SolverDesc& desc, const std::vector<uint64_t>& buffers) = 0;
};

}  // namespace jft::runtime::gpu
