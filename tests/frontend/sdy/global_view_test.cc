// Spotting JAX's global-view (Shardy) programs among those compiled for
// several partitions, on generic trees shaped like what JAX 0.11 sends: an
// sdy.mesh at module level, sdy.sharding on function arguments (inside
// vhlo.func_v1's arg_attrs), sdy.manual_computation for shard_map.
#include "frontend/sdy/global_view.h"

#include <gtest/gtest.h>

namespace jft::frontend::sdy {
namespace {

using frontend::MAttr;
using frontend::MAttrPtr;
using frontend::MOp;
using frontend::MTree;

MAttrPtr sdyAttr(const std::string& text) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::Opaque;
  attr->dialect = "sdy";
  attr->str = text;
  return attr;
}

MAttrPtr dictionary(std::vector<std::pair<std::string, MAttrPtr>> entries) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::Dictionary;
  attr->entries = std::move(entries);
  return attr;
}

MAttrPtr array(std::vector<MAttrPtr> elements) {
  auto attr = std::make_shared<MAttr>();
  attr->kind = MAttr::Kind::Array;
  attr->elements = std::move(elements);
  return attr;
}

// module { sdy.mesh @mesh = <["x"=2]>; func @main(args with `argSharding`) { body } }
MTree program(MAttrPtr argSharding, std::vector<MOp> body = {}) {
  MOp mesh;
  mesh.name = "sdy.mesh";
  mesh.attrs = {{"mesh", sdyAttr("#sdy.mesh<[\"x\"=2]>")}};
  MOp func;
  func.name = "vhlo.func_v1";
  func.attrs = {{"arg_attrs", array({dictionary({{"sdy.sharding", argSharding}})})}};
  func.regions.resize(1);
  func.regions[0].blocks.resize(1);
  func.regions[0].blocks[0].ops = std::move(body);
  MOp module;
  module.name = "builtin.module";
  module.regions.resize(1);
  module.regions[0].blocks.resize(1);
  module.regions[0].blocks[0].ops = {mesh, func};
  MTree tree;
  tree.top = {module};
  return tree;
}

TEST(GlobalView, ReplicatedValuesMayRunAsTheyAre) {
  EXPECT_TRUE(
      refuseGlobalView(program(sdyAttr("#sdy.sharding<@mesh, [{}, {}]>")), 2).isOk());
}

TEST(GlobalView, AShardedArgumentIsRefusedNamingIt) {
  Status refused =
      refuseGlobalView(program(sdyAttr("#sdy.sharding<@mesh, [{\"x\"}, {}]>")), 2);
  EXPECT_EQ(refused.code(), StatusCode::kUnimplemented);
  const std::string& text = refused.message();
  EXPECT_NE(text.find("global view of a computation over 2 partitions"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("sdy.sharding = #sdy.sharding<@mesh, [{\"x\"}, {}]>"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SPMD partitioner"), std::string::npos) << text;
}

TEST(GlobalView, ShardMapsManualComputationIsRefused) {
  MOp manual;
  manual.name = "sdy.manual_computation";
  manual.regions.resize(1);
  Status refused =
      refuseGlobalView(program(sdyAttr("#sdy.sharding<@mesh, [{}]>"), {manual}), 2);
  EXPECT_EQ(refused.code(), StatusCode::kUnimplemented);
  EXPECT_NE(refused.message().find("1 sdy.manual_computation (shard_map)"),
            std::string::npos)
      << refused.message();
}

TEST(GlobalView, HloShardingStringsAndUnreadableShardyCountToo) {
  auto hlo = std::make_shared<MAttr>();
  hlo->kind = MAttr::Kind::String;
  hlo->str = "{devices=[2,1]<=[2]}";
  MTree tree = program(sdyAttr("#sdy.sharding<@mesh, [{}]>"));
  tree.top[0].regions[0].blocks[0].ops[1].attrs.push_back(
      {"res_attrs", array({dictionary({{"mhlo.sharding", hlo}})})});
  EXPECT_EQ(refuseGlobalView(tree, 2).code(), StatusCode::kUnimplemented);
  auto replicated = std::make_shared<MAttr>(*hlo);
  replicated->str = "{replicated}";
  tree.top[0].regions[0].blocks[0].ops[1].attrs.back().second =
      array({dictionary({{"mhlo.sharding", replicated}})});
  EXPECT_TRUE(refuseGlobalView(tree, 2).isOk());
  // A Shardy sharding held only as encoded bytes: we cannot tell, so refuse.
  EXPECT_EQ(refuseGlobalView(program(sdyAttr("")), 2).code(), StatusCode::kUnimplemented);
}

TEST(GlobalView, AllReplicatedIsCompiledAsItIs) {
  MTree tree = program(sdyAttr("#sdy.sharding<@mesh, [{}, {}]>"));
  MTree before = tree;
  StatusOr<bool> localized = localizeGlobalView(tree, 2);
  ASSERT_TRUE(localized.isOk()) << localized.status().toString();
  EXPECT_FALSE(*localized);
  EXPECT_EQ(tree.top.size(), before.top.size());
  EXPECT_EQ(tree.top[0].regions[0].blocks[0].ops.size(),
            before.top[0].regions[0].blocks[0].ops.size());
}

TEST(GlobalView, NotFullyManualIsRefusedSayingWhy) {
  MTree tree = program(sdyAttr("#sdy.sharding<@mesh, [{\"x\"}]>"));
  StatusOr<bool> localized = localizeGlobalView(tree, 2);
  ASSERT_FALSE(localized.isOk());
  EXPECT_EQ(localized.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(localized.status().message().find("not fully manual"), std::string::npos)
      << localized.status().message();
}

TEST(GlobalView, TheRefusalSaysWhyItWasNotLocalized) {
  Status refused =
      refuseGlobalView(program(sdyAttr("#sdy.sharding<@mesh, [{\"x\"}]>")), 2,
                       "@main computes outside its sdy.manual_computation");
  EXPECT_NE(refused.message().find("not fully manual: @main computes outside"),
            std::string::npos)
      << refused.message();
}

}  // namespace
}  // namespace jft::frontend::sdy
