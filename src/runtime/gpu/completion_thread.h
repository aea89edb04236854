// CompletionThread: turns GPU progress into host Event completions.
//
// Work is queued as (CUDA event, host event, follow-up). One thread per device
// takes items in queue order (the order they were recorded on the stream),
// sleeps in cuEventSynchronize on blocking-sync events (no spinning), then
// completes the host event and runs the follow-up (e.g. freeing memory).
// The destructor drains the queue and joins the thread, so no thread outlives
// the client.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "runtime/event.h"
#include "runtime/gpu/driver.h"

namespace jft::runtime::gpu {

class CompletionThread {
 public:
  CompletionThread(const Driver& driver, CUcontext context);
  ~CompletionThread();
  CompletionThread(const CompletionThread&) = delete;
  CompletionThread& operator=(const CompletionThread&) = delete;

  // Takes ownership of `cuda_event` (destroyed after it fires).
  void watch(CUevent cuda_event, EventPtr done, std::function<void()> follow_up = {});

 private:
  struct Item {
    CUevent cuda_event;
    EventPtr done;
    std::function<void()> follow_up;
  };
  void run();

  const Driver& driver_;
  CUcontext context_;
  std::mutex mutex_;
  std::condition_variable queue_changed_;
  std::deque<Item> queue_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace jft::runtime::gpu
