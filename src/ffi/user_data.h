// What a custom call's handler reaches through its execution context: user
// data that the framework attaches to one execution (jax's host callbacks,
// keyed by their type id), and the state a handler's instantiate stage left
// for its call site (XLA_FFI_State_Set / Get).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>

#include "support/status.h"

namespace jft::ffi {

// Objects by type id, each with an optional deleter run when the table goes.
class TypedObjects {
 public:
  using Deleter = void (*)(void*);
  TypedObjects() = default;
  TypedObjects(const TypedObjects&) = delete;
  TypedObjects& operator=(const TypedObjects&) = delete;
  ~TypedObjects();

  // ALREADY_EXISTS when `type_id` holds an object already.
  Status add(int64_t type_id, void* data, Deleter deleter);
  // Null when none.
  void* find(int64_t type_id) const;
  bool empty() const;

 private:
  struct Entry {
    void* data = nullptr;
    Deleter deleter = nullptr;
  };
  mutable std::mutex mutex_;
  std::map<int64_t, Entry> entries_;
};

// PJRT_ExecuteContext's content: user data of one execution.
using UserData = TypedObjects;
// One call site's state, kept from load to unload of its executable.
using InstanceState = TypedObjects;

}  // namespace jft::ffi
