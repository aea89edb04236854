// cuBLASLt loading and the GEMM runner.
//
// The column-major library sees our row-major D (m x n, ld d_ld) as D^T
// (n x m, same ld) and computes it as B^T A^T: its "A" is our B, its "B" our
// A. A row-major R x C matrix with leading dimension L is, to the library, a
// column-major C x R matrix with the same L, so no data moves; our transpose
// flags carry over unchanged (an operand stored transposed gets op T).
#include "runtime/gpu/cublaslt.h"

#include <algorithm>
#include <complex>
#include <cstring>
#include <functional>
#include <vector>

#include "support/enum_table.h"

namespace jft::runtime::gpu {
namespace {

// An older cuBLASLt lacks entry points of the 12 series; it is passed over.
StatusOr<CublasLt*> openCublasLt() {
  return openVendorLibrary<CublasLt>(
      "JFT_CUBLASLT_LIBRARY",
      {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"},
      "cuBLASLt 12 or newer", "the nvidia-cublas wheel");
}

// clang-format off
constexpr EnumMapping<GemmType, int> kCublasLtDataTypes[] = {
    {GemmType::kF16, kCudaR16F}, {GemmType::kBF16, kCudaR16BF},
    {GemmType::kF32, kCudaR32F}, {GemmType::kF64, kCudaR64F}, {GemmType::kC64, kCudaC32F},
    {GemmType::kC128, kCudaC64F}, {GemmType::kS8, kCudaR8I}, {GemmType::kS32, kCudaR32I},
};
// clang-format on

int dataType(GemmType type) {
  return mapOf(kCublasLtDataTypes, type, -1);
}

// clang-format off
constexpr EnumMapping<GemmCompute, int> kComputeTypes[] = {
    {GemmCompute::kF32, kCublasCompute32F},
    {GemmCompute::kTf32, kCublasCompute32FFastTf32},
    {GemmCompute::kF64, kCublasCompute64F}, {GemmCompute::kS32, kCublasCompute32I},
};
// clang-format on

int computeType(GemmCompute compute) {
  return mapOf(kComputeTypes, compute, -1);
}

// alpha and beta are passed in the scale type: the compute type's, complex
// when the data is.
// clang-format off
constexpr FlaggedMapping<GemmCompute, int> kScaleTypes[] = {  // real, complex
    {GemmCompute::kF32, kCudaR32F, kCudaC32F}, {GemmCompute::kTf32, kCudaR32F, kCudaC32F},
    {GemmCompute::kF64, kCudaR64F, kCudaC64F}, {GemmCompute::kS32, kCudaR32I, kCudaR32I},
};
// clang-format on

int scaleType(const GemmDesc& d) {
  const bool complex = d.d_type == GemmType::kC64 || d.d_type == GemmType::kC128;
  return mapOf(kScaleTypes, d.compute, complex, -1);
}

void encodeScalar(double value, int scale, unsigned char* out) {
  std::memset(out, 0, 16);
  if (scale == kCudaR32F || scale == kCudaC32F) {
    const float v = static_cast<float>(value);
    std::memcpy(out, &v, sizeof v);  // complex: imaginary part stays 0
  } else if (scale == kCudaR64F || scale == kCudaC64F) {
    std::memcpy(out, &value, sizeof value);
  } else {
    const int32_t v = static_cast<int32_t>(value);
    std::memcpy(out, &v, sizeof v);
  }
}

// clang-format off
constexpr FlaggedMapping<GemmEpilogue, uint32_t> kEpilogues[] = {  // without, with bias
    {GemmEpilogue::kNone, kEpilogueDefault, kEpilogueBias},
    {GemmEpilogue::kRelu, kEpilogueRelu, kEpilogueReluBias},
    {GemmEpilogue::kGelu, kEpilogueGelu, kEpilogueGeluBias},
};
// clang-format on

uint32_t epilogue(const GemmDesc& d) {
  return mapOf(kEpilogues, d.epilogue, d.bias, kEpilogueDefault);
}

// The largest power of two (up to the library's default of 256) dividing the
// address of every batch item, which the heuristic must be told.
uint32_t alignment(uint64_t address, int64_t batch, int64_t stride, GemmType type) {
  uint64_t bits = address | 256;
  if (batch > 1) bits |= static_cast<uint64_t>(stride * gemmTypeBytes(type));
  return static_cast<uint32_t>(bits & (~bits + 1));
}

template <typename T>
void mix(size_t& seed, const T& value) {
  seed ^= std::hash<T>()(value) + 0x9e3779b97f4a7c15ull + (seed << 6) + (seed >> 2);
}

}  // namespace

StatusOr<const CublasLt*> CublasLt::load() {
  return loadOnce(openCublasLt);
}

Status CublasLt::check(cublasStatus_t status, const std::string& what) const {
  if (status == kCublasSuccess) return Status::ok();
  const char* name = getStatusName != nullptr ? getStatusName(status) : nullptr;
  const char* text = getStatusString != nullptr ? getStatusString(status) : nullptr;
  std::string message = what + " failed: " + (name != nullptr ? name : "cuBLAS error") +
                        " (" + std::to_string(status) + ")" +
                        (text != nullptr ? std::string(": ") + text : "");
  if (status == kCublasNotSupported) return unimplemented(message);
  if (status == kCublasAllocFailed) return resourceExhausted(message);
  return internalError(message);
}

// The library objects for one description; destroyed with the runner.
struct GemmRunner::Plan {
  const CublasLt* lt = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  // The library's A (our B), its B (our A), and C = D.
  cublasLtMatrixLayout_t lib_a = nullptr, lib_b = nullptr, lib_d = nullptr;
  CublasLtMatmulAlgo algo{};
  alignas(16) unsigned char alpha[16]{}, beta[16]{};

  ~Plan() {
    if (lib_d != nullptr) lt->matrixLayoutDestroy(lib_d);
    if (lib_b != nullptr) lt->matrixLayoutDestroy(lib_b);
    if (lib_a != nullptr) lt->matrixLayoutDestroy(lib_a);
    if (op != nullptr) lt->matmulDescDestroy(op);
  }
};

size_t GemmRunner::KeyHash::operator()(const Key& key) const {
  const GemmDesc& d = key.desc;
  size_t seed = 0;
  for (const GemmOperand* op : {&d.a, &d.b}) {
    mix(seed, static_cast<int>(op->type));
    mix(seed, op->transpose);
    mix(seed, op->ld);
    mix(seed, op->batch_stride);
  }
  for (int64_t v : {d.d_ld, d.d_batch_stride, d.batch, d.m, d.n, d.k}) mix(seed, v);
  mix(seed, static_cast<int>(d.d_type));
  mix(seed, static_cast<int>(d.compute));
  mix(seed, d.alpha);
  mix(seed, d.beta);
  mix(seed, d.bias);
  mix(seed, static_cast<int>(d.epilogue));
  for (uint32_t a : {key.align_a, key.align_b, key.align_d}) mix(seed, a);
  return seed;
}

GemmRunner::GemmRunner(CudaDevice& device, const CublasLt& lt)
    : device_(device), lt_(lt) {}

StatusOr<std::unique_ptr<GemmRunner>> GemmRunner::create(CudaDevice& device) {
  JFT_ASSIGN_OR_RETURN(const CublasLt* lt, CublasLt::load());
  std::unique_ptr<GemmRunner> runner(new GemmRunner(device, *lt));
  JFT_RETURN_IF_ERROR(runner->device_.makeCurrent());
  JFT_RETURN_IF_ERROR(lt->check(lt->create(&runner->handle_), "cublasLtCreate"));
  JFT_ASSIGN_OR_RETURN(runner->workspace_, device.allocate(kWorkspaceBytes));
  return runner;
}

GemmRunner::~GemmRunner() {
  if (device_.makeCurrent().isOk()) {
    plans_.clear();
    if (handle_ != nullptr) lt_.destroy(handle_);
  }
  // Freed behind the products still queued on the stream.
  if (workspace_ != 0) device_.deallocate(workspace_, kWorkspaceBytes);
}

size_t GemmRunner::planCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return plans_.size();
}

StatusOr<std::unique_ptr<GemmRunner::Plan>> GemmRunner::makePlan(const Key& key) {
  const GemmDesc& d = key.desc;
  auto plan = std::make_unique<Plan>();
  plan->lt = &lt_;
  const std::string where = " for gemm (" + gemmText(d) + ")";
  auto check = [&](cublasStatus_t status, const char* what) {
    return lt_.check(status, what + where);
  };

  const int scale = scaleType(d);
  JFT_RETURN_IF_ERROR(
      check(lt_.matmulDescCreate(&plan->op, computeType(d.compute), scale),
            "cublasLtMatmulDescCreate"));
  const int32_t transA = d.b.transpose ? kCublasOpT : kCublasOpN;
  const int32_t transB = d.a.transpose ? kCublasOpT : kCublasOpN;
  const uint32_t ep = epilogue(d);
  JFT_RETURN_IF_ERROR(check(
      lt_.matmulDescSetAttribute(plan->op, kMatmulDescTransA, &transA, sizeof transA),
      "setting TRANSA"));
  JFT_RETURN_IF_ERROR(check(
      lt_.matmulDescSetAttribute(plan->op, kMatmulDescTransB, &transB, sizeof transB),
      "setting TRANSB"));
  JFT_RETURN_IF_ERROR(
      check(lt_.matmulDescSetAttribute(plan->op, kMatmulDescEpilogue, &ep, sizeof ep),
            "setting the epilogue"));

  // Stored row-major R x C becomes column-major C x R.
  auto layout = [&](cublasLtMatrixLayout_t* out, GemmType type, int64_t rows,
                    int64_t cols, int64_t ld, int64_t stride) -> Status {
    JFT_RETURN_IF_ERROR(check(lt_.matrixLayoutCreate(out, dataType(type), cols, rows, ld),
                              "cublasLtMatrixLayoutCreate"));
    if (d.batch == 1) return Status::ok();
    const int32_t count = static_cast<int32_t>(d.batch);
    JFT_RETURN_IF_ERROR(
        check(lt_.matrixLayoutSetAttribute(*out, kLayoutBatchCount, &count, sizeof count),
              "setting the batch count"));
    return check(lt_.matrixLayoutSetAttribute(*out, kLayoutStridedBatchOffset, &stride,
                                              sizeof stride),
                 "setting the batch stride");
  };
  JFT_RETURN_IF_ERROR(layout(&plan->lib_a, d.b.type, d.b.transpose ? d.n : d.k,
                             d.b.transpose ? d.k : d.n, d.b.ld, d.b.batch_stride));
  JFT_RETURN_IF_ERROR(layout(&plan->lib_b, d.a.type, d.a.transpose ? d.k : d.m,
                             d.a.transpose ? d.m : d.k, d.a.ld, d.a.batch_stride));
  JFT_RETURN_IF_ERROR(layout(&plan->lib_d, d.d_type, d.m, d.n, d.d_ld, d.d_batch_stride));

  cublasLtMatmulPreference_t pref = nullptr;
  JFT_RETURN_IF_ERROR(
      check(lt_.preferenceCreate(&pref), "cublasLtMatmulPreferenceCreate"));
  std::unique_ptr<CublasLtMatmulPreferenceOpaque,
                  cublasStatus_t (*)(cublasLtMatmulPreference_t)>
      prefGuard(pref, lt_.preferenceDestroy);
  const uint64_t workspace = kWorkspaceBytes;
  JFT_RETURN_IF_ERROR(check(lt_.preferenceSetAttribute(pref, kPrefMaxWorkspaceBytes,
                                                       &workspace, sizeof workspace),
                            "setting the workspace size"));
  // Library A is our B and vice versa; C and D share D's alignment.
  const std::pair<int, uint32_t> aligns[] = {{kPrefMinAlignmentABytes, key.align_b},
                                             {kPrefMinAlignmentBBytes, key.align_a},
                                             {kPrefMinAlignmentCBytes, key.align_d},
                                             {kPrefMinAlignmentDBytes, key.align_d}};
  for (const auto& [attr, value] : aligns)
    JFT_RETURN_IF_ERROR(
        check(lt_.preferenceSetAttribute(pref, attr, &value, sizeof value),
              "setting an alignment"));

  CublasLtHeuristicResult result{};
  int found = 0;
  JFT_RETURN_IF_ERROR(
      check(lt_.algoGetHeuristic(handle_, plan->op, plan->lib_a, plan->lib_b, plan->lib_d,
                                 plan->lib_d, pref, 1, &result, &found),
            "cublasLtMatmulAlgoGetHeuristic"));
  if (found == 0 || result.state != kCublasSuccess)
    return unimplemented(lt_.library_name + " has no algorithm" + where);
  plan->algo = result.algo;
  encodeScalar(d.alpha, scale, plan->alpha);
  encodeScalar(d.beta, scale, plan->beta);
  return plan;
}

Status GemmRunner::run(const GemmDesc& desc, const GemmBuffers& buffers) {
  JFT_RETURN_IF_ERROR(validateGemm(desc));
  if (buffers.a == 0 || buffers.b == 0 || buffers.d == 0 ||
      (desc.bias && buffers.bias == 0))
    return invalidArgument("gemm (" + gemmText(desc) + "): a buffer address is null");
  const Key key{desc, alignment(buffers.a, desc.batch, desc.a.batch_stride, desc.a.type),
                alignment(buffers.b, desc.batch, desc.b.batch_stride, desc.b.type),
                alignment(buffers.d, desc.batch, desc.d_batch_stride, desc.d_type)};
  // One lock for lookup and enqueue: the bias pointer lives in the cached
  // descriptor, and the workspace is shared by every product on the stream.
  std::lock_guard<std::mutex> lock(mutex_);
  JFT_RETURN_IF_ERROR(device_.makeCurrent());
  JFT_ASSIGN_OR_RETURN(const Plan* plan,
                       plans_.get(key, [this](const Key& k) { return makePlan(k); }));
  if (desc.bias) {
    const void* bias =
        reinterpret_cast<const void*>(static_cast<uintptr_t>(buffers.bias));
    JFT_RETURN_IF_ERROR(lt_.check(
        lt_.matmulDescSetAttribute(plan->op, kMatmulDescBiasPointer, &bias, sizeof bias),
        "setting the bias pointer"));
  }
  const cublasStatus_t status = lt_.matmul(
      handle_, plan->op, plan->alpha, devicePointer(buffers.b), plan->lib_a,
      devicePointer(buffers.a), plan->lib_b, plan->beta, devicePointer(buffers.d),
      plan->lib_d, devicePointer(buffers.d), plan->lib_d, &plan->algo,
      devicePointer(workspace_), kWorkspaceBytes, device_.stream());
  if (status == kCublasSuccess) return Status::ok();
  return lt_.check(status, "cublasLtMatmul for gemm (" + gemmText(desc) + ")");
}

}  // namespace jft::runtime::gpu
