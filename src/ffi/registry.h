// The process's FFI handlers and user types, as registered through PJRT's FFI
// and GPU custom-call extensions (jax.ffi.register_ffi_target, the handlers
// jaxlib ships for host callbacks) or XLA_FFI_Handler_Register. Platform names
// compare case-insensitively; we run "CUDA" ("cuda", "gpu" accepted).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ffi/c_abi.h"
#include "support/status.h"

namespace jft::ffi {

// api_version 1: XLA FFI (typed). 0: the legacy untyped custom-call
// signature, recorded so the compile error can say why it is refused.
struct RegisteredHandler {
  XLA_FFI_Handler_Bundle bundle{};
  int api_version = 1;
  XLA_FFI_Handler_Traits traits = 0;
};

// INVALID_ARGUMENT without an execute handler or for another platform;
// registering the same target again with the same execute handler is OK,
// with another one ALREADY_EXISTS.
Status registerHandler(std::string_view target, std::string_view platform,
                       const RegisteredHandler& handler);
std::optional<RegisteredHandler> findHandler(std::string_view target);
// Whether our platform answers to `platform` ("CUDA", "cuda", "gpu").
bool isOurPlatform(std::string_view platform);

// `type_id` 0 assigns a fresh id; another value is recorded (a framework that
// assigned it in its own registry) unless the name holds a different one
// (ALREADY_EXISTS). The id in effect is returned.
StatusOr<int64_t> registerType(std::string_view name, int64_t type_id);

// The deleter a type's registration named (XLA_FFI_TypeInfo), for state a
// handler hands over without one; null when none was given.
using TypeDeleter = void (*)(void*);
void setTypeDeleter(int64_t type_id, TypeDeleter deleter);
TypeDeleter typeDeleter(int64_t type_id);

}  // namespace jft::ffi
