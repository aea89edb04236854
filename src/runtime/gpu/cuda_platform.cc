// CudaPlatform implementation.
#include "runtime/gpu/cuda_platform.h"

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {
namespace {

class CudaPlatform final : public Platform {
 public:
  CudaPlatform(int driverVersion, std::vector<std::unique_ptr<CudaDevice>> devices)
      : driverVersion_(driverVersion), devices_(std::move(devices)) {}

  std::string name() const override { return "cuda"; }
  std::string version() const override {
    return "cuda " + std::to_string(driverVersion_ / 1000) + "." +
           std::to_string(driverVersion_ % 1000 / 10) + " (driver API " +
           std::to_string(driverVersion_) + ")";
  }
  int deviceCount() const override { return static_cast<int>(devices_.size()); }
  Device& device(int ordinal) override { return *devices_.at(ordinal); }

 private:
  int driverVersion_;
  std::vector<std::unique_ptr<CudaDevice>> devices_;
};

}  // namespace

StatusOr<std::unique_ptr<Platform>> openCudaPlatform(
    const std::vector<int>& visibleOrdinals) {
  JFT_ASSIGN_OR_RETURN(const Driver* driver, Driver::load());
  int count = 0;
  JFT_RETURN_IF_ERROR(driver->check(driver->deviceGetCount(&count), "cuDeviceGetCount"));
  if (count == 0) return failedPrecondition("the CUDA driver reports no GPU");
  std::vector<int> ordinals = visibleOrdinals;
  if (ordinals.empty()) {
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
  }
  std::vector<std::unique_ptr<CudaDevice>> devices;
  for (int ordinal : ordinals) {
    if (ordinal < 0 || ordinal >= count) {
      return invalidArgument("visible device " + std::to_string(ordinal) +
                             " does not exist (the driver reports " +
                             std::to_string(count) + " GPUs)");
    }
    JFT_ASSIGN_OR_RETURN(auto device, CudaDevice::open(*driver, ordinal));
    devices.push_back(std::move(device));
  }
  int version = 0;
  JFT_RETURN_IF_ERROR(
      driver->check(driver->driverGetVersion(&version), "cuDriverGetVersion"));
  return std::unique_ptr<Platform>(new CudaPlatform(version, std::move(devices)));
}

}  // namespace jft::runtime::gpu
