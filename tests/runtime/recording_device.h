// RecordingDevice: a runtime::Device in host memory that records every
// operation, for CPU tests of the executable. "Device" addresses are host
// pointers, copies and fills really move bytes, and a kernel runs a host
// function registered under its name, so tests check data, not just calls.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace jft::runtime::testing {

// A buffer's elements as a kernel body sees them: this device's addresses are
// host pointers.
inline float* floats(uint64_t address) {
  return reinterpret_cast<float*>(address);
}
inline int32_t* ints(uint64_t address) {
  return reinterpret_cast<int32_t*>(address);
}

struct RecordedOp {
  enum class Kind {
    kLoad,
    kUnload,
    kLaunch,
    kCopy,
    kFill,
    kUpload,
    kEvent,
    kFree,
    kGemm,
    kLibrary,      // params: the buffers' addresses
    kDownload,     // copyToHost (src = device address)
    kGraphCreate,  // bytes: its launches
    kGraphUpdate,  // kernel, params: the launch's new values; bytes: its index
    kGraphLaunch   // bytes: its launches (each then recorded as kLaunch)
  };
  Kind kind;
  std::string kernel;            // kLoad, kUnload, kLaunch
  LaunchDims dims;               // kLaunch
  std::vector<uint64_t> params;  // kLaunch: each parameter read as 8 bytes
  uint64_t dst = 0, src = 0, bytes = 0;
  uint8_t value = 0;  // kFill
  // kGemm: the description and its buffers (params = {a, b, d, bias}).
  GemmDesc gemm;
  std::string library;  // kLibrary: the description's text
};

class RecordingDevice final : public Device {
 public:
  // A host stand-in for a kernel: parameter values, launch dimensions.
  using KernelBody = std::function<void(const std::vector<uint64_t>&, const LaunchDims&)>;

  explicit RecordingDevice(uint64_t limit = uint64_t{1} << 30, int warp_size = 32)
      : limit_(limit) {
    info_.name = "Recording GPU";
    info_.vendor = "Test";
    info_.warp_size = warp_size;
  }
  ~RecordingDevice() override {
    for (auto& [memory, bytes] : sizes_) std::free(memory);
  }

  const DeviceInfo& info() const override { return info_; }

  StatusOr<uint64_t> allocate(uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes == 0) return uint64_t{0};
    if (stats_.bytes_in_use + static_cast<int64_t>(bytes) > static_cast<int64_t>(limit_))
      return resourceExhausted("recording device is full");
    void* memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
    std::memset(memory, 0xAB, bytes);  // garbage, as fresh device memory would be
    sizes_[memory] = bytes;
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    stats_.num_allocs += 1;
    return reinterpret_cast<uint64_t>(memory);
  }
  void deallocate(uint64_t address, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (address == 0) return;
    void* memory = reinterpret_cast<void*>(address);
    auto it = sizes_.find(memory);
    if (it == sizes_.end() || it->second != bytes) {
      ++badFrees_;
      return;
    }
    sizes_.erase(it);
    stats_.bytes_in_use -= static_cast<int64_t>(bytes);
    ops_.push_back({RecordedOp::Kind::kFree, "", {}, {}, address, 0, bytes});
    std::free(memory);
  }

  StatusOr<EventPtr> copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                  bool) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    ops_.push_back({RecordedOp::Kind::kUpload, "", {}, {}, dst, 0, bytes});
    return Event::ready();
  }
  StatusOr<EventPtr> copyToHost(void* dst, uint64_t src, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    ops_.push_back({RecordedOp::Kind::kDownload, "", {}, {}, 0, src, bytes});
    return Event::ready();
  }
  StatusOr<EventPtr> copyFromDevice(uint64_t, Device&, uint64_t, uint64_t) override {
    return unimplemented("not used");
  }
  StatusOr<void*> allocatePinned(uint64_t) override { return unimplemented("not used"); }
  void deallocatePinned(void*) override {}
  StatusOr<EventPtr> copyDeviceToPinned(void*, uint64_t, uint64_t) override {
    return unimplemented("not used");
  }
  StatusOr<EventPtr> copyPinnedToDevice(uint64_t, const void*, uint64_t) override {
    return unimplemented("not used");
  }
  MemoryStats memoryStats() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void resetPeakMemory() override {}

  StatusOr<KernelHandle> loadKernel(const KernelImage& image) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failLoad_.count(image.name)) return internalError("cannot load " + image.name);
    ops_.push_back({RecordedOp::Kind::kLoad, image.name});
    auto* loaded = new KernelImage(image);
    loaded_.insert(loaded);
    return static_cast<KernelHandle>(loaded);
  }
  void unloadKernel(KernelHandle kernel) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto* image = static_cast<const KernelImage*>(kernel);
    if (!loaded_.erase(image)) {
      ++badFrees_;
      return;
    }
    ops_.push_back({RecordedOp::Kind::kUnload, image->name});
    delete image;
  }
  Status launchKernel(KernelHandle kernel, const LaunchDims& dims,
                      void** params) override {
    KernelBody body;
    std::vector<uint64_t> values;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto* image = static_cast<const KernelImage*>(kernel);
      if (!loaded_.count(image)) return internalError("launch of an unloaded kernel");
      if (failLaunch_.count(image->name))
        return internalError(
            "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1), kernel '" +
            image->name + "'");
      for (size_t i = 0; i < image->params.size(); ++i) {
        uint64_t value = 0;
        std::memcpy(&value, params[i], sizeof(value));
        values.push_back(value);
      }
      ops_.push_back({RecordedOp::Kind::kLaunch, image->name, dims, values});
      auto it = bodies_.find(image->name);
      if (it != bodies_.end()) body = it->second;
    }
    if (body) body(values, dims);
    return Status::ok();
  }
  // Launch graphs, when enableGraphs() asked for them: a graph keeps each
  // launch's kernel, dimensions and values, and its replay runs them in order.
  int launchGraphsFrom() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return graphsFrom_;
  }
  bool graphsRecordLibraryCalls() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return graphsLibrary_;
  }
  // A library call in a graph is recorded as CUDA's stream capture records
  // it: the gemms it enqueues, with the arguments they have then, replayed
  // as they were.
  StatusOr<GraphHandle> createLaunchGraph(
      std::span<const GraphLaunch> launches) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (graphsFrom_ == 0 || failGraphs_) return unimplemented("no graphs here");
    }
    auto graph = std::make_unique<Graph>();
    for (const GraphLaunch& launch : launches) {
      Graph::Launch item{launch.kernel, launch.dims, {}, {}};
      if (launch.enqueue) {
        JFT_ASSIGN_OR_RETURN(item.gemms, capture(launch));
      } else {
        item.values = valuesOf(launch);
      }
      graph->launches.push_back(std::move(item));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    ops_.push_back({RecordedOp::Kind::kGraphCreate, "", {}, {}, 0, 0, launches.size()});
    graphs_.push_back(std::move(graph));
    return static_cast<GraphHandle>(graphs_.back().get());
  }
  Status updateGraphLaunch(GraphHandle handle, size_t index,
                           const GraphLaunch& launch) override {
    auto* graph = static_cast<Graph*>(handle);
    std::vector<CapturedGemm> gemms;
    if (launch.enqueue) {
      JFT_ASSIGN_OR_RETURN(gemms, capture(launch));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    if (index >= graph->launches.size()) return invalidArgument("no such launch");
    Graph::Launch& item = graph->launches[index];
    if (launch.enqueue) {
      item.gemms = std::move(gemms);
      ops_.push_back(
          {RecordedOp::Kind::kGraphUpdate, "library call", {}, {}, 0, 0, index});
      return Status::ok();
    }
    item.values = valuesOf(launch);
    ops_.push_back({RecordedOp::Kind::kGraphUpdate,
                    nameOf(launch.kernel),
                    {},
                    item.values,
                    0,
                    0,
                    index});
    return Status::ok();
  }
  Status launchGraph(GraphHandle handle) override {
    std::vector<Graph::Launch> launches;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      launches = static_cast<Graph*>(handle)->launches;
      ops_.push_back({RecordedOp::Kind::kGraphLaunch, "", {}, {}, 0, 0, launches.size()});
    }
    for (Graph::Launch& launch : launches) {
      for (const CapturedGemm& g : launch.gemms)
        JFT_RETURN_IF_ERROR(gemm(g.desc, g.a, g.b, g.d, g.bias));
      if (launch.kernel == nullptr) continue;
      std::vector<void*> pointers;
      for (uint64_t& value : launch.values) pointers.push_back(&value);
      JFT_RETURN_IF_ERROR(launchKernel(launch.kernel, launch.dims, pointers.data()));
    }
    return Status::ok();
  }
  void destroyGraph(GraphHandle handle) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = graphs_.begin(); it != graphs_.end(); ++it)
      if (it->get() == handle) {
        graphs_.erase(it);
        return;
      }
    ++badFrees_;
  }
  void enableGraphs(int from, bool libraryCalls = false) {
    std::lock_guard<std::mutex> lock(mutex_);
    graphsFrom_ = from;
    graphsLibrary_ = libraryCalls;
  }
  void failGraphs(bool fail) {
    std::lock_guard<std::mutex> lock(mutex_);
    failGraphs_ = fail;
  }
  size_t liveGraphs() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return graphs_.size();
  }

  Status copyOnDevice(uint64_t dst, uint64_t src, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
    ops_.push_back({RecordedOp::Kind::kCopy, "", {}, {}, dst, src, bytes});
    return Status::ok();
  }
  Status fill(uint64_t dst, uint8_t value, uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    std::memset(reinterpret_cast<void*>(dst), value, bytes);
    ops_.push_back({RecordedOp::Kind::kFill, "", {}, {}, dst, 0, bytes, value});
    return Status::ok();
  }
  // Runs the host function registered under the description's text, if any
  // (so tests check data), else only records the call.
  using LibraryBody = std::function<Status(const std::vector<uint64_t>&)>;
  void setLibraryBody(const std::string& text, LibraryBody body) {
    std::lock_guard<std::mutex> lock(mutex_);
    libraryBodies_[text] = std::move(body);
  }
  Status library(const LibraryOp& libraryOp,
                 const std::vector<uint64_t>& buffers) override {
    LibraryBody body;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      RecordedOp op{RecordedOp::Kind::kLibrary};
      op.params = buffers;
      op.library = libraryOpText(libraryOp);
      ops_.push_back(op);
      if (auto it = libraryBodies_.find(op.library); it != libraryBodies_.end())
        body = it->second;
    }
    return body ? body(buffers) : Status::ok();
  }
  // Computes f32 products on the host (alpha, beta, bias included), so tests
  // check the data a GemmThunk produces; other types are only recorded.
  Status gemm(const GemmDesc& desc, uint64_t a, uint64_t b, uint64_t d,
              uint64_t bias) override {
    std::lock_guard<std::mutex> lock(mutex_);
    if (captureInto_ != nullptr) {
      captureInto_->push_back({desc, a, b, d, bias});
      return Status::ok();
    }
    RecordedOp op{RecordedOp::Kind::kGemm};
    op.params = {a, b, d, bias};
    op.gemm = desc;
    ops_.push_back(op);
    if (failGemm_)
      return internalError("cublasLtMatmul failed: CUBLAS_STATUS_EXECUTION_FAILED");
    if (desc.a.type != GemmType::kF32 || desc.d_type != GemmType::kF32)
      return Status::ok();
    const auto* A = reinterpret_cast<const float*>(a);
    const auto* B = reinterpret_cast<const float*>(b);
    auto* D = reinterpret_cast<float*>(d);
    const auto* bias_values = reinterpret_cast<const float*>(bias);
    for (int64_t t = 0; t < desc.batch; ++t)
      for (int64_t i = 0; i < desc.m; ++i)
        for (int64_t j = 0; j < desc.n; ++j) {
          double sum = 0;
          for (int64_t k = 0; k < desc.k; ++k) {
            float x = desc.a.transpose ? A[t * desc.a.batch_stride + k * desc.a.ld + i]
                                       : A[t * desc.a.batch_stride + i * desc.a.ld + k];
            float y = desc.b.transpose ? B[t * desc.b.batch_stride + j * desc.b.ld + k]
                                       : B[t * desc.b.batch_stride + k * desc.b.ld + j];
            sum += static_cast<double>(x) * y;
          }
          float& out = D[t * desc.d_batch_stride + i * desc.d_ld + j];
          double value = desc.alpha * sum + (desc.beta != 0 ? desc.beta * out : 0.0);
          if (desc.bias) value += bias_values[j];
          out = static_cast<float>(value);
        }
    return Status::ok();
  }
  StatusOr<EventPtr> recordEvent() override {
    std::lock_guard<std::mutex> lock(mutex_);
    ops_.push_back({RecordedOp::Kind::kEvent});
    if (!holdEvents_) return Event::ready();
    EventPtr event = Event::create();
    held_.push_back(event);
    return event;
  }

  // Test controls.
  void setKernelBody(const std::string& name, KernelBody body) {
    std::lock_guard<std::mutex> lock(mutex_);
    bodies_[name] = std::move(body);
  }
  void failLaunchOf(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    failLaunch_.insert(name);
  }
  void failGemms(bool fail) {
    std::lock_guard<std::mutex> lock(mutex_);
    failGemm_ = fail;
  }
  void failLoadOf(const std::string& name) {
    std::lock_guard<std::mutex> lock(mutex_);
    failLoad_.insert(name);
  }
  // Events stay pending (as if the GPU were busy) until completeHeldEvents.
  void holdEvents(bool hold) {
    std::lock_guard<std::mutex> lock(mutex_);
    holdEvents_ = hold;
  }
  void completeHeldEvents() {
    std::vector<EventPtr> held;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      held.swap(held_);
    }
    for (auto& event : held) event->complete(Status::ok());
  }
  std::vector<RecordedOp> ops() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return ops_;
  }
  std::vector<RecordedOp> opsOfKind(RecordedOp::Kind kind) const {
    std::vector<RecordedOp> out;
    for (auto& op : ops()) {
      if (op.kind == kind) out.push_back(op);
    }
    return out;
  }
  void clearOps() {
    std::lock_guard<std::mutex> lock(mutex_);
    ops_.clear();
  }
  size_t liveAllocations() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return sizes_.size();
  }
  size_t loadedKernels() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return loaded_.size();
  }
  int badFrees() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return badFrees_;
  }

 private:
  struct CapturedGemm {
    GemmDesc desc;
    uint64_t a, b, d, bias;
  };
  struct Graph {
    struct Launch {
      KernelHandle kernel;  // null: a library call
      LaunchDims dims;
      std::vector<uint64_t> values;
      std::vector<CapturedGemm> gemms;
    };
    std::vector<Launch> launches;
  };
  StatusOr<std::vector<CapturedGemm>> capture(const GraphLaunch& launch) {
    std::vector<CapturedGemm> gemms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      captureInto_ = &gemms;
    }
    Status enqueued = launch.enqueue();
    std::lock_guard<std::mutex> lock(mutex_);
    captureInto_ = nullptr;
    if (!enqueued.isOk()) return enqueued;
    return gemms;
  }
  static std::vector<uint64_t> valuesOf(const GraphLaunch& launch) {
    auto* image = static_cast<const KernelImage*>(launch.kernel);
    std::vector<uint64_t> values(image->params.size());
    for (size_t i = 0; i < values.size(); ++i)
      std::memcpy(&values[i], launch.params[i], sizeof(uint64_t));
    return values;
  }
  static std::string nameOf(KernelHandle kernel) {
    return static_cast<const KernelImage*>(kernel)->name;
  }

  mutable std::mutex mutex_;
  DeviceInfo info_;
  uint64_t limit_;
  MemoryStats stats_;
  std::map<void*, uint64_t> sizes_;
  std::set<const KernelImage*> loaded_;
  std::map<std::string, KernelBody> bodies_;
  std::set<std::string> failLaunch_, failLoad_;
  std::vector<RecordedOp> ops_;
  bool holdEvents_ = false;
  bool failGemm_ = false;
  std::map<std::string, LibraryBody> libraryBodies_;
  std::vector<EventPtr> held_;
  int badFrees_ = 0;
  int graphsFrom_ = 0;
  bool graphsLibrary_ = false;
  bool failGraphs_ = false;
  std::vector<CapturedGemm>* captureInto_ = nullptr;
  std::vector<std::unique_ptr<Graph>> graphs_;
};

}  // namespace jft::runtime::testing
