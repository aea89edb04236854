// An in-memory stand-in for jax.distributed's key-value store: put stores,
// get blocks until the key has a value or the timeout passes
// (DEADLINE_EXCEEDED, as jax's store answers). Shared by "processes" that
// are threads of one test.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "pjrt/kv_store.h"

namespace jft::pjrt::testing {

class MemoryKvStore final : public KvStore {
 public:
  Status put(const std::string& key, const std::string& value) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      values_[key] = value;
    }
    changed_.notify_all();
    return Status::ok();
  }
  StatusOr<std::string> get(const std::string& key,
                            std::chrono::milliseconds timeout) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, timeout, [&] { return values_.count(key) > 0; }))
      return Status(StatusCode::kDeadlineExceeded, "no value for " + key);
    return values_.at(key);
  }
  std::map<std::string, std::string> snapshot() {
    std::lock_guard<std::mutex> lock(mutex_);
    return values_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::string> values_;
};

}  // namespace jft::pjrt::testing
