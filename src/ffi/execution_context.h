// XLA_FFI_ExecutionContext as we define it: what one handler call may reach
// besides its buffers and attributes. Built by the runtime for each call.
#pragma once

#include <cstdint>
#include <functional>

#include "ffi/c_abi.h"
#include "ffi/user_data.h"
#include "support/status.h"

struct XLA_FFI_ExecutionContext {
  void* stream = nullptr;  // CUstream of the device queue; null on a host-only test
  int32_t device_ordinal = 0;
  int64_t run_id = 0;
  const jft::ffi::UserData* user_data = nullptr;  // may be null: no user data
  jft::ffi::InstanceState* state = nullptr;       // the call site's state
  // Device memory ordered on `stream`; unset: XLA_FFI_DeviceMemory_* answer
  // UNIMPLEMENTED.
  std::function<jft::StatusOr<void*>(size_t bytes)> allocate;
  std::function<void(void* data, size_t bytes)> deallocate;
};
