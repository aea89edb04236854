// DeviceWorker: one thread that runs the jobs posted to it, in order.
//
// A program over several participants is enqueued on every device at once:
// its first collective creates a communicator, which blocks until every
// member has joined, and NCCL wants one thread per rank when calls are not
// grouped. Each addressable device therefore has a persistent worker
// (PJRT_Device::worker, started on first use, joined when the client is
// destroyed) that Execute posts that device's enqueue to. Programs on one
// device never use it: a thread hop costs host time per call.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace jft::pjrt {

class DeviceWorker {
 public:
  DeviceWorker();
  // Runs the jobs already posted, then joins the thread.
  ~DeviceWorker();
  DeviceWorker(const DeviceWorker&) = delete;
  DeviceWorker& operator=(const DeviceWorker&) = delete;

  // Queues `job`; it runs on the worker thread after the jobs posted before it.
  // Jobs must not throw (Execute's jobs catch everything themselves).
  void post(std::function<void()> job);
  std::thread::id threadId() const { return thread_.get_id(); }

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace jft::pjrt
