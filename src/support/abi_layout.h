// Layout checks for our declarations of external C ABIs (ffi/c_abi.h and
// pjrt/abi*.h): their structs are written field by field to match headers we
// do not include, so every offset is asserted, and a struct's size is
// computed the way those headers' own macros do.
#pragma once

#include <cstddef>

// The size of `type` up to and including `field`: what a caller that knows
// `field` as the last member writes into `struct_size` (PJRT_STRUCT_SIZE,
// XLA_FFI_STRUCT_SIZE).
#define JFT_ABI_SIZE_UP_TO(type, field) (offsetof(type, field) + sizeof(type::field))

// Fails the build when `field` of `type` is not at byte `offset`.
#define JFT_ABI_OFFSET(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "::" #field " offset")
