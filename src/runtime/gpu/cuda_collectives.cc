// CudaDevice's collective runner: NCCL over the platform's shared
// communicators (runtime/gpu/nccl_cliques.h), on this device's stream.
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/nccl_cliques.h"

namespace jft::runtime::gpu {

CudaDevice::Collectives::Collectives() = default;
CudaDevice::Collectives::~Collectives() = default;

void CudaDevice::Collectives::release() {
  std::lock_guard<std::mutex> lock(mutex);
  runner.reset();
  if (cliques != nullptr) cliques->destroyAll();
  cliques.reset();
}

Status CudaDevice::shareCliques(std::shared_ptr<NcclCliques> cliques) {
  std::lock_guard<std::mutex> lock(collectives_.mutex);
  // The runner handed out refers to its cache for good.
  if (collectives_.runner != nullptr)
    return failedPrecondition(info_.name + " already runs collectives on its own cache");
  collectives_.cliques = std::move(cliques);
  return Status::ok();
}

StatusOr<CollectiveRunner*> CudaDevice::collectiveRunner() {
  std::lock_guard<std::mutex> lock(collectives_.mutex);
  if (collectives_.runner != nullptr) return collectives_.runner.get();
  if (collectives_.cliques == nullptr)
    collectives_.cliques = std::make_shared<NcclCliques>();
  NcclDeviceRunner::Target target;
  target.ordinal = info_.ordinal;
  target.name = info_.name + " (device " + std::to_string(info_.ordinal) + ")";
  target.stream = stream_;
  target.make_current = [this] { return makeCurrent(); };
  // A permute target nobody sends to: zeros, ordered on this device's stream.
  target.zero_fill = [this](uint64_t address, uint64_t bytes, CUstream) {
    return fill(address, 0, bytes);
  };
  collectives_.runner =
      std::make_unique<NcclDeviceRunner>(*collectives_.cliques, std::move(target));
  return collectives_.runner.get();
}

}  // namespace jft::runtime::gpu
