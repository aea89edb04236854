// Hand-built generic trees for the importer's tests: types, attributes,
// locations and a small builder for modules, functions and ops, spelled the
// way the bytecode reader documents them (frontend/bytecode/reader.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "frontend/mlir_tree.h"

namespace jft::frontend::vhlo_test {

// Types.
MTypePtr f32();
MTypePtr floatType(const std::string& name);
MTypePtr intType(unsigned width, MType::Signedness sign = MType::Signedness::Signless);
MTypePtr indexType();
MTypePtr noneType();
MTypePtr complexOf(MTypePtr part);
MTypePtr tensor(std::vector<int64_t> shape, MTypePtr element);
MTypePtr f32s(std::vector<int64_t> shape);  // tensor(shape, f32())
MTypePtr unranked(MTypePtr element);
MTypePtr tuple(std::vector<MTypePtr> elements);
MTypePtr token();
MTypePtr quantized(const std::string& text);
MTypePtr function(std::vector<MTypePtr> inputs, std::vector<MTypePtr> results);

// Attributes.
MAttrPtr intAttr(int64_t v, MTypePtr type = nullptr);
MAttrPtr boolAttr(bool v);
MAttrPtr floatAttr(double v);
MAttrPtr stringAttr(const std::string& s);
MAttrPtr symbolRef(const std::string& s);
MAttrPtr typeAttr(MTypePtr type);
MAttrPtr unitAttr();
MAttrPtr arrayAttr(std::vector<MAttrPtr> elements);
MAttrPtr dictAttr(std::vector<std::pair<std::string, MAttrPtr>> entries);
MAttrPtr enumAttr(const std::string& name, int64_t value);
MAttrPtr structAttr(const std::string& name,
                    std::vector<std::pair<std::string, MAttrPtr>> fields);
MAttrPtr intList(std::vector<int64_t> ints);
MAttrPtr opaqueAttr(const std::string& dialect, const std::string& text);
// A dense tensor with raw storage bytes as given.
MAttrPtr denseRaw(MTypePtr tensor_type, std::vector<uint8_t> data);
// An i64 tensor<Nxi64> of the values (the VHLO form of dimension lists).
MAttrPtr i64s(std::vector<int64_t> values);
// tensor<RxCxi64> of the values (padding, replica groups).
MAttrPtr i64Matrix(int64_t rows, int64_t cols, std::vector<int64_t> values);
// i64 splat: storage holds one element.
MAttrPtr i64Splat(std::vector<int64_t> shape, int64_t value);
MAttrPtr precisions(std::vector<int64_t> values);

// Locations.
MAttrPtr unknownLoc();
MAttrPtr fileLoc(const std::string& file, int64_t line, int64_t col);
MAttrPtr nameLoc(const std::string& name, MAttrPtr child);
MAttrPtr callSiteLoc(MAttrPtr callee, MAttrPtr caller);
MAttrPtr fusedLoc(std::vector<MAttrPtr> locs);

// Builds one builtin.module holding functions; value ids are handed out in
// order of creation.
class TreeBuilder {
 public:
  uint32_t newValue() { return next_value_++; }

  // An op with fresh result values of the given types.
  MOp op(const std::string& name, std::vector<uint32_t> operands,
         std::vector<MTypePtr> result_types,
         std::vector<std::pair<std::string, MAttrPtr>> attrs = {},
         MAttrPtr loc = nullptr);

  // A single-block region with fresh arguments; `fill` gets the argument ids
  // and returns the ops.
  template <typename Fill>
  MRegion region(std::vector<MTypePtr> arg_types, Fill fill) {
    MBlock block;
    for (const MTypePtr& t : arg_types) {
      block.args.push_back(newValue());
      block.arg_types.push_back(t);
      block.arg_locs.push_back(unknownLoc());
    }
    block.ops = fill(block.args);
    MRegion region;
    region.blocks.push_back(std::move(block));
    return region;
  }

  MOp ret(std::vector<uint32_t> operands) { return op("vhlo.return_v1", operands, {}); }

  // A vhlo.func_v1 named `name`; `fill` gets the argument ids.
  template <typename Fill>
  MOp func(const std::string& name, std::vector<MTypePtr> inputs,
           std::vector<MTypePtr> results, Fill fill,
           const std::string& visibility = "public") {
    MOp f;
    f.name = "vhlo.func_v1";
    f.loc = unknownLoc();
    f.attrs = {{"arg_attrs", arrayAttr({})},
               {"function_type", typeAttr(function(inputs, results))},
               {"res_attrs", arrayAttr({})},
               {"sym_name", stringAttr(name)},
               {"sym_visibility", stringAttr(visibility)}};
    f.regions.push_back(region(inputs, fill));
    return f;
  }

  // The tree: one builtin.module @name over `functions`.
  MTree module(std::vector<MOp> functions, const std::string& name = "jit_test");

 private:
  uint32_t next_value_ = 0;
};

// A module whose public @main(args) returns the results of `ops` built by
// `body` (the last op's results are returned). Handy for one-op tests.
template <typename Body>
MTree singleFunction(TreeBuilder& b, std::vector<MTypePtr> inputs,
                     std::vector<MTypePtr> results, Body body) {
  MOp f = b.func("main", inputs, results, [&](const std::vector<uint32_t>& args) {
    std::vector<MOp> ops = body(args);
    std::vector<uint32_t> returned = ops.empty() ? args : ops.back().results;
    ops.push_back(b.ret(returned));
    return ops;
  });
  std::vector<MOp> functions;
  functions.push_back(std::move(f));
  return b.module(std::move(functions));
}

}  // namespace jft::frontend::vhlo_test
