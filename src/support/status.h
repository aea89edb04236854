// Status and StatusOr: the one error channel for user-facing failures.
//
// Codes use the canonical numbering shared by PJRT and absl so that a status
// crosses the C ABI without translation tables. Internal invariants (bugs in
// us) are checked with JFT_CHECK, never reported through Status.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace jft {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

const char* statusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }

  bool isOk() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: message"
  std::string toString() const;

  // Prepends context ("while reading section 3: ") to the message.
  Status withContext(const std::string& context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalidArgument(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status unimplemented(std::string m) {
  return Status(StatusCode::kUnimplemented, std::move(m));
}
inline Status internalError(std::string m) {
  return Status(StatusCode::kInternal, std::move(m));
}
inline Status notFound(std::string m) {
  return Status(StatusCode::kNotFound, std::move(m));
}
inline Status failedPrecondition(std::string m) {
  return Status(StatusCode::kFailedPrecondition, std::move(m));
}
inline Status resourceExhausted(std::string m) {
  return Status(StatusCode::kResourceExhausted, std::move(m));
}
inline Status unavailable(std::string m) {
  return Status(StatusCode::kUnavailable, std::move(m));
}

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT
    if (status_.isOk()) status_ = internalError("StatusOr built from an OK status");
  }

  bool isOk() const { return value_.has_value(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

[[noreturn]] void checkFailed(const char* file, int line, const char* cond,
                              const std::string& message);

}  // namespace jft

// Internal invariant: a failure is a bug in this project, never bad input.
#define JFT_CHECK(cond, msg)                                       \
  do {                                                             \
    if (!(cond)) ::jft::checkFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

#define JFT_CONCAT_INNER(a, b) a##b
#define JFT_CONCAT(a, b) JFT_CONCAT_INNER(a, b)

// Returns the status from the enclosing function when it is not OK.
#define JFT_RETURN_IF_ERROR(expr)               \
  do {                                          \
    ::jft::Status jft_status_ = (expr);         \
    if (!jft_status_.isOk()) return jft_status_; \
  } while (0)

#define JFT_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.isOk()) return tmp.status();           \
  lhs = std::move(tmp).value()

// JFT_ASSIGN_OR_RETURN(auto x, computeX());
#define JFT_ASSIGN_OR_RETURN(lhs, expr) \
  JFT_ASSIGN_OR_RETURN_IMPL(JFT_CONCAT(jft_statusor_, __LINE__), lhs, expr)
