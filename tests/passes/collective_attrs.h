// Attributes of hand-built collectives, shared by the pass and compiler tests
// of programs over several participants.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/attribute.h"
#include "ir/builder.h"
#include "ir/module.h"

namespace jft::passes::testing {

// replica_groups: a rows x cols i64 literal of `values`, row-major.
inline ir::NamedAttrs groups(int64_t rows, int64_t cols, std::vector<double> values) {
  return {{"replica_groups",
           ir::denseFromValues(ir::Type::tensor(ir::ElementType::I64, {rows, cols}),
                               values)}};
}

inline ir::NamedAttrs with(ir::NamedAttrs attrs, const std::string& name,
                           ir::Attribute value) {
  attrs.push_back({name, std::move(value)});
  return attrs;
}

// shard_map's attributes: a channel and global device ids.
inline ir::NamedAttrs spmd(ir::NamedAttrs attrs) {
  attrs.push_back({"channel_handle", ir::ChannelHandle{1, 1}});
  attrs.push_back({"use_global_device_ids", ir::UnitAttr{}});
  return attrs;
}

}  // namespace jft::passes::testing
