// The in-process clique id exchange: a value published on one thread reaches
// a waiter on another, waiting past the timeout is DEADLINE_EXCEEDED naming
// the key, and keys do not mix.
#include "runtime/in_process_clique_ids.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

namespace jft::runtime {
namespace {

using std::chrono::milliseconds;

TEST(InProcessCliqueIds, AWaiterOnAnotherThreadGetsThePublishedValue) {
  InProcessCliqueIds ids;
  StatusOr<std::string> got = internalError("not run");
  std::thread waiter([&] { got = ids.wait("clique/0,1", milliseconds(10000)); });
  // Publish after the waiter has (most likely) started waiting; either order
  // must give the value.
  std::this_thread::sleep_for(milliseconds(20));
  ASSERT_TRUE(ids.publish("clique/0,1", "id-bytes").isOk());
  waiter.join();
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  EXPECT_EQ(*got, "id-bytes");
}

TEST(InProcessCliqueIds, AValuePublishedBeforeTheWaitIsThereAtOnce) {
  InProcessCliqueIds ids;
  ASSERT_TRUE(ids.publish("k", std::string("\0\1\2", 3)).isOk());
  StatusOr<std::string> got = ids.wait("k", milliseconds(0));
  ASSERT_TRUE(got.isOk()) << got.status().toString();
  EXPECT_EQ(*got, std::string("\0\1\2", 3));
}

TEST(InProcessCliqueIds, WaitingPastTheTimeoutNamesTheKey) {
  InProcessCliqueIds ids;
  ASSERT_TRUE(ids.publish("other", "x").isOk());
  const auto start = std::chrono::steady_clock::now();
  StatusOr<std::string> got = ids.wait("jft/nccl_clique_id/5,7", milliseconds(50));
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(got.isOk());
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(got.status().message().find("'jft/nccl_clique_id/5,7'"), std::string::npos)
      << got.status().message();
  EXPECT_NE(got.status().message().find("50 ms"), std::string::npos);
  EXPECT_GE(waited, milliseconds(50));
}

TEST(InProcessCliqueIds, ALaterPublishReplacesTheValue) {
  InProcessCliqueIds ids;
  ASSERT_TRUE(ids.publish("k", "first").isOk());
  ASSERT_TRUE(ids.publish("k", "second").isOk());
  StatusOr<std::string> got = ids.wait("k", milliseconds(0));
  ASSERT_TRUE(got.isOk());
  EXPECT_EQ(*got, "second");
}

TEST(InProcessCliqueIds, ManyWaitersOnOneKeyAllWake) {
  InProcessCliqueIds ids;
  std::vector<std::thread> waiters;
  std::vector<std::string> got(4);
  for (int i = 0; i < 4; ++i)
    waiters.emplace_back([&, i] {
      StatusOr<std::string> value = ids.wait("k", milliseconds(10000));
      got[i] = value.isOk() ? *value : value.status().toString();
    });
  ASSERT_TRUE(ids.publish("k", "v").isOk());
  for (std::thread& t : waiters) t.join();
  for (const std::string& value : got) EXPECT_EQ(value, "v");
}

}  // namespace
}  // namespace jft::runtime
