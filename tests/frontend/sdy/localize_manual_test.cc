// Localizing a fully manual program, on generic trees shaped like what JAX
// 0.11 sends for jax.pmap over two devices: @main's argument cast to a
// builtin type, one sdy.manual_computation over the mesh's only axis whose
// body works at per-device shapes and ends in sdy.return, its result cast
// back and returned. The localized tree must import (the frontend reads it)
// with @main at the per-device types.
#include "frontend/sdy/localize_manual.h"

#include <gtest/gtest.h>

#include "frontend/vhlo/import.h"

namespace jft::frontend::sdy {
namespace {

using frontend::MAttr;
using frontend::MAttrPtr;
using frontend::MOp;
using frontend::MTree;
using frontend::MType;
using frontend::MTypePtr;

MAttrPtr unknownLoc() {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::Location;
  attr->loc_kind = MAttr::LocKind::Unknown;
  return attr;
}

MAttrPtr text(const std::string& dialect, const std::string& str) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::Opaque;
  attr->dialect = dialect;
  attr->str = str;
  return attr;
}

MAttrPtr string(const std::string& str) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::String;
  attr->str = str;
  return attr;
}

MTypePtr tensor(std::vector<int64_t> shape, const std::string& dialect = "vhlo") {
  auto f32 = std::make_shared<MType>();
  f32->kind = MType::Kind::Float;
  f32->dialect = dialect;
  f32->float_name = "f32";
  auto t = std::make_shared<MType>();
  t->kind = MType::Kind::RankedTensor;
  t->dialect = dialect;
  t->shape = std::move(shape);
  t->elements = {f32};
  return t;
}

MOp op(const std::string& name, std::vector<uint32_t> operands,
       std::vector<uint32_t> results, std::vector<MTypePtr> types) {
  MOp o;
  o.name = name;
  o.loc = unknownLoc();
  o.operands = std::move(operands);
  o.results = std::move(results);
  o.result_types = std::move(types);
  return o;
}

MAttrPtr functionType(std::vector<MTypePtr> inputs, std::vector<MTypePtr> results) {
  auto fn = std::make_shared<MType>();
  fn->kind = MType::Kind::Function;
  fn->num_inputs = inputs.size();
  fn->elements = std::move(inputs);
  fn->elements.insert(fn->elements.end(), results.begin(), results.end());
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::TypeAttr;
  attr->type = fn;
  return attr;
}

// Per-value attributes: {sdy.sharding = ..., tf.aliasing_output = 0}.
MAttrPtr argAttrs() {
  auto alias = std::make_shared<MAttr>();
  alias->kind = MAttr::Kind::Integer;
  alias->int_value = 0;
  auto dict = std::make_shared<MAttr>();
  dict->kind = MAttr::Kind::Dictionary;
  dict->entries = {{"sdy.sharding", text("sdy", "#sdy.sharding<@mesh, [{\"i\"}, {}]>")},
                   {"tf.aliasing_output", alias}};
  auto array = std::make_shared<MAttr>();
  array->kind = MAttr::Kind::Array;
  array->elements = {dict};
  return array;
}

// Value ids: 0 @main's argument, 1 its cast, 2 the manual computation's
// result, 3 the body's argument, 4 the body's add, 5 the cast of 2.
MTree pmapLike(const std::string& manualAxes = "#sdy<manual_axes{\"i\"}>") {
  MOp mesh = op("sdy.mesh", {}, {}, {});
  mesh.attrs = {{"sym_name", string("mesh")},
                {"mesh", text("sdy", "#sdy.mesh<[\"i\"=2]>")}};

  MOp manual = op("sdy.manual_computation", {1}, {2}, {tensor({2, 4}, "builtin")});
  manual.attrs = {
      {"in_shardings", text("sdy", "#sdy.sharding_per_value<[<@mesh, [{\"i\"}, {}]>]>")},
      {"out_shardings", text("sdy", "#sdy.sharding_per_value<[<@mesh, [{\"i\"}, {}]>]>")},
      {"manual_axes", text("sdy", manualAxes)}};
  manual.regions.resize(1);
  manual.regions[0].blocks.resize(1);
  frontend::MBlock& inner = manual.regions[0].blocks[0];
  inner.args = {3};
  inner.arg_types = {tensor({1, 4})};
  inner.arg_locs = {unknownLoc()};
  inner.ops = {op("vhlo.add_v1", {3, 3}, {4}, {tensor({1, 4})}),
               op("sdy.return", {4}, {}, {})};

  MOp main = op("vhlo.func_v1", {}, {}, {});
  main.attrs = {{"sym_name", string("main")},
                {"function_type", functionType({tensor({2, 4})}, {tensor({2, 4})})},
                {"arg_attrs", argAttrs()}};
  main.regions.resize(1);
  main.regions[0].blocks.resize(1);
  frontend::MBlock& body = main.regions[0].blocks[0];
  body.args = {0};
  body.arg_types = {tensor({2, 4})};
  body.arg_locs = {unknownLoc()};
  body.ops = {
      op("builtin.unrealized_conversion_cast", {0}, {1}, {tensor({2, 4}, "builtin")}),
      manual, op("builtin.unrealized_conversion_cast", {2}, {5}, {tensor({2, 4})}),
      op("vhlo.return_v1", {5}, {}, {})};

  MOp module = op("builtin.module", {}, {}, {});
  module.attrs = {{"sym_name", string("jit_step")}};
  module.regions.resize(1);
  module.regions[0].blocks.resize(1);
  module.regions[0].blocks[0].ops = {mesh, main};
  MTree tree;
  tree.top = {module};
  tree.num_values = 6;
  return tree;
}

const MOp& mainOf(const MTree& tree) {
  return tree.top[0].regions[0].blocks[0].ops[1];
}

TEST(LocalizeManual, PmapLikeProgramBecomesItsBody) {
  MTree tree = pmapLike();
  std::string whyNot;
  ASSERT_TRUE(localizeFullyManual(tree, whyNot)) << whyNot;
  const MOp& main = mainOf(tree);
  const frontend::MBlock& body = main.regions[0].blocks[0];
  EXPECT_EQ(body.args, (std::vector<uint32_t>{3}));
  ASSERT_EQ(body.ops.size(), 2u);
  EXPECT_EQ(body.ops[0].name, "vhlo.add_v1");
  EXPECT_EQ(body.ops[1].name, "vhlo.return_v1");
  EXPECT_EQ(body.ops[1].operands, (std::vector<uint32_t>{4}));
  const MType& type = *main.attr("function_type")->type;
  ASSERT_EQ(type.elements.size(), 2u);
  EXPECT_EQ(type.num_inputs, 1u);
  EXPECT_EQ(type.elements[0]->shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(type.elements[1]->shape, (std::vector<int64_t>{1, 4}));
  // The sharding goes, donation's alias stays.
  const MAttr& dict = *main.attr("arg_attrs")->elements[0];
  ASSERT_EQ(dict.entries.size(), 1u);
  EXPECT_EQ(dict.entries[0].first, "tf.aliasing_output");

  // The frontend reads the result: @main takes and returns f32[1,4].
  StatusOr<ir::Module> module = frontend::importTree(tree);
  ASSERT_TRUE(module.isOk()) << module.status().toString();
  const ir::Function* imported = nullptr;
  for (const ir::Function& fn : module->functions) {
    if (fn.name == "main") imported = &fn;
  }
  ASSERT_NE(imported, nullptr);
  ASSERT_EQ(imported->result_types.size(), 1u);
  EXPECT_EQ(imported->result_types[0], ir::Type::tensor(ir::ElementType::F32, {1, 4}));
}

TEST(LocalizeManual, WhatAPartitionerWouldHaveToDoIsLeftAlone) {
  std::string whyNot;
  MTree automatic = pmapLike("#sdy<manual_axes{}>");
  EXPECT_FALSE(localizeFullyManual(automatic, whyNot));
  EXPECT_NE(whyNot.find("mesh axis \"i\" is not manual"), std::string::npos) << whyNot;
  EXPECT_EQ(mainOf(automatic).regions[0].blocks[0].ops.size(), 4u);  // untouched

  MTree outside = pmapLike();
  auto& ops = outside.top[0].regions[0].blocks[0].ops[1].regions[0].blocks[0].ops;
  ops.insert(ops.begin(), op("vhlo.negate_v1", {0}, {6}, {tensor({2, 4})}));
  EXPECT_FALSE(localizeFullyManual(outside, whyNot));
  EXPECT_NE(whyNot.find("outside its sdy.manual_computation (vhlo.negate_v1)"),
            std::string::npos)
      << whyNot;

  MTree elsewhere = pmapLike();
  auto& body = elsewhere.top[0].regions[0].blocks[0].ops[1].regions[0].blocks[0];
  body.ops[0].operands = {7};  // the manual computation no longer reads @main's argument
  EXPECT_FALSE(localizeFullyManual(elsewhere, whyNot));
  EXPECT_NE(whyNot.find("argument 0 of @main"), std::string::npos) << whyNot;

  MTree bytesOnly = pmapLike("");
  EXPECT_FALSE(localizeFullyManual(bytesOnly, whyNot));
  EXPECT_NE(whyNot.find("manual_axes"), std::string::npos) << whyNot;
}

}  // namespace
}  // namespace jft::frontend::sdy
