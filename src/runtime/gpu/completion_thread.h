// CompletionThread: turns GPU progress into host Event completions.
//
// Work is queued as (CUDA event, host event, follow-up). One thread per device
// takes items in queue order (the order they were recorded on the stream),
// sleeps in cuEventSynchronize on blocking-sync events (no spinning), then
// completes the host event and runs the follow-up (e.g. freeing memory).
// The destructor drains the queue and joins the thread, so no thread outlives
// the client, except when the destructor runs on that thread itself (a
// follow-up or a completion callback let go of the last owner, as a host
// framework tearing down inside a callback does): a thread cannot join
// itself, so the destructor drains what is queued right there (as the thread
// would) and detaches it; the thread then finds the queue empty and ends,
// touching nothing of the destroyed object.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
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
  // What the thread and the object share: the thread keeps it alive after a
  // destructor that ran on the thread itself.
  struct Queue {
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Item> items;
    bool stopping = false;
  };
  // The driver is the process's, loaded once, so it outlives a detached thread.
  static void run(const Driver& driver, CUcontext context, std::shared_ptr<Queue> queue);
  // Waits for the item's GPU work, then runs its follow-up and completes it.
  static void finish(const Driver& driver, Item& item);

  const Driver& driver_;
  std::shared_ptr<Queue> queue_;
  std::thread thread_;
};

}  // namespace jft::runtime::gpu
