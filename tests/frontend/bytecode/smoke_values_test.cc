// Decoded values of the smoke fixture, checked against what its
// artifact.generic.mlir spells out (constants, block argument location,
// function signature, result attributes, module attributes).
#include <gtest/gtest.h>

#include <cstring>

#include "frontend/bytecode/reader.h"
#include "test_support.h"

namespace jft::frontend {
namespace {

MTree readSmoke() {
  std::vector<uint8_t> bytes =
      bytecode_test::readFileBytes(bytecode_test::fixtureDir() + "/smoke/program.mlirbc");
  StatusOr<MTree> tree = readBytecode(bytes.data(), bytes.size());
  EXPECT_TRUE(tree.isOk()) << tree.status().toString();
  return tree.isOk() ? std::move(tree).value() : MTree();
}

float f32At(const std::vector<uint8_t>& data) {
  float value = 0;
  if (data.size() >= 4) std::memcpy(&value, data.data(), 4);
  return value;
}

TEST(SmokeValues, ModuleAndFunction) {
  MTree tree = readSmoke();
  ASSERT_EQ(tree.top.size(), 1u);
  const MOp& module = tree.top[0];
  EXPECT_EQ(module.name, "builtin.module");
  // "builtin.module"() <{sym_name = "jit_smoke"}> ({...}) {mhlo.num_partitions = 1 : i32,
  // ...}
  ASSERT_NE(module.attr("sym_name"), nullptr);
  EXPECT_EQ(module.attr("sym_name")->str, "jit_smoke");
  const MAttr* partitions = module.attr("mhlo.num_partitions");
  ASSERT_NE(partitions, nullptr);
  EXPECT_EQ(partitions->kind, MAttr::Kind::Integer);
  EXPECT_EQ(partitions->int_value, 1);
  ASSERT_NE(partitions->type, nullptr);
  EXPECT_EQ(partitions->type->width, 32u);
  EXPECT_EQ(module.loc->loc_kind, MAttr::LocKind::Unknown);

  ASSERT_EQ(module.regions.size(), 1u);
  ASSERT_EQ(module.regions[0].blocks.size(), 1u);
  ASSERT_EQ(module.regions[0].blocks[0].ops.size(), 1u);
  const MOp& func = module.regions[0].blocks[0].ops[0];
  EXPECT_EQ(func.name, "vhlo.func_v1");
  EXPECT_EQ(func.attr("sym_name")->str, "main");
  EXPECT_EQ(func.attr("sym_visibility")->str, "public");
  // function_type = (tensor<256xf32>) -> tensor<256xf32>
  const MAttr* type = func.attr("function_type");
  ASSERT_NE(type, nullptr);
  ASSERT_EQ(type->kind, MAttr::Kind::TypeAttr);
  ASSERT_EQ(type->type->kind, MType::Kind::Function);
  EXPECT_EQ(type->type->num_inputs, 1u);
  ASSERT_EQ(type->type->elements.size(), 2u);
  const MType& input = *type->type->elements[0];
  EXPECT_EQ(input.kind, MType::Kind::RankedTensor);
  EXPECT_EQ(input.shape, std::vector<int64_t>{256});
  EXPECT_EQ(input.elements[0]->float_name, "f32");
  // res_attrs = [{jax.result_info = "result"}]
  const MAttr* res_attrs = func.attr("res_attrs");
  ASSERT_NE(res_attrs, nullptr);
  ASSERT_EQ(res_attrs->elements.size(), 1u);
  ASSERT_NE(res_attrs->elements[0]->get("jax.result_info"), nullptr);
  EXPECT_EQ(res_attrs->elements[0]->get("jax.result_info")->str, "result");
}

TEST(SmokeValues, BodyConstantsAndLocations) {
  MTree tree = readSmoke();
  ASSERT_EQ(tree.top.size(), 1u);
  const MOp& func = tree.top[0].regions[0].blocks[0].ops[0];
  const MBlock& body = func.regions.at(0).blocks.at(0);
  // ^bb0(%arg0: tensor<256xf32> loc("x"))
  ASSERT_EQ(body.args.size(), 1u);
  EXPECT_EQ(body.arg_locs[0]->loc_kind, MAttr::LocKind::Name);
  EXPECT_EQ(body.arg_locs[0]->str, "x");
  ASSERT_EQ(body.ops.size(), 8u);
  // %0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
  // %1 = stablehlo.constant dense<1.250000e+00> : tensor<f32>
  const MAttr* c0 = body.ops[0].attr("value");
  const MAttr* c1 = body.ops[1].attr("value");
  ASSERT_NE(c0, nullptr);
  ASSERT_NE(c1, nullptr);
  EXPECT_EQ(c0->kind, MAttr::Kind::DenseElements);
  EXPECT_TRUE(c0->type->shape.empty());
  EXPECT_EQ(f32At(c0->data), 0.5f);
  EXPECT_EQ(f32At(c1->data), 1.25f);
  // %3 = stablehlo.multiply(%arg0, %2)
  EXPECT_EQ(body.ops[3].name, "vhlo.multiply_v1");
  ASSERT_EQ(body.ops[3].operands.size(), 2u);
  EXPECT_EQ(body.ops[3].operands[0], body.args[0]);
  EXPECT_EQ(body.ops[3].operands[1], body.ops[2].results[0]);
  // loc("jit(smoke)/mul"(callsite("smoke"("zoo.py":17:20 to :28) at ...)))
  const MAttr& loc = *body.ops[3].loc;
  EXPECT_EQ(loc.loc_kind, MAttr::LocKind::Name);
  EXPECT_EQ(loc.str, "jit(smoke)/mul");
  const MAttr& callsite = *loc.elements.at(0);
  EXPECT_EQ(callsite.loc_kind, MAttr::LocKind::CallSite);
  const MAttr& file = *callsite.elements.at(0)->elements.at(0);
  EXPECT_EQ(file.loc_kind, MAttr::LocKind::FileLineCol);
  EXPECT_EQ(file.str, "zoo.py");
  EXPECT_EQ(file.ints, (std::vector<int64_t>{17, 20, 17, 28}));
  // tanh carries the default result accuracy of StableHLO >= 1.10.
  const MAttr* accuracy = body.ops[6].attr("result_accuracy");
  ASSERT_NE(accuracy, nullptr);
  EXPECT_EQ(accuracy->kind, MAttr::Kind::Struct);
  EXPECT_EQ(accuracy->name, "vhlo.result_accuracy_v1");
  ASSERT_NE(accuracy->get("mode"), nullptr);
  EXPECT_EQ(accuracy->get("mode")->str, "DEFAULT");
}

}  // namespace
}  // namespace jft::frontend
