#include "ir/builder.h"

#include <cstring>

#include "support/status.h"

namespace jft::ir {

std::vector<ValueId> Builder::beginFunction(std::string name,
                                            const std::vector<Type>& arg_types,
                                            std::vector<Type> result_types,
                                            bool is_public) {
  JFT_CHECK(function_index_ < 0, "beginFunction inside another function");
  Function function;
  function.name = std::move(name);
  function.is_public = is_public;
  function.result_types = std::move(result_types);
  function.arg_attrs.resize(arg_types.size());
  function.result_attrs.resize(function.result_types.size());
  function.loc = loc_;
  module_.functions.push_back(std::move(function));
  function_index_ = static_cast<int>(module_.functions.size()) - 1;
  return beginRegion(arg_types);
}

Function& Builder::endFunction() {
  JFT_CHECK(function_index_ >= 0 && open_.size() == 1, "endFunction without its body");
  Function& function = module_.functions[function_index_];
  function.body = endRegion();
  function_index_ = -1;
  return function;
}

std::vector<ValueId> Builder::beginRegion(const std::vector<Type>& arg_types) {
  Region region;
  for (const Type& type : arg_types) region.args.push_back(module_.newValue(type));
  open_.push_back(std::move(region));
  return open_.back().args;
}

Region Builder::endRegion() {
  JFT_CHECK(!open_.empty(), "endRegion without beginRegion");
  Region region = std::move(open_.back());
  open_.pop_back();
  return region;
}

LocId Builder::fileLoc(std::string file, int64_t line, int64_t col) {
  Location loc;
  loc.kind = Location::Kind::File;
  loc.text = std::move(file);
  loc.line = line;
  loc.col = col;
  return module_.locations.add(std::move(loc));
}

std::vector<ValueId> Builder::op(OpKind kind, std::vector<ValueId> operands,
                                 const std::vector<Type>& result_types, NamedAttrs attrs,
                                 std::vector<Region> regions) {
  JFT_CHECK(!open_.empty(), "op outside any function or region");
  Op op;
  op.kind = kind;
  op.operands = std::move(operands);
  for (const Type& type : result_types) op.results.push_back(module_.newValue(type));
  op.attrs = std::move(attrs);
  op.regions = std::move(regions);
  op.loc = loc_;
  open_.back().ops.push_back(std::move(op));
  return open_.back().ops.back().results;
}

ValueId Builder::op1(OpKind kind, std::vector<ValueId> operands, const Type& result_type,
                     NamedAttrs attrs, std::vector<Region> regions) {
  return op(kind, std::move(operands), {result_type}, std::move(attrs),
            std::move(regions))
      .front();
}

Op& Builder::lastOp() {
  JFT_CHECK(!open_.empty() && !open_.back().ops.empty(), "no op built yet");
  return open_.back().ops.back();
}

ValueId Builder::constant(DenseElements value) {
  Type type = value.type;
  return op1(OpKind::Constant, {}, type, {{"value", std::move(value)}});
}

void Builder::ret(std::vector<ValueId> values) {
  op(OpKind::Return, std::move(values), {});
}

namespace {

uint64_t encodeValue(ElementType element, double value) {
  if (element == ElementType::F64) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
  }
  if (element == ElementType::F32) {
    float narrow = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &narrow, sizeof bits);
    return bits;
  }
  if (isPred(element)) return value != 0 ? 1 : 0;
  JFT_CHECK(isInteger(element),
            "denseFromValues needs f32, f64, integer or pred elements");
  return static_cast<uint64_t>(static_cast<int64_t>(value));
}

}  // namespace

DenseElements denseFromValues(const Type& type, const std::vector<double>& values) {
  std::vector<uint64_t> bits;
  for (double value : values) bits.push_back(encodeValue(type.element, value));
  return denseFromBits(type, bits);
}

DenseElements denseFromBits(const Type& type, const std::vector<uint64_t>& bits) {
  DenseElements dense;
  dense.type = type;
  const ElementType component = complexComponent(type.element);
  const int64_t size = storageBytes(component);
  for (uint64_t value : bits) appendLittleEndian(dense.bytes, value, size);
  JFT_CHECK(static_cast<int64_t>(dense.bytes.size()) == type.byteSize(),
            "dense literal has " + std::to_string(bits.size()) + " encodings for " +
                type.str());
  return dense;
}

}  // namespace jft::ir
