// cuFFT loading and the FFT runner.
//
// Layout handed to the library: rank = lengths.size(), n = lengths, the
// input and output items dense (inembed / onembed are the item's input and
// output dims, stride 1, distance = the item's element count), `batch` items
// one after another: exactly the row-major arrays of runtime/fft.h.
#include "runtime/gpu/cufft.h"

#include <functional>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"
#include "runtime/gpu/library_loader.h"
#include "support/enum_table.h"

namespace jft::runtime::gpu {
namespace {

StatusOr<Cufft*> openCufft() {
  return openVendorLibrary<Cufft>("JFT_CUFFT_LIBRARY",
                                  {"libcufft.so.12", "libcufft.so.11", "libcufft.so"},
                                  "cuFFT", "the nvidia-cufft wheel");
}

// clang-format off
constexpr EnumName<cufftResult> kCufftResultNames[] = {
    {kCufftSuccess, "CUFFT_SUCCESS"}, {kCufftInvalidPlan, "CUFFT_INVALID_PLAN"},
    {kCufftAllocFailed, "CUFFT_ALLOC_FAILED"}, {kCufftInvalidType, "CUFFT_INVALID_TYPE"},
    {kCufftInvalidValue, "CUFFT_INVALID_VALUE"},
    {kCufftInternalError, "CUFFT_INTERNAL_ERROR"},
    {kCufftExecFailed, "CUFFT_EXEC_FAILED"}, {kCufftSetupFailed, "CUFFT_SETUP_FAILED"},
    {kCufftInvalidSize, "CUFFT_INVALID_SIZE"},
    {kCufftUnalignedData, "CUFFT_UNALIGNED_DATA"},
    {kCufftInvalidDevice, "CUFFT_INVALID_DEVICE"},
    {kCufftNoWorkspace, "CUFFT_NO_WORKSPACE"},
    {kCufftNotImplemented, "CUFFT_NOT_IMPLEMENTED"},
    {kCufftNotSupported, "CUFFT_NOT_SUPPORTED"},
};
// clang-format on

const char* cufftResultName(cufftResult result) {
  return nameOf(kCufftResultNames, result, "cuFFT error");
}

// clang-format off
constexpr FlaggedMapping<FftKind, cufftType> kPlanTypes[] = {  // f32, f64
    {FftKind::kFft, kCufftC2C, kCufftZ2Z}, {FftKind::kIfft, kCufftC2C, kCufftZ2Z},
    {FftKind::kRfft, kCufftR2C, kCufftD2Z}, {FftKind::kIrfft, kCufftC2R, kCufftZ2D},
};
// clang-format on

cufftType planType(const FftDesc& d) {
  return mapOf(kPlanTypes, d.kind, d.f64, kCufftC2C);
}

long long product(const std::vector<long long>& dims) {
  long long p = 1;
  for (long long d : dims) p *= d;
  return p;
}

}  // namespace

StatusOr<const Cufft*> Cufft::load() {
  return loadOnce(openCufft);
}

Status Cufft::check(cufftResult result, const std::string& what) {
  if (result == kCufftSuccess) return Status::ok();
  std::string message =
      what + " failed: " + cufftResultName(result) + " (" + std::to_string(result) + ")";
  if (result == kCufftAllocFailed) return resourceExhausted(message);
  if (result == kCufftInvalidSize || result == kCufftNotSupported ||
      result == kCufftNotImplemented)
    return unimplemented(message);
  return internalError(message);
}

// One cuFFT plan; destroyed with the runner.
struct FftRunner::Plan {
  const Cufft* cufft = nullptr;
  cufftHandle handle = 0;
  bool created = false;

  ~Plan() {
    if (created) cufft->destroy(handle);
  }
};

size_t FftRunner::KeyHash::operator()(const FftDesc& d) const {
  size_t seed = std::hash<int>()(static_cast<int>(d.kind) * 2 + (d.f64 ? 1 : 0));
  for (int64_t v : d.lengths) seed = seed * 1000003u ^ std::hash<int64_t>()(v);
  return seed * 1000003u ^ std::hash<int64_t>()(d.batch);
}

FftRunner::FftRunner(CudaDevice& device, const Cufft& cufft)
    : device_(device), cufft_(cufft) {}

StatusOr<std::unique_ptr<FftRunner>> FftRunner::create(CudaDevice& device) {
  JFT_ASSIGN_OR_RETURN(const Cufft* cufft, Cufft::load());
  std::unique_ptr<FftRunner> runner(new FftRunner(device, *cufft));
  JFT_ASSIGN_OR_RETURN(runner->scale_, FftScaleKernels::load(device));
  return runner;
}

FftRunner::~FftRunner() {
  // cufftDestroy frees the plan's work area behind the work queued with it.
  if (device_.makeCurrent().isOk()) plans_.clear();
}

size_t FftRunner::planCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return plans_.size();
}

StatusOr<std::unique_ptr<FftRunner::Plan>> FftRunner::makePlan(const FftDesc& d) {
  const std::string where = " for " + fftText(d);
  auto plan = std::make_unique<Plan>();
  plan->cufft = &cufft_;
  JFT_RETURN_IF_ERROR(Cufft::check(cufft_.create(&plan->handle), "cufftCreate" + where));
  plan->created = true;
  std::vector<long long> n(d.lengths.begin(), d.lengths.end());
  const std::vector<int64_t> in = fftInputDims(d), out = fftOutputDims(d);
  std::vector<long long> inembed(in.begin(), in.end()), onembed(out.begin(), out.end());
  size_t workBytes = 0;
  JFT_RETURN_IF_ERROR(Cufft::check(
      cufft_.makePlanMany64(plan->handle, static_cast<int>(n.size()), n.data(),
                            inembed.data(), 1, product(inembed), onembed.data(), 1,
                            product(onembed), planType(d), d.batch, &workBytes),
      "cufftMakePlanMany64" + where));
  JFT_RETURN_IF_ERROR(Cufft::check(cufft_.setStream(plan->handle, device_.stream()),
                                   "cufftSetStream" + where));
  return plan;
}

Status FftRunner::execute(const FftDesc& d, const Plan& plan, uint64_t input,
                          uint64_t output) {
  void* x = devicePointer(input);
  void* y = devicePointer(output);
  const bool inverse = d.kind == FftKind::kIfft;
  const int direction = inverse ? kCufftInverse : kCufftForward;
  switch (d.kind) {
    case FftKind::kFft:
    case FftKind::kIfft:
      if (d.f64)
        return Cufft::check(cufft_.execZ2Z(plan.handle, x, y, direction), "cufftExecZ2Z");
      return Cufft::check(cufft_.execC2C(plan.handle, x, y, direction), "cufftExecC2C");
    case FftKind::kRfft:
      if (d.f64) return Cufft::check(cufft_.execD2Z(plan.handle, x, y), "cufftExecD2Z");
      return Cufft::check(cufft_.execR2C(plan.handle, x, y), "cufftExecR2C");
    case FftKind::kIrfft:
      if (d.f64) return Cufft::check(cufft_.execZ2D(plan.handle, x, y), "cufftExecZ2D");
      return Cufft::check(cufft_.execC2R(plan.handle, x, y), "cufftExecC2R");
  }
  return internalError("unknown fft kind");
}

Status FftRunner::run(const FftDesc& desc, const std::vector<uint64_t>& buffers) {
  JFT_RETURN_IF_ERROR(validateFft(desc));
  if (buffers.size() != fftBufferCount(desc))
    return invalidArgument(fftText(desc) + " takes " +
                           std::to_string(fftBufferCount(desc)) + " buffers, got " +
                           std::to_string(buffers.size()));
  if (fftIsEmpty(desc)) return Status::ok();
  for (uint64_t address : buffers)
    if (address == 0)
      return invalidArgument(fftText(desc) + ": a buffer address is null");

  std::lock_guard<std::mutex> lock(mutex_);
  JFT_RETURN_IF_ERROR(device_.makeCurrent());
  JFT_ASSIGN_OR_RETURN(const Plan* plan, plans_.get(desc, [this](const FftDesc& d) {
    return makePlan(d);
  }));
  uint64_t input = buffers[0];
  if (desc.kind == FftKind::kIrfft) {
    // cuFFT's complex-to-real transform overwrites its input: give it a copy.
    JFT_RETURN_IF_ERROR(device_.copyOnDevice(buffers[2], input, fftInputBytes(desc)));
    input = buffers[2];
  }
  JFT_RETURN_IF_ERROR(execute(desc, *plan, input, buffers[1]));
  const double scale = fftScale(desc);
  if (scale == 1.0) return Status::ok();
  const uint64_t reals = fftOutputBytes(desc) / (desc.f64 ? 8 : 4);
  return scale_->scale(buffers[1], reals, scale, desc.f64);
}

}  // namespace jft::runtime::gpu
