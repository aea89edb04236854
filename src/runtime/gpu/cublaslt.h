// cuBLASLt: the library opened once per process, and a GEMM runner bound to
// one CudaDevice's stream.
//
// The runner creates its handle and a workspace once, and caches per distinct
// GemmDesc (and operand alignment) the matmul descriptor, the four layouts and
// the algorithm the library's heuristic chose, so a repeated product costs one
// cublasLtMatmul call. Row-major products are expressed to the column-major
// library by swapping the operands: D^T = B^T A^T.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "runtime/gemm.h"
#include "runtime/gpu/cublaslt_api.h"
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/library_loader.h"
#include "runtime/gpu/plan_cache.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class CublasLt {
 public:
  // The process-wide library. Looks for $JFT_CUBLASLT_LIBRARY when set (the
  // Python package points it at the wheel's copy), then libcublasLt.so.13,
  // .so.12, libcublasLt.so. UNAVAILABLE when none loads or one lacks an entry
  // point we need.
  static StatusOr<const CublasLt*> load();

  JFT_ENTRY_POINTS(JFT_CUBLASLT_FUNCTIONS)

  std::string library_name;  // the file that was opened

  // OK for success; otherwise a status naming `what` and the library's error
  // (NOT_SUPPORTED becomes UNIMPLEMENTED, ALLOC_FAILED RESOURCE_EXHAUSTED).
  Status check(cublasStatus_t status, const std::string& what) const;
};

// Device addresses of one product's buffers; `bias` only when desc.bias.
struct GemmBuffers {
  uint64_t a = 0, b = 0, d = 0, bias = 0;
};

class GemmRunner {
 public:
  static constexpr uint64_t kWorkspaceBytes = 32ull << 20;

  // The device must outlive the runner.
  static StatusOr<std::unique_ptr<GemmRunner>> create(CudaDevice& device);
  ~GemmRunner();
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  // Validates `desc` (INVALID_ARGUMENT), plans it on first sight
  // (UNIMPLEMENTED when the library has no algorithm for it) and enqueues the
  // product on the device's stream. Returns once enqueued.
  Status run(const GemmDesc& desc, const GemmBuffers& buffers);

  // Plans made so far (one per distinct description and alignment).
  size_t planCount() const;

 private:
  struct Plan;
  struct Key {
    GemmDesc desc;
    uint32_t align_a, align_b, align_d;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };

  GemmRunner(CudaDevice& device, const CublasLt& lt);
  StatusOr<std::unique_ptr<Plan>> makePlan(const Key& key);

  CudaDevice& device_;
  const CublasLt& lt_;
  cublasLtHandle_t handle_ = nullptr;
  uint64_t workspace_ = 0;
  mutable std::mutex mutex_;
  PlanCache<Key, Plan, KeyHash> plans_;
};

}  // namespace jft::runtime::gpu
