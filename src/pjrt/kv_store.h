// KvStore: the key-value store of jax.distributed, as the plugin sees it.
//
// JAX hands PJRT_Client_Create a blocking get and a put callback
// (kv_get_callback / kv_put_callback and their user args); the store is
// shared by every process of the job and outlives the client. The processes
// use it to learn each other's devices at client creation
// (device_exchange.h) and, later, NCCL clique ids (kv_clique_ids.h). Tests
// substitute an in-memory store.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "pjrt/abi.h"
#include "support/status.h"

namespace jft::pjrt {

class KvStore {
 public:
  virtual ~KvStore() = default;
  virtual Status put(const std::string& key, const std::string& value) = 0;
  // Blocks until `key` has a value or `timeout` passes; the store's error
  // (DEADLINE_EXCEEDED for a timeout in jax's store) otherwise.
  virtual StatusOr<std::string> get(const std::string& key,
                                    std::chrono::milliseconds timeout) = 0;
};

// The store behind the create arguments' callbacks; null when the caller
// passed none (or its struct predates them). Errors the callbacks return are
// made by our own callback_error, so they are read and destroyed here.
std::shared_ptr<KvStore> kvStoreFromCreateArgs(const PJRT_Client_Create_Args& args);

}  // namespace jft::pjrt
