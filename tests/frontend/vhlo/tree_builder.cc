#include "tree_builder.h"

namespace jft::frontend::vhlo_test {
namespace {

std::shared_ptr<MType> newType(MType::Kind kind) {
  auto t = std::make_shared<MType>();
  t->kind = kind;
  t->dialect = "vhlo";
  return t;
}

std::shared_ptr<MAttr> newAttr(MAttr::Kind kind) {
  auto a = std::make_shared<MAttr>();
  a->kind = kind;
  a->dialect = "vhlo";
  return a;
}

std::vector<uint8_t> littleEndian(const std::vector<int64_t>& values) {
  std::vector<uint8_t> out;
  for (int64_t v : values)
    for (int i = 0; i < 8; ++i)
      out.push_back(static_cast<uint8_t>(uint64_t(v) >> (8 * i)));
  return out;
}

}  // namespace

MTypePtr floatType(const std::string& name) {
  auto t = newType(MType::Kind::Float);
  t->float_name = name;
  return t;
}
MTypePtr f32() {
  return floatType("f32");
}
MTypePtr f32s(std::vector<int64_t> shape) {
  return tensor(std::move(shape), f32());
}
MTypePtr intType(unsigned width, MType::Signedness sign) {
  auto t = newType(MType::Kind::Integer);
  t->width = width;
  t->signedness = sign;
  return t;
}
MTypePtr indexType() {
  return newType(MType::Kind::Index);
}
MTypePtr noneType() {
  return newType(MType::Kind::None);
}
MTypePtr complexOf(MTypePtr part) {
  auto t = newType(MType::Kind::Complex);
  t->elements = {std::move(part)};
  return t;
}
MTypePtr tensor(std::vector<int64_t> shape, MTypePtr element) {
  auto t = newType(MType::Kind::RankedTensor);
  t->shape = std::move(shape);
  t->elements = {std::move(element)};
  return t;
}
MTypePtr unranked(MTypePtr element) {
  auto t = newType(MType::Kind::UnrankedTensor);
  t->elements = {std::move(element)};
  return t;
}
MTypePtr tuple(std::vector<MTypePtr> elements) {
  auto t = newType(MType::Kind::Tuple);
  t->elements = std::move(elements);
  return t;
}
MTypePtr token() {
  return newType(MType::Kind::Token);
}
MTypePtr quantized(const std::string& text) {
  auto t = newType(MType::Kind::Quantized);
  t->text = text;
  t->elements = {intType(8)};
  return t;
}
MTypePtr function(std::vector<MTypePtr> inputs, std::vector<MTypePtr> results) {
  auto t = newType(MType::Kind::Function);
  t->num_inputs = inputs.size();
  t->elements = std::move(inputs);
  t->elements.insert(t->elements.end(), results.begin(), results.end());
  return t;
}

MAttrPtr intAttr(int64_t v, MTypePtr type) {
  auto a = newAttr(MAttr::Kind::Integer);
  a->int_value = v;
  a->type = type ? type : intType(64);
  return a;
}
MAttrPtr boolAttr(bool v) {
  auto a = newAttr(MAttr::Kind::Bool);
  a->int_value = v;
  return a;
}
MAttrPtr floatAttr(double v) {
  auto a = newAttr(MAttr::Kind::Float);
  a->float_value = v;
  a->type = f32();
  return a;
}
MAttrPtr stringAttr(const std::string& s) {
  auto a = newAttr(MAttr::Kind::String);
  a->str = s;
  return a;
}
MAttrPtr symbolRef(const std::string& s) {
  auto a = newAttr(MAttr::Kind::SymbolRef);
  a->dialect = "builtin";
  a->str = s;
  return a;
}
MAttrPtr typeAttr(MTypePtr type) {
  auto a = newAttr(MAttr::Kind::TypeAttr);
  a->type = std::move(type);
  return a;
}
MAttrPtr unitAttr() {
  return newAttr(MAttr::Kind::Unit);
}
MAttrPtr arrayAttr(std::vector<MAttrPtr> elements) {
  auto a = newAttr(MAttr::Kind::Array);
  a->elements = std::move(elements);
  return a;
}
MAttrPtr dictAttr(std::vector<std::pair<std::string, MAttrPtr>> entries) {
  auto a = newAttr(MAttr::Kind::Dictionary);
  a->entries = std::move(entries);
  return a;
}
MAttrPtr enumAttr(const std::string& name, int64_t value) {
  auto a = newAttr(MAttr::Kind::Enum);
  a->name = name;
  a->int_value = value;
  return a;
}
MAttrPtr structAttr(const std::string& name,
                    std::vector<std::pair<std::string, MAttrPtr>> fields) {
  auto a = newAttr(MAttr::Kind::Struct);
  a->name = name;
  a->entries = std::move(fields);
  return a;
}
MAttrPtr intList(std::vector<int64_t> ints) {
  auto a = newAttr(MAttr::Kind::IntList);
  a->ints = std::move(ints);
  return a;
}
MAttrPtr opaqueAttr(const std::string& dialect, const std::string& text) {
  auto a = newAttr(MAttr::Kind::Opaque);
  a->dialect = dialect;
  a->str = text;
  return a;
}
MAttrPtr denseRaw(MTypePtr tensor_type, std::vector<uint8_t> data) {
  auto a = newAttr(MAttr::Kind::DenseElements);
  a->type = std::move(tensor_type);
  a->data = std::move(data);
  return a;
}
MAttrPtr i64s(std::vector<int64_t> values) {
  auto n = static_cast<int64_t>(values.size());
  return denseRaw(tensor({n}, intType(64)), littleEndian(values));
}
MAttrPtr i64Matrix(int64_t rows, int64_t cols, std::vector<int64_t> values) {
  return denseRaw(tensor({rows, cols}, intType(64)), littleEndian(values));
}
MAttrPtr i64Splat(std::vector<int64_t> shape, int64_t value) {
  return denseRaw(tensor(std::move(shape), intType(64)), littleEndian({value}));
}
MAttrPtr precisions(std::vector<int64_t> values) {
  std::vector<MAttrPtr> elements;
  for (int64_t v : values) elements.push_back(enumAttr("vhlo.precision_v1", v));
  return arrayAttr(std::move(elements));
}

MAttrPtr unknownLoc() {
  auto a = newAttr(MAttr::Kind::Location);
  a->dialect = "builtin";
  a->loc_kind = MAttr::LocKind::Unknown;
  return a;
}
MAttrPtr fileLoc(const std::string& file, int64_t line, int64_t col) {
  auto a = newAttr(MAttr::Kind::Location);
  a->dialect = "builtin";
  a->loc_kind = MAttr::LocKind::FileLineCol;
  a->str = file;
  a->ints = {line, col, line, col};
  return a;
}
MAttrPtr nameLoc(const std::string& name, MAttrPtr child) {
  auto a = newAttr(MAttr::Kind::Location);
  a->dialect = "builtin";
  a->loc_kind = MAttr::LocKind::Name;
  a->str = name;
  a->elements = {child ? child : unknownLoc()};
  return a;
}
MAttrPtr callSiteLoc(MAttrPtr callee, MAttrPtr caller) {
  auto a = newAttr(MAttr::Kind::Location);
  a->dialect = "builtin";
  a->loc_kind = MAttr::LocKind::CallSite;
  a->elements = {std::move(callee), std::move(caller)};
  return a;
}
MAttrPtr fusedLoc(std::vector<MAttrPtr> locs) {
  auto a = newAttr(MAttr::Kind::Location);
  a->dialect = "builtin";
  a->loc_kind = MAttr::LocKind::Fused;
  a->elements = std::move(locs);
  return a;
}

MOp TreeBuilder::op(const std::string& name, std::vector<uint32_t> operands,
                    std::vector<MTypePtr> result_types,
                    std::vector<std::pair<std::string, MAttrPtr>> attrs, MAttrPtr loc) {
  MOp o;
  o.name = name;
  o.loc = loc ? loc : unknownLoc();
  o.operands = std::move(operands);
  for (size_t i = 0; i < result_types.size(); ++i) o.results.push_back(newValue());
  o.result_types = std::move(result_types);
  o.attrs = std::move(attrs);
  return o;
}

MTree TreeBuilder::module(std::vector<MOp> functions, const std::string& name) {
  MOp m;
  m.name = "builtin.module";
  m.loc = unknownLoc();
  m.attrs = {{"sym_name", stringAttr(name)},
             {"mhlo.num_partitions", intAttr(1, intType(32))},
             {"mhlo.num_replicas", intAttr(1, intType(32))}};
  MBlock block;
  block.ops = std::move(functions);
  MRegion region;
  region.blocks.push_back(std::move(block));
  m.regions.push_back(std::move(region));
  MTree tree;
  tree.producer = "StableHLO_v1.20.0";
  tree.version = 6;
  tree.top.push_back(std::move(m));
  tree.num_values = next_value_;
  tree.dialects = {"builtin", "vhlo"};
  return tree;
}

}  // namespace jft::frontend::vhlo_test
