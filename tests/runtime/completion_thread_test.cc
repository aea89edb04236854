// CompletionThread over a driver whose entry points are stand-ins (no GPU):
// items complete in queue order after their follow-ups, and the thread may be
// destroyed by a callback running on it (the last owner let go inside a
// completion callback), which used to make it join itself and abort.
#include "runtime/gpu/completion_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace jft::runtime::gpu {
namespace {

std::atomic<int> synchronized{0};
std::atomic<int> destroyed{0};
// While closed, watched events' GPU work "runs": a test queues several items
// before the first completes.
std::atomic<bool> gate_open{true};

CUresult fakeSetCurrent(CUcontext) {
  return kCudaSuccess;
}
CUresult fakeSynchronize(CUevent) {
  while (!gate_open.load()) std::this_thread::yield();
  ++synchronized;
  return kCudaSuccess;
}
CUresult fakeDestroy(CUevent) {
  ++destroyed;
  return kCudaSuccess;
}

const Driver& fakeDriver() {
  static const Driver driver = [] {
    Driver d;
    d.ctxSetCurrent = fakeSetCurrent;
    d.eventSynchronize = fakeSynchronize;
    d.eventDestroy = fakeDestroy;
    return d;
  }();
  return driver;
}

CUevent fakeEvent(int i) {
  return reinterpret_cast<CUevent>(static_cast<uintptr_t>(0x1000 + i));
}

TEST(CompletionThread, ItemsCompleteInQueueOrderAfterTheirFollowUps) {
  std::mutex mutex;
  std::vector<int> order;
  std::vector<EventPtr> done;
  {
    CompletionThread thread(fakeDriver(), nullptr);
    for (int i = 0; i < 5; ++i) {
      done.push_back(Event::create());
      thread.watch(fakeEvent(i), done.back(), [&, i] {
        std::lock_guard<std::mutex> lock(mutex);
        order.push_back(i);
      });
    }
  }  // drains, then joins
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (const EventPtr& e : done) {
    ASSERT_TRUE(e->isReady());
    EXPECT_TRUE(e->status().isOk());
  }
}

TEST(CompletionThread, ACallbackOnItsThreadMayDestroyIt) {
  auto owner = std::make_shared<std::unique_ptr<CompletionThread>>(
      std::make_unique<CompletionThread>(fakeDriver(), nullptr));
  CompletionThread& thread = **owner;
  const int destroyed_before = destroyed.load();
  EventPtr first = Event::create();
  EventPtr later = Event::create();
  EventPtr gone = Event::create();
  bool later_followed = false;
  // The first item's completion callback drops the last owner: the
  // destructor runs on the completion thread itself.
  first->onReady([owner, gone](const Status&) {
    owner->reset();
    gone->complete(Status::ok());
  });
  gate_open = false;  // both items are queued before the first completes
  thread.watch(fakeEvent(1), first);
  thread.watch(fakeEvent(2), later, [&] { later_followed = true; });
  owner.reset();
  gate_open = true;
  ASSERT_TRUE(gone->await().isOk());
  // What was queued behind it was finished by the destructor, not lost.
  ASSERT_TRUE(later->await().isOk());
  EXPECT_TRUE(later_followed);
  EXPECT_EQ(destroyed.load() - destroyed_before, 2);
}

}  // namespace
}  // namespace jft::runtime::gpu
