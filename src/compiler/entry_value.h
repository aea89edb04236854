// The entry function's parameters and results as a caller outside the
// compiler sees them (src/pjrt answers the executable queries from these):
// arrays with an element type and dimensions, tokens, and anything else the
// caller cannot pass (tuples), named as written for its error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "ir/attribute.h"
#include "ir/type.h"

namespace jft::compiler {

using ElementType = ir::ElementType;

struct EntryValue {
  enum class Kind { kArray, kToken, kOther };
  Kind kind = Kind::kOther;
  ElementType element = ElementType::F32;  // kArray only
  std::vector<int64_t> dims;               // kArray only
  int64_t bytes = 0;                       // kArray only
  std::string text;                        // the type as written: "tensor<2x3xf32>"
  std::string memory_kind = "device";      // or "pinned_host"
  // The order of its bytes, minor-to-major dims (entry_layouts.h); empty
  // where dense row-major.
  std::vector<int64_t> minor_to_major;
};

EntryValue describeEntryValue(const ir::Type& type);
// The memory kind a caller keeps an entry value in, from its argument or
// result attributes: "pinned_host" when `mhlo.memory_kind` says so, else
// "device" (our buffers hold no other host kind).
std::string entryMemoryKind(const ir::NamedAttrs& attrs);
// The kinds of `count` arguments or results whose attribute lists are `attrs`
// (a missing list means none).
std::vector<std::string> entryMemoryKinds(const std::vector<ir::NamedAttrs>& attrs,
                                          size_t count);
std::vector<EntryValue> entryParameters(const Executable& executable);
std::vector<EntryValue> entryOutputs(const Executable& executable);

}  // namespace jft::compiler
