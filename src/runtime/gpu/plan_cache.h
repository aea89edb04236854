// The plans a library runner (cuBLASLt, cuFFT, cuDNN) has made, one per key:
// made on first sight and kept for the runner's life. Not locked: each runner
// holds its own lock around every use, since a plan is used under it too.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>
#include <utility>

#include "support/status.h"

namespace jft::runtime::gpu {

template <typename Key, typename Plan, typename Hash>
class PlanCache {
 public:
  // The plan for `key`; `make(key)` makes it when there is none yet (its
  // error is returned and nothing kept).
  template <typename Make>
  StatusOr<const Plan*> get(const Key& key, Make make) {
    if (auto it = plans_.find(key); it != plans_.end()) return it->second.get();
    JFT_ASSIGN_OR_RETURN(std::unique_ptr<Plan> plan, make(key));
    const Plan* raw = plan.get();
    plans_.emplace(key, std::move(plan));
    return raw;
  }

  size_t size() const { return plans_.size(); }
  // Destroys every plan (with the runner's context current).
  void clear() { plans_.clear(); }

 private:
  std::unordered_map<Key, std::unique_ptr<Plan>, Hash> plans_;
};

}  // namespace jft::runtime::gpu
