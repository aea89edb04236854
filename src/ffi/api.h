// Our XLA_FFI_Api function table (the `api` of every call frame we build) and
// the error object handlers create through it. Implemented: errors, the
// stream, execution-context user data, per-instance state, type-id
// registration, handler registration, device memory (when the context has an
// allocator), device ordinal, run id. The thread pool and futures answer
// UNIMPLEMENTED naming themselves.
#pragma once

#include "ffi/c_abi.h"
#include "support/status.h"

// The opaque error type handlers return: ours carries a Status.
struct XLA_FFI_Error {
  jft::Status status;
};

namespace jft::ffi {

const XLA_FFI_Api* ffiApi();

// Null for OK; the caller (a handler, or us returning from the table) hands
// ownership to whoever receives it.
XLA_FFI_Error* toFfiError(const Status& status);
// Takes ownership of (and frees) `error`; OK for null.
Status takeFfiError(XLA_FFI_Error* error);

}  // namespace jft::ffi
