// Argument checks and the exception fence shared by every entry point.
//
// Each entry point: `return boundary("PJRT_X", [&]() -> Status { ... });` with
// `checkArgs` first. A caller built against an older header sends a smaller
// `struct_size`; we accept it when it covers every field the call touches and
// refuse it otherwise. Larger sizes (newer callers) are always fine.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "pjrt/abi.h"
#include "pjrt/error.h"
#include "support/status.h"

namespace jft::pjrt {

template <typename Args>
Status checkArgs(const Args* args, size_t neededSize, const char* function) {
  if (args == nullptr) return invalidArgument(std::string(function) + ": args is null");
  if (args->struct_size < neededSize) {
    return invalidArgument(std::string(function) + ": args struct_size " +
                           std::to_string(args->struct_size) + " is smaller than the " +
                           std::to_string(neededSize) + " bytes this call needs");
  }
  return Status::ok();
}

inline Status requireNonNull(const void* pointer, const char* field,
                             const char* function) {
  if (pointer != nullptr) return Status::ok();
  return invalidArgument(std::string(function) + ": " + field + " is null");
}

// Hands the caller `values` (a list or string the object asked keeps
// owning) as the C ABI's pointer and count out-parameters.
template <typename Pointer, typename Count, typename Values>
void setView(Pointer& data, Count& count, const Values& values) {
  data = values.data();
  count = values.size();
}

// JFT_PJRT_TRACE=1 prints each entry point as it is called (to stderr).
bool traceCalls();
void traceCall(const char* function);

// Runs `body`, converting its Status (and any escaping exception) to PJRT_Error.
template <typename Body>
PJRT_Error* boundary(const char* function, Body&& body) noexcept {
  if (traceCalls()) traceCall(function);
  try {
    return toPjrtError(body());
  } catch (const std::bad_alloc&) {
    return toPjrtError(resourceExhausted(std::string(function) + ": out of host memory"));
  } catch (const std::exception& e) {
    return toPjrtError(internalError(std::string(function) + ": " + e.what()));
  } catch (...) {
    return toPjrtError(internalError(std::string(function) + ": unknown exception"));
  }
}

// Defines entry point `Function` of PJRT_<Name>: its args checked up to
// `lastField` inside the fence, then the statements that follow (which see
// `args` and `kName`, "PJRT_<Name>", and may return a Status early).
#define JFT_PJRT_ENTRY(Function, Name, lastField, ...)                      \
  PJRT_Error* Function(PJRT_##Name##_Args* args) {                          \
    constexpr const char* kName = "PJRT_" #Name;                            \
    return ::jft::pjrt::boundary(kName, [&]() -> Status {                   \
      JFT_RETURN_IF_ERROR(::jft::pjrt::checkArgs(                           \
          args, JFT_ABI_SIZE_UP_TO(PJRT_##Name##_Args, lastField), kName)); \
      __VA_ARGS__;                                                          \
      return Status::ok();                                                  \
    });                                                                     \
  }

// The same for an entry point on the object args->`field`, which must not be
// null; `binding` (a declaration) names it for the statements.
#define JFT_PJRT_OBJECT_ENTRY(Function, Name, lastField, field, binding, ...)       \
  JFT_PJRT_ENTRY(                                                                   \
      Function, Name, lastField,                                                    \
      JFT_RETURN_IF_ERROR(::jft::pjrt::requireNonNull(args->field, #field, kName)); \
      [[maybe_unused]] binding; __VA_ARGS__)

}  // namespace jft::pjrt
