// cuDNN: the library opened once per process, and the convolution runner
// that runs ConvDesc (runtime/conv.h) on one CudaDevice's stream through the
// graph (backend) API.
//
// For each distinct description (and operand alignment) the runner builds
// one operation graph of one convolution, asks heuristics mode A for engine
// configurations and keeps the first whose execution plan finalizes and
// whose numerical notes the description allows (no TF32 tensor cores for an
// f32 convolution that may not round, never down-converted inputs or reduced
// precision accumulation). The plan is cached, so a repeated convolution costs
// one variant pack and one execute call; a description no engine takes is
// remembered as such. The plan's workspace is one device buffer the runner
// owns and grows, as the cuBLASLt runner owns its workspace.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/conv.h"
#include "runtime/gpu/cudnn_api.h"
#include "runtime/gpu/library_loader.h"
#include "runtime/gpu/plan_cache.h"
#include "support/status.h"

namespace jft::runtime::gpu {

class CudaDevice;

class Cudnn {
 public:
  // The process-wide library. Looks for $JFT_CUDNN_LIBRARY when set (the
  // Python package points it at the nvidia-cudnn wheel's copy), then
  // libcudnn.so.9, libcudnn.so.8, libcudnn.so. UNAVAILABLE when none loads or
  // one lacks an entry point we need.
  static StatusOr<const Cudnn*> load();

  JFT_ENTRY_POINTS(JFT_CUDNN_FUNCTIONS)

  std::string library_name;  // the file that was opened

  // OK for success; otherwise a status naming `what` and the library's
  // message (NOT_SUPPORTED* becomes UNIMPLEMENTED, BAD_PARAM* INVALID_ARGUMENT,
  // allocation failures RESOURCE_EXHAUSTED, the rest INTERNAL).
  Status check(cudnnStatus_t status, const std::string& what) const;
};

// The status category of a cuDNN result, as Cudnn::check maps it (tested on
// the CPU).
StatusCode cudnnStatusCode(cudnnStatus_t status);

class ConvRunner {
 public:
  // The byte alignment a plan is built for when every pointer has it.
  static constexpr uint64_t kAlignment = 16;

  // The device must outlive the runner. Loads cuDNN and creates the handle.
  static StatusOr<std::unique_ptr<ConvRunner>> create(CudaDevice& device);
  ~ConvRunner();
  ConvRunner(const ConvRunner&) = delete;
  ConvRunner& operator=(const ConvRunner&) = delete;

  // Validates `desc` and builds its plan for aligned operands unless built:
  // UNIMPLEMENTED when no engine configuration takes it.
  Status prepare(const ConvDesc& desc);

  // buffers: lhs, rhs, result (runtime/conv.h). Validates, plans on first
  // sight (for the pointers' alignment) and enqueues. Returns once enqueued.
  Status run(const ConvDesc& desc, const std::vector<uint64_t>& buffers);

  // Plans built so far (one per description and alignment).
  size_t planCount() const;

 private:
  struct Plan;
  struct Key {
    ConvDesc desc;
    uint64_t alignment = kAlignment;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };

  ConvRunner(CudaDevice& device, const Cudnn& cudnn);
  StatusOr<const Plan*> planFor(const Key& key);
  StatusOr<std::unique_ptr<Plan>> makePlan(const Key& key);
  Status growWorkspace(uint64_t bytes);

  CudaDevice& device_;
  const Cudnn& cudnn_;
  cudnnHandle_t handle_ = nullptr;
  uint64_t workspace_ = 0, workspace_bytes_ = 0;
  mutable std::mutex mutex_;  // plans, the workspace and the handle: one user at a time
  PlanCache<Key, Plan, KeyHash> plans_;
  std::unordered_map<Key, Status, KeyHash> refused_;  // no engine takes these
};

}  // namespace jft::runtime::gpu
