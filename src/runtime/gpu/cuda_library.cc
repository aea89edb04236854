// CudaDevice::library: each library description on its runner, created on
// first use (a program without FFTs, solvers or convolutions should not load
// those libraries or pay for their handles).
#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/cudnn.h"
#include "runtime/gpu/cufft.h"
#include "runtime/gpu/cusolver.h"

namespace jft::runtime::gpu {
namespace {

// The runner in `slot`, created under `mutex` when missing. A failed
// creation is not remembered: the next call tries again.
template <typename Runner>
StatusOr<Runner*> runnerOf(std::unique_ptr<Runner>& slot, std::mutex& mutex,
                           CudaDevice& device) {
  std::lock_guard<std::mutex> lock(mutex);
  if (slot == nullptr) {
    JFT_ASSIGN_OR_RETURN(slot, Runner::create(device));
  }
  return slot.get();
}

}  // namespace

CudaDevice::LibraryRunners::LibraryRunners() = default;
CudaDevice::LibraryRunners::~LibraryRunners() = default;

void CudaDevice::LibraryRunners::release() {
  std::lock_guard<std::mutex> lock(mutex);
  conv.reset();
  solver.reset();
  fft.reset();
}

Status CudaDevice::library(const LibraryOp& op, const std::vector<uint64_t>& buffers) {
  Status status = Status::ok();
  if (const auto* fft = std::get_if<FftDesc>(&op)) {
    // An empty FFT has nothing to run: no reason to load cuFFT for it.
    if (fftIsEmpty(*fft) && validateFft(*fft).isOk()) return Status::ok();
    StatusOr<FftRunner*> runner = runnerOf(libraries_.fft, libraries_.mutex, *this);
    status = runner.isOk() ? (*runner)->run(*fft, buffers) : runner.status();
  } else if (const auto* conv = std::get_if<ConvDesc>(&op)) {
    StatusOr<ConvRunner*> runner = runnerOf(libraries_.conv, libraries_.mutex, *this);
    status = runner.isOk() ? (*runner)->run(*conv, buffers) : runner.status();
  } else {
    StatusOr<SolverRunner*> runner = runnerOf(libraries_.solver, libraries_.mutex, *this);
    status = runner.isOk() ? (*runner)->run(std::get<SolverDesc>(op), buffers)
                           : runner.status();
  }
  if (status.isOk()) return status;
  return status.withContext(libraryOpText(op) + " on " + info_.name);
}

Status CudaDevice::prepareLibrary(const LibraryOp& op) {
  const auto* conv = std::get_if<ConvDesc>(&op);
  if (conv == nullptr) return Status::ok();
  StatusOr<ConvRunner*> runner = runnerOf(libraries_.conv, libraries_.mutex, *this);
  Status status = runner.isOk() ? (*runner)->prepare(*conv) : runner.status();
  if (status.isOk()) return status;
  return status.withContext(libraryOpText(op) + " on " + info_.name);
}

}  // namespace jft::runtime::gpu
