#include "pjrt/device_measurer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "runtime/executable.h"

namespace jft::pjrt {
namespace {

// The candidate's argument buffers, freed with it.
class Arguments {
 public:
  explicit Arguments(runtime::Device& device) : device_(device) {}
  ~Arguments() {
    for (const runtime::ExecuteArgument& a : list_)
      device_.deallocate(a.address, a.bytes);
  }
  Arguments(const Arguments&) = delete;
  Arguments& operator=(const Arguments&) = delete;

  Status add(uint64_t bytes) {
    JFT_ASSIGN_OR_RETURN(uint64_t address, device_.allocate(bytes));
    list_.push_back({address, bytes, false});
    if (bytes > 0) return device_.fill(address, 0, bytes);
    return Status::ok();
  }
  const std::vector<runtime::ExecuteArgument>& list() const { return list_; }

 private:
  runtime::Device& device_;
  std::vector<runtime::ExecuteArgument> list_;
};

}  // namespace

std::string DeviceMeasurer::deviceKey() const {
  const runtime::DeviceInfo& info = device_.info();
  return info.name + " cc " + std::to_string(info.compute_major) + "." +
         std::to_string(info.compute_minor);
}

StatusOr<double> DeviceMeasurer::time(const runtime::Program& program,
                                      const std::string& label) {
  JFT_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Executable> executable,
                       runtime::Executable::load(device_, program));
  Arguments arguments(device_);
  for (uint64_t bytes : program.parameter_bytes)
    JFT_RETURN_IF_ERROR(arguments.add(bytes));

  // Microseconds per execution over `batch` back-to-back executions.
  auto run = [&](int batch) -> StatusOr<double> {
    const auto start = std::chrono::steady_clock::now();
    std::vector<runtime::EventPtr> done;
    for (int i = 0; i < batch; ++i) {
      JFT_ASSIGN_OR_RETURN(runtime::ExecuteResult result,
                           executable->execute(arguments.list()));
      for (const runtime::ExecuteOutput& out : result.outputs)
        device_.deallocate(out.address, out.bytes);
      done.push_back(std::move(result.done));
    }
    for (const runtime::EventPtr& event : done)
      if (Status status = event->await(); !status.isOk())
        return status.withContext(label + ": ");
    const std::chrono::duration<double, std::micro> elapsed =
        std::chrono::steady_clock::now() - start;
    return elapsed.count() / batch;
  };

  for (int i = 0; i < settings_.warmup; ++i) JFT_RETURN_IF_ERROR(run(1).status());
  JFT_ASSIGN_OR_RETURN(double estimate, run(1));
  const int batch = static_cast<int>(
      std::clamp(std::ceil(settings_.sample_us / std::max(estimate, 1.0)), 1.0,
                 static_cast<double>(std::max(settings_.max_batch, 1))));
  std::vector<double> samples;
  for (int i = 0; i < std::max(settings_.samples, 1); ++i) {
    JFT_ASSIGN_OR_RETURN(double sample, run(batch));
    samples.push_back(sample);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace jft::pjrt
