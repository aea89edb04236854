// CompletionThread implementation.
#include "runtime/gpu/completion_thread.h"

namespace jft::runtime::gpu {

CompletionThread::CompletionThread(const Driver& driver, CUcontext context)
    : driver_(driver),
      queue_(std::make_shared<Queue>()),
      thread_([&driver, context, queue = queue_] { run(driver, context, queue); }) {}

CompletionThread::~CompletionThread() {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
  }
  queue_->changed.notify_all();
  if (thread_.get_id() != std::this_thread::get_id()) {
    thread_.join();
    return;
  }
  for (;;) {
    Item item;
    {
      std::lock_guard<std::mutex> lock(queue_->mutex);
      if (queue_->items.empty()) break;
      item = std::move(queue_->items.front());
      queue_->items.pop_front();
    }
    finish(driver_, item);
  }
  thread_.detach();
}

void CompletionThread::watch(CUevent cuda_event, EventPtr done,
                             std::function<void()> follow_up) {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->items.push_back(Item{cuda_event, std::move(done), std::move(follow_up)});
  }
  queue_->changed.notify_one();
}

void CompletionThread::run(const Driver& driver, CUcontext context,
                           std::shared_ptr<Queue> queue) {
  driver.ctxSetCurrent(context);
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(queue->mutex);
      queue->changed.wait(lock, [&] { return queue->stopping || !queue->items.empty(); });
      // Drain everything already queued before honouring a stop request.
      if (queue->items.empty()) return;
      item = std::move(queue->items.front());
      queue->items.pop_front();
    }
    finish(driver, item);
  }
}

void CompletionThread::finish(const Driver& driver, Item& item) {
  Status status =
      driver.check(driver.eventSynchronize(item.cuda_event), "cuEventSynchronize");
  driver.eventDestroy(item.cuda_event);
  if (item.follow_up) item.follow_up();
  if (item.done) item.done->complete(std::move(status));
}

}  // namespace jft::runtime::gpu
