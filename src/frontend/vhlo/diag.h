// Where a user-facing import error happened: the op's name and the source
// position it came from, so every message reads
// "vhlo.foo_v3 is not supported (at zoo.py:17:20)".
#pragma once

#include <string>
#include <utility>

#include "support/status.h"

namespace jft::frontend::vhlo {

struct OpSite {
  std::string op;     // "vhlo.add_v1", or "builtin.module"
  std::string where;  // "zoo.py:17:20", a location name, or "unknown location"

  // "<op>: <message> (at <where>)"
  Status error(StatusCode code, const std::string& message) const {
    return Status(code, op + ": " + message + " (at " + where + ")");
  }
  Status invalid(const std::string& message) const {
    return error(StatusCode::kInvalidArgument, message);
  }
  Status unimplemented(const std::string& message) const {
    return error(StatusCode::kUnimplemented, message);
  }
  // "<op> is not supported (at <where>)": the op itself has no ir form.
  Status notSupported() const {
    return Status(StatusCode::kUnimplemented,
                  op + " is not supported (at " + where + ")");
  }
};

}  // namespace jft::frontend::vhlo
