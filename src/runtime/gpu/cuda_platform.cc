// CudaPlatform implementation.
#include "runtime/gpu/cuda_platform.h"

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"
#include "runtime/gpu/nccl_cliques.h"

namespace jft::runtime::gpu {
namespace {

class CudaPlatform final : public Platform {
 public:
  CudaPlatform(int driverVersion, std::vector<std::unique_ptr<CudaDevice>> devices,
               std::shared_ptr<NcclCliques> cliques)
      : driver_version_(driverVersion),
        devices_(std::move(devices)),
        cliques_(std::move(cliques)) {}
  // Every communicator goes first, all ranks together, while every device's
  // stream and context still live.
  ~CudaPlatform() override { cliques_->destroyAll(); }

  std::string name() const override { return "cuda"; }
  std::string version() const override { return cudaPlatformVersion(driver_version_); }
  int deviceCount() const override { return static_cast<int>(devices_.size()); }
  Device& device(int ordinal) override { return *devices_.at(ordinal); }
  void setCliqueIdExchange(std::shared_ptr<CliqueIdExchange> exchange) override {
    cliques_->setExchange(std::move(exchange));
  }

 private:
  int driver_version_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
  // The devices' communicators, one cache for the process's devices.
  std::shared_ptr<NcclCliques> cliques_;
};

}  // namespace

std::string cudaPlatformVersion(int driverVersion) {
  return "cuda " + std::to_string(driverVersion / 1000) + "." +
         std::to_string(driverVersion % 1000 / 10) + " (jax-flagtree, driver API) " +
         std::to_string(driverVersion);
}

StatusOr<std::unique_ptr<Platform>> openCudaPlatform(
    const std::vector<int>& visibleOrdinals, const MemoryOptions& memory) {
  JFT_ASSIGN_OR_RETURN(const Driver* driver, Driver::load());
  int count = 0;
  JFT_RETURN_IF_ERROR(driver->check(driver->deviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0) return failedPrecondition("the CUDA driver reports no GPU");
  std::vector<int> ordinals = visibleOrdinals;
  if (ordinals.empty()) {
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
  }
  std::vector<std::unique_ptr<CudaDevice>> devices;
  auto cliques = std::make_shared<NcclCliques>();
  for (int ordinal : ordinals) {
    if (ordinal < 0 || ordinal >= count) {
      return invalidArgument("visible device " + std::to_string(ordinal) +
                             " does not exist (the driver reports " +
                             std::to_string(count) + " GPUs)");
    }
    JFT_ASSIGN_OR_RETURN(auto device, CudaDevice::open(*driver, ordinal, memory));
    JFT_RETURN_IF_ERROR(device->shareCliques(cliques));
    devices.push_back(std::move(device));
  }
  int version = 0;
  JFT_RETURN_IF_ERROR(
      driver->check(driver->driverGetVersion(&version), "cuDriverGetVersion"));
  return std::unique_ptr<Platform>(
      new CudaPlatform(version, std::move(devices), std::move(cliques)));
}

}  // namespace jft::runtime::gpu
