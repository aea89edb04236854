// CompletionThread implementation.
#include "runtime/gpu/completion_thread.h"

namespace jft::runtime::gpu {

CompletionThread::CompletionThread(const Driver& driver, CUcontext context)
    : driver_(driver), context_(context), thread_([this] { run(); }) {}

CompletionThread::~CompletionThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  queue_changed_.notify_all();
  thread_.join();
}

void CompletionThread::watch(CUevent cuda_event, EventPtr done,
                             std::function<void()> follow_up) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(Item{cuda_event, std::move(done), std::move(follow_up)});
  }
  queue_changed_.notify_one();
}

void CompletionThread::run() {
  driver_.ctxSetCurrent(context_);
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      queue_changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      // Drain everything already queued before honouring a stop request.
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
    }
    Status status =
        driver_.check(driver_.eventSynchronize(item.cuda_event), "cuEventSynchronize");
    driver_.eventDestroy(item.cuda_event);
    if (item.follow_up) item.follow_up();
    if (item.done) item.done->complete(std::move(status));
  }
}

}  // namespace jft::runtime::gpu
