// Event: a one-shot completion flag with a status, shared by everyone who waits.
//
// Producers (the GPU completion thread, a host copy) call `complete` once;
// consumers wait with `await`, poll with `isReady`, or register callbacks that
// run exactly once: on the completing thread, or at once if already complete.
// No busy waiting: waiters sleep on a condition variable.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "support/status.h"

namespace jft::runtime {

class Event {
 public:
  using Callback = std::function<void(const Status&)>;

  static std::shared_ptr<Event> create() { return std::make_shared<Event>(); }
  static std::shared_ptr<Event> ready(Status status = Status::ok());

  // Marks the event complete; later calls are ignored (first status wins).
  void complete(Status status);

  bool isReady() const;
  // Only meaningful once ready.
  Status status() const;
  // Blocks until ready and returns the status.
  Status await() const;
  void onReady(Callback callback);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable ready_changed_;
  bool ready_ = false;
  Status status_;
  std::vector<Callback> callbacks_;
};

using EventPtr = std::shared_ptr<Event>;

// Ready once every event in `events` is; carries the first error among them.
EventPtr whenAll(const std::vector<EventPtr>& events);

}  // namespace jft::runtime
