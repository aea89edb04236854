// runtime::CliqueIdExchange over jax.distributed's key-value store: how a
// clique's NCCL id, made by its rank 0 in one process, reaches the members in
// other processes. Values are hex-encoded, since the id is raw bytes and the
// store's values travel as strings. Keys are namespaced under
// "jax_flagtree/clique/" (jax adds its own "<platform>:" prefix).
#pragma once

#include <memory>
#include <string>

#include "pjrt/kv_store.h"
#include "runtime/collective_context.h"

namespace jft::pjrt {

class KvCliqueIdExchange final : public runtime::CliqueIdExchange {
 public:
  explicit KvCliqueIdExchange(std::shared_ptr<KvStore> store)
      : store_(std::move(store)) {}
  Status publish(const std::string& key, const std::string& value) override;
  // DEADLINE_EXCEEDED naming the key when no value arrives in time.
  StatusOr<std::string> wait(const std::string& key,
                             std::chrono::milliseconds timeout) override;

 private:
  std::shared_ptr<KvStore> store_;
};

// Lower-case hex, two digits per byte; and back (INVALID_ARGUMENT for an odd
// length or a non-hex digit).
std::string hexEncode(const std::string& bytes);
StatusOr<std::string> hexDecode(const std::string& text);

}  // namespace jft::pjrt
