#include "frontend/bytecode/ir_reader.h"

#include <vector>

#include "frontend/bytecode/values.h"

namespace jft::frontend::bytecode {
namespace {

enum OpMask : uint8_t {
  kHasAttrs = 0x01,
  kHasResults = 0x02,
  kHasOperands = 0x04,
  kHasSuccessors = 0x08,
  kHasInlineRegions = 0x10,
  kHasUseListOrders = 0x20,
  kHasProperties = 0x40,
};

// The values of one isolated-from-above scope, by bytecode index. Each slot
// gets its tree-wide id when its region reserves it, so forward references
// need no patching.
struct Scope {
  std::vector<uint32_t> ids;
  std::vector<uint8_t> defined, used;
};

// The slots one region reserved in its scope, and the next to define.
struct RegionValues {
  size_t base = 0, count = 0, next = 0;
};

class IrReader {
 public:
  IrReader(uint64_t version, const DialectTable& dialects, AttrTypeTable& attrs,
           const PropertiesTable& properties, MTree& tree)
      : version_(version),
        dialects_(dialects),
        attrs_(attrs),
        properties_(properties),
        tree_(tree) {}

  Status readTop(Cursor& in);

 private:
  Status readRegion(Cursor& in, Scope& scope, MRegion& region, int depth);
  Status readBlockHeader(Cursor& in, Scope& scope, RegionValues& values, MBlock& block,
                         uint64_t& num_ops);
  Status readOp(Cursor& in, Scope& scope, RegionValues& values, size_t num_blocks,
                MOp& op, int depth);
  Status readAttributes(Cursor& in, uint8_t mask, size_t mask_at, const OpNameEntry& name,
                        MOp& op);
  Status readResultsOperandsSuccessors(Cursor& in, uint8_t mask, Scope& scope,
                                       size_t num_blocks, MOp& op);
  Status readOpRegions(Cursor& in, Scope& scope, bool isolated, MOp& op, int depth);
  Status readUseListOrders(Cursor& in, uint64_t range_size, bool need_entries);
  Status defineValues(Cursor& in, Scope& scope, RegionValues& values, size_t n,
                      std::vector<uint32_t>& out);
  Status reserve(Scope& scope, uint64_t count, RegionValues& values);
  Status release(Cursor& in, Scope& scope, const RegionValues& values);
  uint32_t freshId() { return tree_.num_values++; }
  // Each op copies the entries of the dictionary it refers to; many ops
  // sharing one huge dictionary must not turn a small file into hours of
  // copying.
  Status chargeCopies(Cursor& in, size_t at, size_t entries) {
    if (entries > copy_budget_)
      return in.errorAt(at, "too many attribute entries copied into ops (limit " +
                                std::to_string(kCopyBudget) + ")");
    copy_budget_ -= entries;
    return Status::ok();
  }
  static constexpr size_t kCopyBudget = size_t{1} << 24;
  size_t copy_budget_ = kCopyBudget;

  uint64_t version_;
  const DialectTable& dialects_;
  AttrTypeTable& attrs_;
  const PropertiesTable& properties_;
  MTree& tree_;
};

Status IrReader::reserve(Scope& scope, uint64_t count, RegionValues& values) {
  values.base = values.next = scope.ids.size();
  values.count = static_cast<size_t>(count);
  for (uint64_t i = 0; i < count; ++i) scope.ids.push_back(freshId());
  scope.defined.resize(scope.ids.size(), 0);
  scope.used.resize(scope.ids.size(), 0);
  return Status::ok();
}

Status IrReader::release(Cursor& in, Scope& scope, const RegionValues& values) {
  for (size_t i = values.base; i < values.base + values.count; ++i) {
    if (scope.used[i] && !scope.defined[i])
      return in.error("value #" + std::to_string(i) + " is used but never defined");
  }
  scope.ids.resize(values.base);
  scope.defined.resize(values.base);
  scope.used.resize(values.base);
  return Status::ok();
}

Status IrReader::defineValues(Cursor& in, Scope& scope, RegionValues& values, size_t n,
                              std::vector<uint32_t>& out) {
  if (n > values.base + values.count - values.next) {
    return in.error(
        "expected at most " + std::to_string(values.base + values.count - values.next) +
        " more values in this region, found " + std::to_string(n) + " defined");
  }
  for (size_t i = 0; i < n; ++i, ++values.next) {
    scope.defined[values.next] = 1;
    out.push_back(scope.ids[values.next]);
  }
  return Status::ok();
}

Status IrReader::readUseListOrders(Cursor& in, uint64_t range_size, bool need_entries) {
  uint64_t num_entries = 1;
  size_t count_at = in.fileOffset();
  if (range_size > 1) JFT_RETURN_IF_ERROR(in.readCount(num_entries, "use-list orders"));
  if (need_entries && num_entries == 0)
    return in.errorAt(count_at, "expected at least one block argument use-list order");
  for (uint64_t i = 0; i < num_entries; ++i) {
    uint64_t index = 0, num_uses = 0;
    bool pairs = false;
    if (range_size > 1) JFT_RETURN_IF_ERROR(in.readVarInt(index));
    size_t at = in.fileOffset();
    JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(num_uses, pairs));
    if (num_uses > in.remaining())
      return in.errorAt(at, "expected a use-list length that fits the remaining bytes");
    for (uint64_t u = 0; u < num_uses; ++u) JFT_RETURN_IF_ERROR(in.readVarInt(index));
  }
  return Status::ok();
}

Status IrReader::readBlockHeader(Cursor& in, Scope& scope, RegionValues& values,
                                 MBlock& block, uint64_t& num_ops) {
  size_t at = in.fileOffset();
  bool has_args = false;
  JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(num_ops, has_args));
  // Each op takes at least its name, mask and location: three bytes.
  if (num_ops > in.remaining() / 3)
    return in.errorAt(at, "expected an op count that fits the remaining bytes, found " +
                              std::to_string(num_ops));
  if (!has_args) return Status::ok();

  uint64_t num_args = 0;
  JFT_RETURN_IF_ERROR(in.readCount(num_args, "block arguments"));
  for (uint64_t i = 0; i < num_args; ++i) {
    MTypePtr type;
    MAttrPtr loc = nullptr;
    if (version_ >= kElideUnknownBlockArgLocation) {
      size_t type_at = in.fileOffset();
      uint64_t type_index = 0;
      bool has_loc = false;
      JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(type_index, has_loc));
      JFT_RETURN_IF_ERROR(attrs_.typeAt(in, type_at, type_index, type));
      if (has_loc) JFT_RETURN_IF_ERROR(attrs_.readAttr(in, loc));
    } else {
      JFT_RETURN_IF_ERROR(attrs_.readType(in, type));
      JFT_RETURN_IF_ERROR(attrs_.readAttr(in, loc));
    }
    if (!loc) loc = makeUnknownLoc();
    if (loc->kind != MAttr::Kind::Location)
      return in.error("expected a location for block argument " + std::to_string(i));
    block.arg_types.push_back(std::move(type));
    block.arg_locs.push_back(std::move(loc));
  }
  JFT_RETURN_IF_ERROR(
      defineValues(in, scope, values, block.arg_types.size(), block.args));
  if (version_ < kUseListOrdering) return Status::ok();
  uint8_t has_use_list_orders = 0;
  JFT_RETURN_IF_ERROR(in.readByte(has_use_list_orders));
  if (has_use_list_orders) JFT_RETURN_IF_ERROR(readUseListOrders(in, num_args, true));
  return Status::ok();
}

Status IrReader::readRegion(Cursor& in, Scope& scope, MRegion& region, int depth) {
  if (depth > kMaxRegionNesting)
    return in.error("regions nested deeper than " + std::to_string(kMaxRegionNesting));
  uint64_t num_blocks = 0;
  JFT_RETURN_IF_ERROR(in.readCount(num_blocks, "blocks"));
  if (num_blocks == 0) return Status::ok();
  uint64_t num_values = 0;
  JFT_RETURN_IF_ERROR(in.readCount(num_values, "values"));
  RegionValues values;
  JFT_RETURN_IF_ERROR(reserve(scope, num_values, values));
  region.blocks.resize(num_blocks);
  for (MBlock& block : region.blocks) {
    uint64_t num_ops = 0;
    JFT_RETURN_IF_ERROR(readBlockHeader(in, scope, values, block, num_ops));
    block.ops.resize(num_ops);
    for (MOp& op : block.ops)
      JFT_RETURN_IF_ERROR(readOp(in, scope, values, region.blocks.size(), op, depth));
  }
  return release(in, scope, values);
}

Status IrReader::readOpRegions(Cursor& in, Scope& scope, bool isolated, MOp& op,
                               int depth) {
  if (!isolated) {
    for (MRegion& region : op.regions)
      JFT_RETURN_IF_ERROR(readRegion(in, scope, region, depth + 1));
    return Status::ok();
  }
  Scope inner;
  if (version_ < kLazyLoading) {
    for (MRegion& region : op.regions)
      JFT_RETURN_IF_ERROR(readRegion(in, inner, region, depth + 1));
    return Status::ok();
  }
  // From version 2 on, isolated regions sit in their own IR section so that
  // a reader may load them lazily.
  size_t at = in.fileOffset();
  unsigned id = 0;
  Cursor body(nullptr, 0, 0, "");
  JFT_RETURN_IF_ERROR(readSection(in, id, body));
  if (id != kIrSection)
    return in.errorAt(at, "expected an IR section for the regions of " + op.name +
                              ", found " + sectionLabel(id));
  for (MRegion& region : op.regions)
    JFT_RETURN_IF_ERROR(readRegion(body, inner, region, depth + 1));
  return Status::ok();
}

// The attribute dictionary, then the properties (from the properties
// section for registered ops, inline for unregistered ones), merged.
Status IrReader::readAttributes(Cursor& in, uint8_t mask, size_t mask_at,
                                const OpNameEntry& name, MOp& op) {
  if (mask & kHasAttrs) {
    size_t at = in.fileOffset();
    MAttrPtr dict;
    JFT_RETURN_IF_ERROR(attrs_.readAttr(in, dict));
    if (dict->kind != MAttr::Kind::Dictionary)
      return in.errorAt(at, "expected an attribute dictionary for " + op.name);
    JFT_RETURN_IF_ERROR(chargeCopies(in, at, dict->entries.size()));
    op.attrs = dict->entries;
  }
  if (mask & kHasProperties) {
    if (!name.was_registered.has_value())
      return in.errorAt(mask_at, "properties need bytecode version 5 or newer");
    if (*name.was_registered) {
      Cursor props(nullptr, 0, 0, "");
      JFT_RETURN_IF_ERROR(properties_.read(in, props));
      Status status = decodeOpProperties(op.name, props, attrs_, op.attrs);
      if (!status.isOk()) return status.withContext("properties of " + op.name);
    } else {
      // Unregistered ops carry their properties as one attribute.
      MAttrPtr props;
      JFT_RETURN_IF_ERROR(attrs_.readAttr(in, props));
      if (props->kind == MAttr::Kind::Dictionary) {
        JFT_RETURN_IF_ERROR(chargeCopies(in, in.fileOffset(), props->entries.size()));
        op.attrs.insert(op.attrs.end(), props->entries.begin(), props->entries.end());
      } else {
        op.attrs.emplace_back("properties", props);
      }
    }
  }
  return Status::ok();
}

Status IrReader::readResultsOperandsSuccessors(Cursor& in, uint8_t mask, Scope& scope,
                                               size_t num_blocks, MOp& op) {
  if (mask & kHasResults) {
    uint64_t n = 0;
    JFT_RETURN_IF_ERROR(in.readCount(n, "results"));
    op.result_types.resize(n);
    for (MTypePtr& type : op.result_types) JFT_RETURN_IF_ERROR(attrs_.readType(in, type));
  }
  if (mask & kHasOperands) {
    uint64_t n = 0;
    JFT_RETURN_IF_ERROR(in.readCount(n, "operands"));
    op.operands.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      size_t at = in.fileOffset();
      uint64_t index = 0;
      JFT_RETURN_IF_ERROR(in.readVarInt(index));
      if (index >= scope.ids.size()) {
        return in.errorAt(at, "expected a value index below " +
                                  std::to_string(scope.ids.size()) + ", found " +
                                  std::to_string(index));
      }
      scope.used[index] = 1;
      op.operands.push_back(scope.ids[index]);
    }
  }
  if (mask & kHasSuccessors) {
    uint64_t n = 0;
    JFT_RETURN_IF_ERROR(in.readCount(n, "successors"));
    for (uint64_t i = 0; i < n; ++i) {
      size_t at = in.fileOffset();
      uint64_t block = 0;
      JFT_RETURN_IF_ERROR(in.readVarInt(block));
      if (block >= num_blocks) {
        return in.errorAt(at, "expected a successor block below " +
                                  std::to_string(num_blocks) + ", found " +
                                  std::to_string(block));
      }
      op.successors.push_back(static_cast<uint32_t>(block));
    }
  }
  return Status::ok();
}

Status IrReader::readOp(Cursor& in, Scope& scope, RegionValues& values, size_t num_blocks,
                        MOp& op, int depth) {
  size_t name_at = in.fileOffset();
  uint64_t name_index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(name_index));
  if (name_index >= dialects_.ops.size()) {
    return in.errorAt(name_at, "expected an op name index below " +
                                   std::to_string(dialects_.ops.size()) + ", found " +
                                   std::to_string(name_index));
  }
  const OpNameEntry& name = dialects_.ops[name_index];
  op.name = name.full_name;

  size_t mask_at = in.fileOffset();
  uint8_t mask = 0;
  JFT_RETURN_IF_ERROR(in.readByte(mask));
  if (mask & 0x80) return in.errorAt(mask_at, "expected an op encoding mask below 0x80");

  size_t loc_at = in.fileOffset();
  JFT_RETURN_IF_ERROR(attrs_.readAttr(in, op.loc));
  if (op.loc->kind != MAttr::Kind::Location)
    return in.errorAt(loc_at, "expected a location for " + op.name);

  JFT_RETURN_IF_ERROR(readAttributes(in, mask, mask_at, name, op));
  JFT_RETURN_IF_ERROR(readResultsOperandsSuccessors(in, mask, scope, num_blocks, op));
  if (version_ >= kUseListOrdering && (mask & kHasUseListOrders))
    JFT_RETURN_IF_ERROR(readUseListOrders(in, op.result_types.size(), false));

  uint64_t num_regions = 0;
  bool isolated = false;
  if (mask & kHasInlineRegions) {
    size_t at = in.fileOffset();
    JFT_RETURN_IF_ERROR(in.readVarIntWithFlag(num_regions, isolated));
    if (num_regions > in.remaining())
      return in.errorAt(at,
                        "expected a region count that fits the remaining bytes, found " +
                            std::to_string(num_regions));
  }

  // Results are numbered before the op's regions are read. A region that
  // reserved no values (the top level) gives its ops' results fresh ids.
  if (values.count > 0) {
    JFT_RETURN_IF_ERROR(
        defineValues(in, scope, values, op.result_types.size(), op.results));
  } else {
    for (size_t i = 0; i < op.result_types.size(); ++i) op.results.push_back(freshId());
  }
  if (num_regions == 0) return Status::ok();
  op.regions.resize(num_regions);
  return readOpRegions(in, scope, isolated, op, depth);
}

Status IrReader::readTop(Cursor& in) {
  // The top level is one block of a region that reserves no values.
  Scope scope;
  RegionValues values;
  MBlock block;
  uint64_t num_ops = 0;
  JFT_RETURN_IF_ERROR(readBlockHeader(in, scope, values, block, num_ops));
  block.ops.resize(num_ops);
  for (MOp& op : block.ops) JFT_RETURN_IF_ERROR(readOp(in, scope, values, 1, op, 0));
  tree_.top = std::move(block.ops);
  return Status::ok();
}

}  // namespace

Status readIrSection(Cursor section, uint64_t version, const DialectTable& dialects,
                     AttrTypeTable& attrs, const PropertiesTable& properties,
                     MTree& tree) {
  IrReader reader(version, dialects, attrs, properties, tree);
  return reader.readTop(section);
}

}  // namespace jft::frontend::bytecode
