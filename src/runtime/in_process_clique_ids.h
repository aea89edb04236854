// The clique id exchange of one process (collective_context.h): a table in
// memory that rank 0's thread writes and the other members' threads wait on.
// The default of a platform whose devices all live in this process; across
// processes PJRT installs one over the distributed key-value store instead.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>

#include "runtime/collective_context.h"

namespace jft::runtime {

class InProcessCliqueIds final : public CliqueIdExchange {
 public:
  // Stores `value` under `key` (a later publish of the key replaces it: a
  // clique made again after a failure gets a fresh id) and wakes the waiters.
  Status publish(const std::string& key, const std::string& value) override;
  // The value under `key` once published; DEADLINE_EXCEEDED naming the key
  // and the time waited when it is not within `timeout`.
  StatusOr<std::string> wait(const std::string& key,
                             std::chrono::milliseconds timeout) override;

 private:
  std::mutex mutex_;
  std::condition_variable published_;
  std::map<std::string, std::string> values_;
};

}  // namespace jft::runtime
