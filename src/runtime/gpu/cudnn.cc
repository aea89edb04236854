// cuDNN loading and the convolution runner (graph API).
//
// Tensors get unique ids 1 (x), 2 (w) and 3 (y); the variant pack hands the
// library the pointers of those roles, whichever of them the operation reads
// or writes (runtime/conv.h maps the thunk's buffers to roles). alpha = 1,
// beta = 0: the result is written, never accumulated into.
#include "runtime/gpu/cudnn.h"

#include <algorithm>
#include <functional>

#include "runtime/gpu/cuda_device.h"
#include "runtime/gpu/driver.h"
#include "runtime/gpu/library_loader.h"
#include "support/enum_table.h"

namespace jft::runtime::gpu {
namespace {

constexpr int64_t kUidX = 1, kUidW = 2, kUidY = 3;
// A plan needing more workspace than this is passed over for the next one.
constexpr int64_t kMaxWorkspaceBytes = int64_t{4} << 30;

StatusOr<Cudnn*> openCudnn() {
  return openVendorLibrary<Cudnn>("JFT_CUDNN_LIBRARY",
                                  {"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so"},
                                  "cuDNN", "the nvidia-cudnn-cu12 wheel");
}

// clang-format off
constexpr EnumMapping<ConvElement, int> kCudnnDataTypes[] = {
    {ConvElement::kF16, kCudnnDataHalf}, {ConvElement::kBF16, kCudnnDataBfloat16},
    {ConvElement::kF32, kCudnnDataFloat}, {ConvElement::kF64, kCudnnDataDouble},
};
// clang-format on

int dataType(ConvElement element) {
  return mapOf(kCudnnDataTypes, element, kCudnnDataFloat);
}

// The largest power of two up to ConvRunner::kAlignment dividing every address.
uint64_t alignmentOf(const std::vector<uint64_t>& addresses) {
  uint64_t alignment = ConvRunner::kAlignment;
  for (uint64_t a : addresses)
    while (alignment > 1 && a % alignment != 0) alignment /= 2;
  return alignment;
}

}  // namespace

// One backend descriptor, destroyed with its owner. Not file-local:
// ConvRunner::Plan, a class with external linkage, holds some.
class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  ~CudnnDescriptor() {
    if (handle_ != nullptr) cudnn_->destroyDescriptor(handle_);
  }
  Status create(const Cudnn& cudnn, int type, const std::string& what) {
    cudnn_ = &cudnn;
    return cudnn.check(cudnn.createDescriptor(type, &handle_),
                       "cudnnBackendCreateDescriptor(" + what + ")");
  }
  cudnnBackendDescriptor_t get() const { return handle_; }
  cudnnBackendDescriptor_t* address() { return &handle_; }

 private:
  const Cudnn* cudnn_ = nullptr;
  cudnnBackendDescriptor_t handle_ = nullptr;
};

namespace {

// Sets one attribute; the error names the descriptor and the attribute.
Status set(const Cudnn& cudnn, const CudnnDescriptor& d, int name, int type,
           int64_t count, const void* values, const std::string& what) {
  return cudnn.check(
      cudnn.setAttribute(d.get(), name, type, count, values),
      "cudnnBackendSetAttribute(" + what + ", attribute " + std::to_string(name) + ")");
}

Status finalize(const Cudnn& cudnn, const CudnnDescriptor& d, const std::string& what) {
  return cudnn.check(cudnn.finalize(d.get()), "cudnnBackendFinalize(" + what + ")");
}

// Whether the engine of `config` computes as `desc` allows, from its
// numerical notes. When they cannot be read, only an f32 convolution that
// may not use TF32 passes the engine over (it cannot tell a TF32 one).
bool numericsAllowed(const Cudnn& cudnn, const ConvDesc& desc,
                     const CudnnDescriptor& config) {
  const bool unread = !(desc.element == ConvElement::kF32 && !desc.allow_tf32);
  CudnnDescriptor engine;
  if (!engine.create(cudnn, kCudnnEngineDescriptor, "engine").isOk()) return unread;
  int64_t count = 0;
  if (cudnn.getAttribute(config.get(), kCudnnAttrEngineCfgEngine,
                         kCudnnTypeBackendDescriptor, 1, &count,
                         engine.address()) != kCudnnSuccess)
    return unread;
  int notes[kCudnnNoteTypeCount] = {};
  count = 0;
  if (cudnn.getAttribute(engine.get(), kCudnnAttrEngineNumericalNote,
                         kCudnnTypeNumericalNote, kCudnnNoteTypeCount, &count,
                         notes) != kCudnnSuccess)
    return unread;
  for (int64_t i = 0; i < std::min<int64_t>(count, kCudnnNoteTypeCount); ++i) {
    if (notes[i] == kCudnnNoteDownConvertInputs ||
        notes[i] == kCudnnNoteReducedPrecisionReduction)
      return false;
    // On f32 data, tensor cores mean TF32 inputs.
    if (notes[i] == kCudnnNoteTensorCore && desc.element == ConvElement::kF32 &&
        !desc.allow_tf32)
      return false;
  }
  return true;
}

}  // namespace

StatusCode cudnnStatusCode(cudnnStatus_t status) {
  if (status == kCudnnSuccess) return StatusCode::kOk;
  if (status == kCudnnHostAllocationFailed || status == kCudnnDeviceAllocationFailed)
    return StatusCode::kResourceExhausted;
  switch (status / 1000) {
    case 2:
      return StatusCode::kInvalidArgument;
    case 3:
      return StatusCode::kUnimplemented;
    default:
      return StatusCode::kInternal;
  }
}

StatusOr<const Cudnn*> Cudnn::load() {
  return loadOnce(openCudnn);
}

Status Cudnn::check(cudnnStatus_t status, const std::string& what) const {
  if (status == kCudnnSuccess) return Status::ok();
  const char* text = getErrorString != nullptr ? getErrorString(status) : nullptr;
  return Status(cudnnStatusCode(status),
                what + " failed: " + (text != nullptr ? text : "cuDNN error") + " (" +
                    std::to_string(status) + ")");
}

// A finalized execution plan and the descriptors it was built from (kept
// alive with it).
struct ConvRunner::Plan {
  std::vector<std::unique_ptr<CudnnDescriptor>> parts;
  std::unique_ptr<CudnnDescriptor> plan;
  int64_t workspace_bytes = 0;
};

size_t ConvRunner::KeyHash::operator()(const Key& key) const {
  const ConvDesc& d = key.desc;
  size_t seed = static_cast<size_t>(d.kind) * 31 + static_cast<size_t>(d.element);
  seed = seed * 4 + (d.allow_tf32 ? 2 : 0) + (d.flip ? 1 : 0);
  auto mix = [&seed](const std::vector<int64_t>& values) {
    for (int64_t v : values) seed = seed * 1000003u ^ std::hash<int64_t>()(v);
  };
  for (const ConvTensor* t : {&d.x, &d.w, &d.y}) {
    mix(t->dims);
    mix(t->strides);
  }
  mix(d.strides);
  mix(d.pre_padding);
  mix(d.post_padding);
  mix(d.dilations);
  return seed * 1000003u ^ std::hash<uint64_t>()(key.alignment);
}

ConvRunner::ConvRunner(CudaDevice& device, const Cudnn& cudnn)
    : device_(device), cudnn_(cudnn) {}

StatusOr<std::unique_ptr<ConvRunner>> ConvRunner::create(CudaDevice& device) {
  JFT_ASSIGN_OR_RETURN(const Cudnn* cudnn, Cudnn::load());
  std::unique_ptr<ConvRunner> runner(new ConvRunner(device, *cudnn));
  JFT_RETURN_IF_ERROR(runner->device_.makeCurrent());
  JFT_RETURN_IF_ERROR(cudnn->check(cudnn->create(&runner->handle_), "cudnnCreate"));
  JFT_RETURN_IF_ERROR(
      cudnn->check(cudnn->setStream(runner->handle_, device.stream()), "cudnnSetStream"));
  return runner;
}

ConvRunner::~ConvRunner() {
  if (!device_.makeCurrent().isOk()) return;
  plans_.clear();
  if (workspace_ != 0) device_.deallocate(workspace_, workspace_bytes_);
  if (handle_ != nullptr) cudnn_.destroy(handle_);
}

size_t ConvRunner::planCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return plans_.size();
}

StatusOr<std::unique_ptr<ConvRunner::Plan>> ConvRunner::makePlan(const Key& key) {
  const ConvDesc& d = key.desc;
  const std::string where = " for " + convText(d);
  auto plan = std::make_unique<Plan>();
  auto part = [&](int type, const std::string& what) -> StatusOr<CudnnDescriptor*> {
    plan->parts.push_back(std::make_unique<CudnnDescriptor>());
    JFT_RETURN_IF_ERROR(plan->parts.back()->create(cudnn_, type, what + where));
    return plan->parts.back().get();
  };
  const int type = dataType(d.element);
  const int64_t alignment = static_cast<int64_t>(key.alignment);
  auto tensor = [&](const ConvTensor& t, int64_t uid,
                    const std::string& what) -> StatusOr<CudnnDescriptor*> {
    JFT_ASSIGN_OR_RETURN(CudnnDescriptor * desc, part(kCudnnTensorDescriptor, what));
    const std::string name = "tensor " + what + where;
    const int64_t rank = static_cast<int64_t>(t.dims.size());
    JFT_RETURN_IF_ERROR(
        set(cudnn_, *desc, kCudnnAttrTensorDataType, kCudnnTypeDataType, 1, &type, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *desc, kCudnnAttrTensorDimensions, kCudnnTypeInt64,
                            rank, t.dims.data(), name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *desc, kCudnnAttrTensorStrides, kCudnnTypeInt64, rank,
                            t.strides.data(), name));
    JFT_RETURN_IF_ERROR(
        set(cudnn_, *desc, kCudnnAttrTensorUniqueId, kCudnnTypeInt64, 1, &uid, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *desc, kCudnnAttrTensorByteAlignment, kCudnnTypeInt64,
                            1, &alignment, name));
    JFT_RETURN_IF_ERROR(finalize(cudnn_, *desc, name));
    return desc;
  };
  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * x, tensor(d.x, kUidX, "x"));
  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * w, tensor(d.w, kUidW, "w"));
  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * y, tensor(d.y, kUidY, "y"));

  // The convolution's parameters.
  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * conv,
                       part(kCudnnConvolutionDescriptor, "convolution"));
  {
    const std::string name = "convolution" + where;
    const int compute =
        d.element == ConvElement::kF64 ? kCudnnDataDouble : kCudnnDataFloat;
    const int mode = d.flip ? kCudnnConvolution : kCudnnCrossCorrelation;
    const int64_t spatial = static_cast<int64_t>(d.strides.size());
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvCompType, kCudnnTypeDataType, 1,
                            &compute, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvMode, kCudnnTypeConvolutionMode,
                            1, &mode, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvSpatialDims, kCudnnTypeInt64, 1,
                            &spatial, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvDilations, kCudnnTypeInt64,
                            spatial, d.dilations.data(), name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvFilterStrides, kCudnnTypeInt64,
                            spatial, d.strides.data(), name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvPrePaddings, kCudnnTypeInt64,
                            spatial, d.pre_padding.data(), name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *conv, kCudnnAttrConvPostPaddings, kCudnnTypeInt64,
                            spatial, d.post_padding.data(), name));
    JFT_RETURN_IF_ERROR(finalize(cudnn_, *conv, name));
  }

  // The operation: its descriptor type and attributes by kind.
  struct OpAttrs {
    int type, alpha, beta, conv, w, x, y;  // x/y: the tensors in those roles
  };
  OpAttrs a{};
  switch (d.kind) {
    case ConvKind::kForward:
      a = {kCudnnOpConvForwardDescriptor, kCudnnAttrOpConvForwardAlpha,
           kCudnnAttrOpConvForwardBeta,   kCudnnAttrOpConvForwardConvDesc,
           kCudnnAttrOpConvForwardW,      kCudnnAttrOpConvForwardX,
           kCudnnAttrOpConvForwardY};
      break;
    case ConvKind::kBackwardData:
      a = {kCudnnOpConvBackwardDataDescriptor, kCudnnAttrOpConvBwdDataAlpha,
           kCudnnAttrOpConvBwdDataBeta,        kCudnnAttrOpConvBwdDataConvDesc,
           kCudnnAttrOpConvBwdDataW,           kCudnnAttrOpConvBwdDataDx,
           kCudnnAttrOpConvBwdDataDy};
      break;
    case ConvKind::kBackwardFilter:
      a = {kCudnnOpConvBackwardFilterDescriptor, kCudnnAttrOpConvBwdFilterAlpha,
           kCudnnAttrOpConvBwdFilterBeta,        kCudnnAttrOpConvBwdFilterConvDesc,
           kCudnnAttrOpConvBwdFilterDw,          kCudnnAttrOpConvBwdFilterX,
           kCudnnAttrOpConvBwdFilterDy};
      break;
  }
  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * op, part(a.type, "operation"));
  {
    const std::string name = "operation" + where;
    const double alpha64 = 1.0, beta64 = 0.0;
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const bool f64 = d.element == ConvElement::kF64;
    const int scalar = f64 ? kCudnnTypeDouble : kCudnnTypeFloat;
    const void* alpha = f64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = f64 ? static_cast<const void*>(&beta64) : &beta32;
    JFT_RETURN_IF_ERROR(set(cudnn_, *op, a.alpha, scalar, 1, alpha, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *op, a.beta, scalar, 1, beta, name));
    for (auto [attr, desc] : {std::pair{a.conv, conv}, std::pair{a.w, w},
                              std::pair{a.x, x}, std::pair{a.y, y}}) {
      cudnnBackendDescriptor_t value = desc->get();
      JFT_RETURN_IF_ERROR(
          set(cudnn_, *op, attr, kCudnnTypeBackendDescriptor, 1, &value, name));
    }
    JFT_RETURN_IF_ERROR(finalize(cudnn_, *op, name));
  }

  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * graph,
                       part(kCudnnOperationGraphDescriptor, "operation graph"));
  {
    const std::string name = "operation graph" + where;
    cudnnBackendDescriptor_t ops = op->get();
    JFT_RETURN_IF_ERROR(set(cudnn_, *graph, kCudnnAttrOperationGraphOps,
                            kCudnnTypeBackendDescriptor, 1, &ops, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *graph, kCudnnAttrOperationGraphHandle,
                            kCudnnTypeHandle, 1, &handle_, name));
    JFT_RETURN_IF_ERROR(finalize(cudnn_, *graph, name));
  }

  JFT_ASSIGN_OR_RETURN(CudnnDescriptor * heuristics,
                       part(kCudnnEngineHeurDescriptor, "engine heuristics"));
  std::vector<std::unique_ptr<CudnnDescriptor>> configs;
  {
    const std::string name = "engine heuristics" + where;
    cudnnBackendDescriptor_t g = graph->get();
    const int mode = kCudnnHeurModeA;
    JFT_RETURN_IF_ERROR(set(cudnn_, *heuristics, kCudnnAttrEngineHeurOperationGraph,
                            kCudnnTypeBackendDescriptor, 1, &g, name));
    JFT_RETURN_IF_ERROR(set(cudnn_, *heuristics, kCudnnAttrEngineHeurMode,
                            kCudnnTypeHeurMode, 1, &mode, name));
    JFT_RETURN_IF_ERROR(finalize(cudnn_, *heuristics, name));
    int64_t count = 0;
    JFT_RETURN_IF_ERROR(cudnn_.check(
        cudnn_.getAttribute(heuristics->get(), kCudnnAttrEngineHeurResults,
                            kCudnnTypeBackendDescriptor, 0, &count, nullptr),
        "cudnnBackendGetAttribute(engine heuristics results count" + where + ")"));
    std::vector<cudnnBackendDescriptor_t> handles;
    for (int64_t i = 0; i < count; ++i) {
      configs.push_back(std::make_unique<CudnnDescriptor>());
      JFT_RETURN_IF_ERROR(configs.back()->create(cudnn_, kCudnnEngineCfgDescriptor,
                                                 "engine config" + where));
      handles.push_back(configs.back()->get());
    }
    int64_t returned = 0;
    if (count > 0)
      JFT_RETURN_IF_ERROR(cudnn_.check(
          cudnn_.getAttribute(heuristics->get(), kCudnnAttrEngineHeurResults,
                              kCudnnTypeBackendDescriptor, count, &returned,
                              handles.data()),
          "cudnnBackendGetAttribute(engine heuristics results" + where + ")"));
    configs.resize(static_cast<size_t>(std::clamp<int64_t>(returned, 0, count)));
  }

  // The first configuration whose numerics are allowed and whose plan
  // finalizes within the workspace bound.
  std::string passed;
  for (size_t i = 0; i < configs.size(); ++i) {
    const std::string which = "engine config " + std::to_string(i);
    if (!numericsAllowed(cudnn_, d, *configs[i])) {
      passed += "\n  " + which + ": numerics not allowed";
      continue;
    }
    auto execution = std::make_unique<CudnnDescriptor>();
    Status made =
        execution->create(cudnn_, kCudnnExecutionPlanDescriptor, "plan" + where);
    cudnnBackendDescriptor_t config = configs[i]->get();
    if (made.isOk())
      made = set(cudnn_, *execution, kCudnnAttrExecutionPlanHandle, kCudnnTypeHandle, 1,
                 &handle_, "plan" + where);
    if (made.isOk())
      made = set(cudnn_, *execution, kCudnnAttrExecutionPlanEngineConfig,
                 kCudnnTypeBackendDescriptor, 1, &config, "plan" + where);
    if (made.isOk()) made = finalize(cudnn_, *execution, "plan" + where);
    int64_t workspace = 0, count = 0;
    if (made.isOk())
      made = cudnn_.check(
          cudnn_.getAttribute(execution->get(), kCudnnAttrExecutionPlanWorkspaceSize,
                              kCudnnTypeInt64, 1, &count, &workspace),
          "cudnnBackendGetAttribute(plan workspace size" + where + ")");
    if (made.isOk() && (workspace < 0 || workspace > kMaxWorkspaceBytes))
      made = resourceExhausted("workspace of " + std::to_string(workspace) + " bytes");
    if (!made.isOk()) {
      passed += "\n  " + which + ": " + made.message();
      continue;
    }
    // Configurations keep references to the graph only; the plan stands alone
    // once finalized, but its parts are kept for the plan's lifetime anyway.
    for (auto& c : configs) plan->parts.push_back(std::move(c));
    plan->plan = std::move(execution);
    plan->workspace_bytes = workspace;
    return plan;
  }
  return unimplemented(
      "cuDNN has no engine for " + convText(d) + " (" + std::to_string(configs.size()) +
      " configurations from heuristics" + (passed.empty() ? ")" : "):" + passed));
}

StatusOr<const ConvRunner::Plan*> ConvRunner::planFor(const Key& key) {
  if (auto it = refused_.find(key); it != refused_.end()) return it->second;
  StatusOr<const Plan*> plan =
      plans_.get(key, [this](const Key& k) { return makePlan(k); });
  if (!plan.isOk() && plan.status().code() == StatusCode::kUnimplemented)
    refused_.emplace(key, plan.status());
  return plan;
}

Status ConvRunner::growWorkspace(uint64_t bytes) {
  if (bytes <= workspace_bytes_) return Status::ok();
  // Stream-ordered: work queued on the old workspace finishes before it is
  // reused, and everything after this point uses the new one.
  JFT_ASSIGN_OR_RETURN(uint64_t grown, device_.allocate(bytes));
  if (workspace_ != 0) device_.deallocate(workspace_, workspace_bytes_);
  workspace_ = grown;
  workspace_bytes_ = bytes;
  return Status::ok();
}

Status ConvRunner::prepare(const ConvDesc& desc) {
  JFT_RETURN_IF_ERROR(validateConv(desc));
  std::lock_guard<std::mutex> lock(mutex_);
  JFT_RETURN_IF_ERROR(device_.makeCurrent());
  return planFor(Key{desc, kAlignment}).status();
}

Status ConvRunner::run(const ConvDesc& desc, const std::vector<uint64_t>& buffers) {
  JFT_RETURN_IF_ERROR(validateConv(desc));
  if (buffers.size() != kConvBufferCount)
    return invalidArgument(convText(desc) + " takes 3 buffers, got " +
                           std::to_string(buffers.size()));
  for (uint64_t address : buffers)
    if (address == 0)
      return invalidArgument(convText(desc) + ": a buffer address is null");

  std::lock_guard<std::mutex> lock(mutex_);
  JFT_RETURN_IF_ERROR(device_.makeCurrent());
  JFT_ASSIGN_OR_RETURN(const Plan* plan, planFor(Key{desc, alignmentOf(buffers)}));
  JFT_RETURN_IF_ERROR(growWorkspace(static_cast<uint64_t>(plan->workspace_bytes)));

  // Pointers by role: the thunk lists lhs, rhs, result (runtime/conv.h).
  uint64_t x = 0, w = 0, y = 0;
  switch (desc.kind) {
    case ConvKind::kForward:
      x = buffers[0], w = buffers[1], y = buffers[2];
      break;
    case ConvKind::kBackwardData:
      y = buffers[0], w = buffers[1], x = buffers[2];
      break;
    case ConvKind::kBackwardFilter:
      x = buffers[0], y = buffers[1], w = buffers[2];
      break;
  }
  const std::string where = " for " + convText(desc);
  CudnnDescriptor pack;
  JFT_RETURN_IF_ERROR(pack.create(cudnn_, kCudnnVariantPackDescriptor, "variant pack"));
  const int64_t uids[3] = {kUidX, kUidW, kUidY};
  void* pointers[3] = {devicePointer(x), devicePointer(w), devicePointer(y)};
  void* workspace = plan->workspace_bytes > 0 ? devicePointer(workspace_) : nullptr;
  const std::string name = "variant pack" + where;
  JFT_RETURN_IF_ERROR(
      set(cudnn_, pack, kCudnnAttrVariantPackUniqueIds, kCudnnTypeInt64, 3, uids, name));
  JFT_RETURN_IF_ERROR(set(cudnn_, pack, kCudnnAttrVariantPackDataPointers,
                          kCudnnTypeVoidPtr, 3, pointers, name));
  JFT_RETURN_IF_ERROR(set(cudnn_, pack, kCudnnAttrVariantPackWorkspace, kCudnnTypeVoidPtr,
                          1, &workspace, name));
  JFT_RETURN_IF_ERROR(finalize(cudnn_, pack, name));
  return cudnn_.check(cudnn_.execute(handle_, plan->plan->get(), pack.get()),
                      "cudnnBackendExecute" + where);
}

}  // namespace jft::runtime::gpu
