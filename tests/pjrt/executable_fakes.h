// Host-memory stand-ins for the executable tests: a device whose "device
// memory" is malloc'ed (so tests can read outputs by address), and a
// DeviceProgram that doubles f32 inputs on the host and completes only when
// the test says so, so "Execute returns before the device finishes" is
// observable.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "pjrt/executable_program.h"
#include "runtime/device.h"

namespace jft::pjrt::testing {

// A runner that is never asked to run anything: the stand-in programs only
// check they were handed it.
class IdleRunner final : public runtime::CollectiveRunner {
 public:
  Status run(const runtime::CollectiveDesc&, std::span<const int64_t>, int64_t, uint64_t,
             uint64_t) override {
    return unimplemented("the stand-in runner runs no collective");
  }
};

// Counts arrivals; wait() returns whether `expected` arrived within the
// timeout. Stands in for a communicator that blocks until every member joins.
class Rendezvous {
 public:
  explicit Rendezvous(int expected) : expected_(expected) {}
  bool arriveAndWait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ++arrived_;
    all_.notify_all();
    return all_.wait_for(lock, timeout, [this] { return arrived_ >= expected_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable all_;
  int expected_;
  int arrived_ = 0;
};

class HostDevice final : public runtime::Device {
 public:
  explicit HostDevice(int ordinal) {
    info_.ordinal = ordinal;
    info_.name = "Host stand-in";
    info_.compute_major = 9;
  }
  const runtime::DeviceInfo& info() const override { return info_; }
  StatusOr<uint64_t> allocate(uint64_t bytes) override {
    if (bytes == 0) return uint64_t{0};
    void* memory = std::malloc(bytes);
    live_[memory] = bytes;
    stats_.bytes_in_use += static_cast<int64_t>(bytes);
    return reinterpret_cast<uint64_t>(memory);
  }
  void deallocate(uint64_t address, uint64_t bytes) override {
    void* memory = reinterpret_cast<void*>(address);
    auto found = live_.find(memory);
    if (found == live_.end() || found->second != bytes) {
      ++badFrees_;
      return;
    }
    live_.erase(found);
    stats_.bytes_in_use -= static_cast<int64_t>(bytes);
    std::free(memory);
  }
  StatusOr<runtime::EventPtr> copyToDevice(uint64_t dst, const void* src, uint64_t bytes,
                                           bool) override {
    if (bytes) std::memcpy(reinterpret_cast<void*>(dst), src, bytes);
    return runtime::Event::ready();
  }
  StatusOr<runtime::EventPtr> copyToHost(void* dst, uint64_t src,
                                         uint64_t bytes) override {
    if (bytes) std::memcpy(dst, reinterpret_cast<const void*>(src), bytes);
    return runtime::Event::ready();
  }
  StatusOr<runtime::EventPtr> copyFromDevice(uint64_t dst, Device&, uint64_t src,
                                             uint64_t bytes) override {
    if (bytes)
      std::memcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes);
    return runtime::Event::ready();
  }
  StatusOr<void*> allocatePinned(uint64_t bytes) override {
    return bytes == 0 ? nullptr : std::malloc(bytes);
  }
  void deallocatePinned(void* pointer) override { std::free(pointer); }
  StatusOr<runtime::EventPtr> copyDeviceToPinned(void* dst, uint64_t src,
                                                 uint64_t bytes) override {
    return copyToHost(dst, src, bytes);
  }
  StatusOr<runtime::EventPtr> copyPinnedToDevice(uint64_t dst, const void* src,
                                                 uint64_t bytes) override {
    return copyToDevice(dst, src, bytes, false);
  }
  runtime::MemoryStats memoryStats() const override { return stats_; }
  void resetPeakMemory() override {}
  // A queue that stays busy until finishQueuedWork(): what runs after the
  // queued work waits until then.
  void afterQueuedWork(std::function<void()> then) override {
    if (busy) {
      waiting_.push_back(std::move(then));
    } else {
      then();
    }
  }
  void finishQueuedWork() {
    busy = false;
    for (auto& then : std::exchange(waiting_, {})) then();
  }
  bool busy = false;
  StatusOr<runtime::CollectiveRunner*> collectiveRunner() override { return &runner_; }
  Status prepareLibrary(const runtime::LibraryOp&) override {
    ++libraryChecks;
    return libraryAnswer;
  }

  int64_t bytesInUse() const { return stats_.bytes_in_use; }
  // What prepareLibrary answers, and how often it was asked.
  Status libraryAnswer = unimplemented("the host stand-in has no library");
  int libraryChecks = 0;
  int badFrees() const { return badFrees_; }

 private:
  runtime::DeviceInfo info_;
  runtime::MemoryStats stats_;
  std::map<void*, uint64_t> live_;
  std::vector<std::function<void()>> waiting_;
  int badFrees_ = 0;
  IdleRunner runner_;
};

class HostPlatform final : public runtime::Platform {
 public:
  explicit HostPlatform(int count) {
    for (int i = 0; i < count; ++i) devices_.push_back(std::make_unique<HostDevice>(i));
  }
  std::string name() const override { return "cuda"; }
  std::string version() const override { return "host stand-in"; }
  int deviceCount() const override { return static_cast<int>(devices_.size()); }
  runtime::Device& device(int i) override { return *devices_.at(static_cast<size_t>(i)); }

 private:
  std::vector<std::unique_ptr<HostDevice>> devices_;
};

// Output o is 2 * argument o (f32) in a fresh allocation, or in the argument's
// own memory when the program aliases it and the argument is donated. Records
// the participant context and the thread it ran on; with `rendezvous` set,
// waits (up to a second) for the other participants before producing outputs,
// as a communicator's creation does.
class DoublingProgram final : public DeviceProgram {
 public:
  DoublingProgram(runtime::Device& device, runtime::Program program)
      : device_(device), program_(std::move(program)) {}

  StatusOr<runtime::ExecuteResult> execute(
      std::span<const runtime::ExecuteArgument> arguments,
      const runtime::ParticipantContext* participant) override {
    ++executions;
    thread = std::this_thread::get_id();
    lastParticipant =
        participant != nullptr ? *participant : runtime::ParticipantContext{};
    hadParticipant = participant != nullptr;
    if (rendezvous != nullptr)
      metEveryone = rendezvous->arriveAndWait(std::chrono::milliseconds(1000));
    if (failNext) return resourceExhausted("the stand-in device is full");
    runtime::ExecuteResult result;
    for (size_t o = 0; o < program_.output_slots.size(); ++o) {
      const runtime::ExecuteArgument& input = arguments[o];
      runtime::ExecuteOutput output;
      output.bytes = program_.slots[static_cast<size_t>(program_.output_slots[o])].bytes;
      int alias = o < program_.output_aliases.size() ? program_.output_aliases[o] : -1;
      if (alias >= 0 && arguments[static_cast<size_t>(alias)].donated) {
        output.address = arguments[static_cast<size_t>(alias)].address;
        output.taken_from = alias;
      } else {
        JFT_ASSIGN_OR_RETURN(output.address, device_.allocate(output.bytes));
      }
      auto* in = reinterpret_cast<const float*>(input.address);
      auto* out = reinterpret_cast<float*>(output.address);
      for (uint64_t i = 0; i < output.bytes / sizeof(float); ++i) out[i] = 2 * in[i];
      result.outputs.push_back(output);
    }
    lastArguments.assign(arguments.begin(), arguments.end());
    done = runtime::Event::create();
    result.done = done;
    return result;
  }

  int executions = 0;
  bool failNext = false;
  std::thread::id thread;
  runtime::ParticipantContext lastParticipant;
  bool hadParticipant = false;
  Rendezvous* rendezvous = nullptr;
  bool metEveryone = false;
  std::vector<runtime::ExecuteArgument> lastArguments;
  runtime::EventPtr done;

 private:
  runtime::Device& device_;
  runtime::Program program_;
};

// A loader that keeps track of what it loaded, for inspection.
struct RecordingLoader {
  std::vector<DoublingProgram*> loaded;
  bool fail = false;

  ProgramLoader loader() {
    return [this](runtime::Device& device, const runtime::Program& program)
               -> StatusOr<std::unique_ptr<DeviceProgram>> {
      if (fail) return invalidArgument("the stand-in refuses this program");
      auto made = std::make_unique<DoublingProgram>(device, program);
      loaded.push_back(made.get());
      return std::unique_ptr<DeviceProgram>(std::move(made));
    };
  }
};

}  // namespace jft::pjrt::testing
