// Event implementation: callbacks run outside the lock so they may touch the
// event (or register more callbacks) without deadlocking.
#include "runtime/event.h"

#include <atomic>

namespace jft::runtime {

std::shared_ptr<Event> Event::ready(Status status) {
  auto event = create();
  event->complete(std::move(status));
  return event;
}

void Event::complete(Status status) {
  std::vector<Callback> callbacks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ready_) return;
    ready_ = true;
    status_ = std::move(status);
    callbacks.swap(callbacks_);
  }
  ready_changed_.notify_all();
  for (auto& callback : callbacks) callback(status_);
}

bool Event::isReady() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ready_;
}

Status Event::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

Status Event::await() const {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_changed_.wait(lock, [this] { return ready_; });
  return status_;
}

void Event::onReady(Callback callback) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!ready_) {
      callbacks_.push_back(std::move(callback));
      return;
    }
  }
  callback(status_);
}

EventPtr whenAll(const std::vector<EventPtr>& events) {
  if (events.empty()) return Event::ready();
  if (events.size() == 1) return events.front();
  struct Join {
    std::atomic<size_t> remaining;
    std::mutex mutex;
    Status first_error;
    EventPtr done = Event::create();
  };
  auto join = std::make_shared<Join>();
  join->remaining = events.size();
  for (const auto& event : events) {
    event->onReady([join](const Status& status) {
      if (!status.isOk()) {
        std::lock_guard<std::mutex> lock(join->mutex);
        if (join->first_error.isOk()) join->first_error = status;
      }
      if (join->remaining.fetch_sub(1) != 1) return;
      Status first;
      {
        std::lock_guard<std::mutex> lock(join->mutex);
        first = join->first_error;
      }
      join->done->complete(std::move(first));
    });
  }
  return join->done;
}

}  // namespace jft::runtime
