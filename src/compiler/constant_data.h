// The bytes a constant buffer (runtime::BufferSlot::Kind::kConstant) is
// uploaded from: a constant op's literal with every element spelled out.
//
// ir keeps a splat as one element; a constant reaches a buffer only when
// something other than a fused kernel reads it (a library call, a loop
// carry, a program output), and only then is it spelled out here. A splat
// too large to spell out on the host is refused with a clear error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/module.h"
#include "support/status.h"

namespace jft::compiler {

// Largest constant buffer built on the host.
inline constexpr uint64_t kMaxConstantBufferBytes = uint64_t{1} << 31;

// `op`'s "value" literal, which must be of `type`, as buffer bytes; `where`
// names the op in errors.
StatusOr<std::string> constantBufferData(const ir::Op& op, const ir::Type& type,
                                         std::string_view where);

}  // namespace jft::compiler
