#include "runtime/in_process_clique_ids.h"

namespace jft::runtime {

Status InProcessCliqueIds::publish(const std::string& key, const std::string& value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[key] = value;
  }
  published_.notify_all();
  return Status::ok();
}

StatusOr<std::string> InProcessCliqueIds::wait(const std::string& key,
                                               std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool found =
      published_.wait_for(lock, timeout, [&] { return values_.count(key); });
  if (!found)
    return Status(StatusCode::kDeadlineExceeded,
                  "no clique id was published under '" + key + "' within " +
                      std::to_string(timeout.count()) +
                      " ms (did every member of the clique run the collective?)");
  return values_.at(key);
}

}  // namespace jft::runtime
