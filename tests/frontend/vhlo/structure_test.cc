// Module structure: module name and attributes, functions (visibility,
// signature, argument/result attributes), regions of control flow and
// reductions, value renumbering, and locations on every op and function.
#include <gtest/gtest.h>

#include "frontend/vhlo/import.h"
#include "import_test_util.h"
#include "tree_builder.h"

namespace jft::frontend::vhlo_test {
namespace {

using ir::OpKind;

TEST(Structure, ModuleNameAttributesAndFunctions) {
  TreeBuilder b;
  MOp helper = b.func(
      "helper", {f32s({4})}, {f32s({4})},
      [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(b.op("vhlo.negate_v1", args, {f32s({4})}));
        ops.push_back(b.ret(ops.back().results));
        return ops;
      },
      "private");
  MOp main =
      b.func("main", {f32s({4})}, {f32s({4})}, [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(
            b.op("vhlo.call_v1", args, {f32s({4})}, {{"callee", stringAttr("helper")}}));
        ops.push_back(b.ret(ops.back().results));
        return ops;
      });
  for (auto& [name, value] : main.attrs) {
    if (name == "arg_attrs")
      value = arrayAttr({dictAttr({{"mhlo.sharding", stringAttr("{replicated}")}})});
    if (name == "res_attrs")
      value = arrayAttr({dictAttr({{"jax.result_info", stringAttr("result")}})});
  }
  std::vector<MOp> fns;
  fns.push_back(std::move(helper));
  fns.push_back(std::move(main));
  MTree tree = b.module(std::move(fns), "jit_two");
  auto m = importTree(tree);
  ASSERT_TRUE(m.isOk()) << m.status().toString();

  EXPECT_EQ(m->name, "jit_two");
  EXPECT_EQ(m->attrs, (ir::NamedAttrs{{"mhlo.num_partitions", ir::Attribute(int64_t{1})},
                                      {"mhlo.num_replicas", ir::Attribute(int64_t{1})}}));
  ASSERT_EQ(m->functions.size(), 2u);
  const ir::Function& h = m->functions[0];
  EXPECT_EQ(h.name, "helper");
  EXPECT_FALSE(h.is_public);
  const ir::Function* entry = m->entry();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name, "main");
  EXPECT_TRUE(entry->is_public);
  EXPECT_EQ(entry->result_types,
            (std::vector<ir::Type>{ir::Type::tensor(ir::ElementType::F32, {4})}));
  ASSERT_EQ(entry->arg_attrs.size(), 1u);
  EXPECT_EQ(
      entry->arg_attrs[0],
      (ir::NamedAttrs{{"mhlo.sharding", ir::Attribute(std::string("{replicated}"))}}));
  EXPECT_EQ(entry->result_attrs[0],
            (ir::NamedAttrs{{"jax.result_info", ir::Attribute(std::string("result"))}}));
  EXPECT_EQ(h.arg_attrs, std::vector<ir::NamedAttrs>(1));

  const ir::Op& call = entry->body.ops[0];
  EXPECT_EQ(call.kind, OpKind::Call);
  EXPECT_EQ(*ir::findAttrAs<ir::SymbolRef>(call.attrs, "callee"),
            ir::SymbolRef{"helper"});
  EXPECT_EQ(call.operands, entry->body.args);
  EXPECT_EQ(entry->body.ops[1].kind, OpKind::Return);
  EXPECT_EQ(entry->body.ops[1].operands, call.results);
}

TEST(Structure, EmptyVisibilityIsPublic) {
  TreeBuilder b;
  std::vector<MOp> fns;
  fns.push_back(b.func(
      "f", {}, {},
      [&](const std::vector<uint32_t>&) {
        std::vector<MOp> ops;
        ops.push_back(b.ret({}));
        return ops;
      },
      ""));
  auto m = importTree(b.module(std::move(fns)));
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  EXPECT_TRUE(m->functions[0].is_public);
}

TEST(Structure, ReduceRegionWhileAndCase) {
  TreeBuilder b;
  MTypePtr scalar = f32s({});
  MTypePtr pred = tensor({}, intType(1));
  MTypePtr i32 = tensor({}, intType(32));
  MTree tree = singleFunction(
      b, {f32s({8, 4}), i32}, {f32s({8})}, [&](const std::vector<uint32_t>& args) {
        std::vector<MOp> ops;
        ops.push_back(b.op("vhlo.constant_v1", {}, {scalar},
                           {{"value", denseRaw(scalar, {0, 0, 0x80, 0xFF})}}));
        uint32_t init = ops.back().results[0];
        MOp reduce = b.op("vhlo.reduce_v1", {args[0], init}, {f32s({8})},
                          {{"dimensions", i64s({1})}});
        reduce.regions.push_back(
            b.region({scalar, scalar}, [&](const std::vector<uint32_t>& a) {
              std::vector<MOp> body;
              body.push_back(b.op("vhlo.maximum_v1", a, {scalar}));
              body.push_back(b.ret(body.back().results));
              return body;
            }));
        ops.push_back(std::move(reduce));
        uint32_t reduced = ops.back().results[0];

        MOp loop = b.op("vhlo.while_v1", {reduced}, {f32s({8})});
        loop.regions.push_back(b.region({f32s({8})}, [&](const std::vector<uint32_t>&) {
          std::vector<MOp> body;
          body.push_back(
              b.op("vhlo.constant_v1", {}, {pred}, {{"value", denseRaw(pred, {0})}}));
          body.push_back(b.ret(body.back().results));
          return body;
        }));
        loop.regions.push_back(b.region({f32s({8})}, [&](const std::vector<uint32_t>& a) {
          std::vector<MOp> body;
          // Captures `reduced` from the enclosing function body.
          body.push_back(b.op("vhlo.add_v1", {a[0], reduced}, {f32s({8})}));
          body.push_back(b.ret(body.back().results));
          return body;
        }));
        ops.push_back(std::move(loop));
        uint32_t looped = ops.back().results[0];

        MOp branch = b.op("vhlo.case_v1", {args[1]}, {f32s({8})});
        for (uint32_t v : {reduced, looped})
          branch.regions.push_back(b.region({}, [&](const std::vector<uint32_t>&) {
            std::vector<MOp> body;
            body.push_back(b.ret({v}));
            return body;
          }));
        ops.push_back(std::move(branch));
        return ops;
      });
  auto m = importTree(tree);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const ir::Function& main = *m->findFunction("main");
  ASSERT_EQ(main.body.ops.size(), 5u);

  const ir::Op& reduce = main.body.ops[1];
  EXPECT_EQ(reduce.kind, OpKind::Reduce);
  ASSERT_EQ(reduce.regions.size(), 1u);
  const ir::Region& combiner = reduce.regions[0];
  ASSERT_EQ(combiner.args.size(), 2u);
  EXPECT_EQ(m->typeOf(combiner.args[0]), ir::Type::scalar(ir::ElementType::F32));
  ASSERT_EQ(combiner.ops.size(), 2u);
  EXPECT_EQ(combiner.ops[0].kind, OpKind::Maximum);
  EXPECT_EQ(combiner.ops[0].operands, combiner.args);
  EXPECT_EQ(combiner.ops[1].kind, OpKind::Return);
  // -inf constant: 0xFF800000.
  const auto* init = ir::findAttrAs<ir::DenseElements>(main.body.ops[0].attrs, "value");
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init->bytes, (std::vector<uint8_t>{0, 0, 0x80, 0xFF}));

  const ir::Op& loop = main.body.ops[2];
  EXPECT_EQ(loop.kind, OpKind::While);
  ASSERT_EQ(loop.regions.size(), 2u);
  EXPECT_EQ(loop.regions[1].ops[0].operands[1], reduce.results[0]);

  const ir::Op& branch = main.body.ops[3];
  EXPECT_EQ(branch.kind, OpKind::Case);
  ASSERT_EQ(branch.regions.size(), 2u);
  EXPECT_TRUE(branch.regions[0].args.empty());
  EXPECT_EQ(branch.regions[1].ops[0].operands[0], loop.results[0]);

  // One ir value per tree value: 2 arguments, constant, 2 combiner
  // arguments, maximum, reduce, cond argument, cond constant, body argument,
  // add, while, case.
  EXPECT_EQ(m->numValues(), 13u);
}

TEST(Structure, LocationsOnOpsAndFunctions) {
  TreeBuilder b;
  MAttrPtr file = fileLoc("zoo.py", 17, 20);
  MAttrPtr op_loc = nameLoc(
      "jit(smoke)/mul",
      callSiteLoc(nameLoc("smoke", file), nameLoc("<module>", fileLoc("main.py", 1, 2))));
  MTree tree =
      singleFunction(b, {f32s({4})}, {f32s({4})}, [&](const std::vector<uint32_t>& a) {
        std::vector<MOp> ops;
        ops.push_back(b.op("vhlo.multiply_v1", {a[0], a[0]}, {f32s({4})}, {}, op_loc));
        ops.push_back(
            b.op("vhlo.negate_v1", ops.back().results, {f32s({4})}, {}, op_loc));
        ops.push_back(b.op("vhlo.abs_v1", ops.back().results, {f32s({4})}, {},
                           fusedLoc({unknownLoc(), file})));
        return ops;
      });
  tree.top[0].regions[0].blocks[0].ops[0].loc = fileLoc("zoo.py", 16, 1);
  auto m = importTree(tree);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const ir::Function& main = *m->findFunction("main");
  const ir::LocationTable& locs = m->locations;

  auto frame = locs.userFrame(main.loc);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->line, 16);

  const ir::Op& mul = main.body.ops[0];
  EXPECT_EQ(locs.describe(mul.loc), "zoo.py:17:20 (jit(smoke)/mul)");
  const ir::Location& name = locs.get(mul.loc);
  EXPECT_EQ(name.kind, ir::Location::Kind::Name);
  ASSERT_EQ(name.children.size(), 1u);
  const ir::Location& call = locs.get(name.children[0]);
  EXPECT_EQ(call.kind, ir::Location::Kind::CallSite);
  ASSERT_EQ(call.children.size(), 2u);
  EXPECT_EQ(locs.describe(call.children[1]), "main.py:1:2 (<module>)");
  // The same tree location is one table entry.
  EXPECT_EQ(main.body.ops[1].loc, mul.loc);

  const ir::Location& fused = locs.get(main.body.ops[2].loc);
  EXPECT_EQ(fused.kind, ir::Location::Kind::Fused);
  EXPECT_EQ(locs.describe(main.body.ops[2].loc), "zoo.py:17:20");
  EXPECT_EQ(main.body.ops[3].loc, ir::kUnknownLoc);
}

TEST(Structure, ForeignModuleLevelOpsAreKeptAsModuleAttributes) {
  TreeBuilder b;
  std::vector<MOp> fns;
  MOp mesh;
  mesh.name = "sdy.mesh";
  mesh.loc = unknownLoc();
  mesh.attrs = {{"sym_name", stringAttr("mesh")},
                {"mesh", opaqueAttr("sdy", "#sdy.mesh<[\"x\"=2]>")}};
  fns.push_back(std::move(mesh));
  auto m = importTree(b.module(std::move(fns)));
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const auto* kept = ir::findAttrAs<ir::NamedAttrs>(m->attrs, "sdy.mesh");
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->size(), 2u);
  EXPECT_TRUE(m->functions.empty());
}

TEST(Structure, ForeignModuleLevelOpsWithABodyAreUnsupported) {
  TreeBuilder b;
  std::vector<MOp> fns;
  MOp f = b.func("main", {}, {}, [&](const std::vector<uint32_t>&) {
    std::vector<MOp> ops;
    ops.push_back(b.ret({}));
    return ops;
  });
  f.name = "func.func";
  f.loc = fileLoc("m.py", 4, 1);
  fns.push_back(std::move(f));
  auto m = importTree(b.module(std::move(fns)));
  EXPECT_EQ(m.status().code(), StatusCode::kUnimplemented);
  EXPECT_EQ(m.status().message(), "func.func is not supported (at m.py:4:1)");
}

// What JAX sends for an eager jax.random call: the Shardy constraint wrapped in
// the casts VHLO serialization puts around foreign ops. On one device each is
// the identity, so the negate reads the argument itself.
TEST(Structure, ShardingConstraintsAndTheirCastsForwardTheirOperand) {
  TreeBuilder b;
  MTree tree = singleFunction(b, {f32s({4})}, {f32s({4})}, [&](const auto& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("builtin.unrealized_conversion_cast", args, {f32s({4})}));
    ops.push_back(b.op("sdy.sharding_constraint", ops.back().results, {f32s({4})},
                       {{"sharding", opaqueAttr("sdy", "#sdy.sharding<@mesh, [{}]>")}}));
    ops.push_back(
        b.op("builtin.unrealized_conversion_cast", ops.back().results, {f32s({4})}));
    ops.push_back(b.op("vhlo.negate_v1", ops.back().results, {f32s({4})}));
    return ops;
  });
  auto m = importTree(tree);
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  const ir::Function& main = m->functions[0];
  ASSERT_EQ(main.body.ops.size(), 2u);
  EXPECT_EQ(main.body.ops[0].kind, OpKind::Negate);
  EXPECT_EQ(main.body.ops[0].operands, main.body.args);
}

TEST(Structure, ACastThatChangesTheTypeIsUnsupported) {
  TreeBuilder b;
  MTree tree = singleFunction(b, {f32s({4})}, {f32s({2, 2})}, [&](const auto& args) {
    std::vector<MOp> ops;
    ops.push_back(b.op("builtin.unrealized_conversion_cast", args, {f32s({2, 2})}, {},
                       fileLoc("k.py", 3, 7)));
    return ops;
  });
  auto m = importTree(tree);
  EXPECT_EQ(m.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(m.status().message().find("changes the type from tensor<4xf32> to "
                                      "tensor<2x2xf32>"),
            std::string::npos)
      << m.status().message();
  EXPECT_NE(m.status().message().find("k.py:3:7"), std::string::npos);
}

}  // namespace
}  // namespace jft::frontend::vhlo_test
