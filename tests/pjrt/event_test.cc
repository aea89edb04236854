// Runtime events: completion, callbacks, waiting across threads, joins.
#include "runtime/event.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace jft::runtime {
namespace {

TEST(Event, CallbacksRunOnceWithTheStatus) {
  auto event = Event::create();
  int calls = 0;
  StatusCode seen = StatusCode::kOk;
  event->onReady([&](const Status& s) {
    ++calls;
    seen = s.code();
  });
  EXPECT_FALSE(event->isReady());
  event->complete(resourceExhausted("full"));
  event->complete(Status::ok());  // ignored: first completion wins
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, StatusCode::kResourceExhausted);
  EXPECT_EQ(event->status().code(), StatusCode::kResourceExhausted);
  bool late = false;
  event->onReady([&](const Status&) { late = true; });
  EXPECT_TRUE(late);
}

TEST(Event, AwaitWakesWhenAnotherThreadCompletes) {
  auto event = Event::create();
  std::thread producer([event] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    event->complete(Status::ok());
  });
  EXPECT_TRUE(event->await().isOk());
  producer.join();
}

TEST(Event, WhenAllWaitsForEveryEventAndKeepsTheFirstError) {
  auto a = Event::create(), b = Event::create(), c = Event::create();
  auto all = whenAll({a, b, c});
  a->complete(Status::ok());
  b->complete(internalError("b failed"));
  EXPECT_FALSE(all->isReady());
  c->complete(unavailable("c failed"));
  ASSERT_TRUE(all->isReady());
  EXPECT_EQ(all->status().message(), "b failed");
  EXPECT_TRUE(whenAll({})->isReady());
}

}  // namespace
}  // namespace jft::runtime
