// Pallas Triton kernels: the backend_config of @__gpu$xla.gpu.triton decoded
// as jax 0.11's pallas_call_registration.py writes it (a dictionary: name, ir
// as MLIR bytecode, num_warps, num_stages, grid_x/y/z, debug, optional
// serialized_metadata), malformed ones refused with the op's line, and the
// call planned as a TTIR group of its own that nothing joins.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion/fusion.h"
#include "fusion/op_route.h"
#include "fusion/pallas_call.h"
#include "fusion_test_util.h"

namespace jft::fusion {
namespace {

using namespace testing;

const std::string kBytecode = std::string("ML\xEFR", 4) + std::string("\x00\x05tt", 4);

ir::NamedAttrs goodConfig() {
  return {{"name", std::string("add_kernel")},
          {"ir", kBytecode},
          {"num_stages", int64_t{3}},
          {"num_warps", int64_t{4}},
          {"grid_x", int64_t{8}},
          {"grid_y", int64_t{2}},
          {"grid_z", int64_t{1}},
          {"debug", false},
          {"serialized_metadata", std::string("{}")}};
}

ir::NamedAttrs callAttrs(ir::NamedAttrs config,
                         std::vector<ir::OutputOperandAlias> aliases = {}) {
  ir::NamedAttrs attrs = {{"call_target_name", std::string(kPallasTritonTarget)},
                          {"api_version", int64_t{4}},
                          {"backend_config", std::move(config)}};
  if (!aliases.empty()) attrs.push_back({"output_operand_aliases", std::move(aliases)});
  return attrs;
}

// exp(x) and a splat 2 into a Pallas kernel with two results; its first
// result feeds an add, the second is unused.
struct PallasProgram {
  ir::Module m;
  size_t exp_op = 0, splat_op = 0, call_op = 0, add_op = 0;
  explicit PallasProgram(ir::NamedAttrs attrs) {
    ir::Builder b(m);
    auto x = b.beginFunction("main", {f32({16})}, {f32({16})});
    b.setLoc(b.fileLoc("model.py", 12, 4));
    ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({16}));
    ValueId two = splat(b, f32({16}), 2.0);
    auto r = b.op(OpKind::CustomCall, {e, two}, {f32({16}), f32({16})}, std::move(attrs));
    ValueId sum = b.op1(OpKind::Add, {r[0], x[0]}, f32({16}));
    b.ret({sum});
    b.endFunction();
    const ir::Function& f = *m.findFunction("main");
    exp_op = opOf(f, e);
    splat_op = opOf(f, two);
    call_op = opOf(f, r[0]);
    add_op = opOf(f, sum);
  }
  const ir::Function& f() const { return *m.findFunction("main"); }
  const ir::Op& call() const { return f().body.ops[call_op]; }
};

TEST(PallasConfig, DecodesWhatJaxWrites) {
  PallasProgram p(callAttrs(goodConfig(), {{{1}, 0, {}}}));
  expectVerifies(p.m);
  ASSERT_TRUE(isPallasCall(p.call()));
  StatusOr<PallasCall> call = pallasCallOf(p.m, p.call());
  ASSERT_TRUE(call.isOk()) << call.status().toString();
  EXPECT_EQ(call->name, "add_kernel");
  EXPECT_EQ(call->module, kBytecode);
  EXPECT_TRUE(call->bytecode);
  EXPECT_EQ(call->grid, (std::array<uint32_t, 3>{8, 2, 1}));
  EXPECT_EQ(call->num_warps, 4);
  EXPECT_EQ(call->num_stages, 3);
  EXPECT_FALSE(call->debug);
  ASSERT_EQ(call->aliases.size(), 1u);
  EXPECT_EQ(call->aliases[0].output, 1);
  EXPECT_EQ(call->aliases[0].operand, 0);
}

// Each malformed configuration names the op, its line and the problem.
TEST(PallasConfig, MalformedConfigsAreRefusedWithTheOpAndLine) {
  auto without = [](const char* key) {
    ir::NamedAttrs c = goodConfig();
    std::erase_if(c, [&](const auto& kv) { return kv.first == key; });
    return c;
  };
  auto with = [](const char* key, ir::Attribute value) {
    ir::NamedAttrs c = goodConfig();
    for (auto& kv : c)
      if (kv.first == key) kv.second = value;
    if (ir::findAttr(c, key) == nullptr) c.push_back({key, value});
    return c;
  };
  const std::vector<std::pair<ir::NamedAttrs, std::string>> cases = {
      {without("ir"), "has no string `ir`"},
      {without("name"), "has no string `name`"},
      {without("grid_y"), "has no `grid_y`"},
      {without("num_warps"), "has no `num_warps`"},
      {with("num_warps", int64_t{6}), "not a power of two"},
      {with("num_stages", int64_t{0}), "`num_stages` is 0"},
      {with("grid_x", int64_t{-1}), "`grid_x` is -1"},
      {with("grid_z", int64_t{70000}), "limit of 65535"},
      {with("grid_x", std::string("8")), "`grid_x` is not an integer"},
      {with("debug", int64_t{1}), "`debug` is not a bool"},
      {with("ir", std::string("garbage")), "neither MLIR bytecode nor"},
      {with("zeroed_outputs", std::vector<int64_t>{0}), "unknown key `zeroed_outputs`"},
  };
  for (const auto& [config, expected] : cases) {
    PallasProgram p(callAttrs(config));
    StatusOr<PallasCall> call = pallasCallOf(p.m, p.call());
    ASSERT_FALSE(call.isOk()) << expected;
    EXPECT_EQ(call.status().code(), StatusCode::kInvalidArgument);
    const std::string& message = call.status().message();
    EXPECT_NE(message.find(expected), std::string::npos) << message;
    EXPECT_NE(message.find("custom_call @__gpu$xla.gpu.triton at model.py:12:4"),
              std::string::npos)
        << message;
    // The planner lists it as unsupported with the same reason.
    Plan plan = planFusions(p.m, p.f(), ::jft::codegen::ttir::withTtir());
    ASSERT_EQ(plan.unsupported.size(), 1u) << expected;
    EXPECT_EQ(plan.unsupported[0].op, p.call_op);
    EXPECT_NE(plan.unsupported[0].reason.find(expected), std::string::npos);
  }
  // A string backend_config (api_version < 4) is no dictionary.
  ir::NamedAttrs attrs = callAttrs(goodConfig());
  attrs[2].second = std::string("{name = \"k\"}");
  PallasProgram p(attrs);
  EXPECT_NE(pallasCallOf(p.m, p.call()).status().message().find("not a dictionary"),
            std::string::npos);
  // An alias between values of different types.
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("main", {f32({4}), i32({4})}, {i32({4})});
  auto r = b.op(OpKind::CustomCall, {x[0], x[1]}, {i32({4})},
                callAttrs(goodConfig(), {{{}, 0, {}}}));
  b.ret({r[0]});
  b.endFunction();
  StatusOr<PallasCall> bad = pallasCallOf(m, m.findFunction("main")->body.ops[0]);
  ASSERT_FALSE(bad.isOk());
  EXPECT_NE(bad.status().message().find("joins operand 0"), std::string::npos);
}

TEST(PallasRoute, IsTtirBeforeOtherCustomCalls) {
  PallasProgram p(callAttrs(goodConfig()));
  const OpRoute route = routeOf(p.m, p.call(), ::jft::codegen::ttir::withTtir());
  EXPECT_TRUE(route.supported) << route.reason;
  EXPECT_EQ(route.route, Route::kTtir);
  EXPECT_EQ(std::string(familyName(Family::kPallas)), "pallas");
  // Another target stays unsupported.
  ir::NamedAttrs other = callAttrs(goodConfig());
  other[0].second = std::string("my_triton_kernel");
  PallasProgram q(other);
  EXPECT_FALSE(routeOf(q.m, q.call(), ::jft::codegen::ttir::withTtir()).supported);
}

TEST(PallasRoute, TheCallIsAGroupOfItsOwnWritingEveryResult) {
  PallasProgram p(callAttrs(goodConfig()));
  Plan plan = planFusions(p.m, p.f(), ::jft::codegen::ttir::withTtir());
  EXPECT_TRUE(plan.unsupported.empty());
  const int g = groupOf(plan, p.call_op);
  ASSERT_GE(g, 0) << describePlan(p.m, p.f(), plan);
  const Fusion& group = plan.fusions[static_cast<size_t>(g)];
  EXPECT_EQ(group.route, Route::kTtir);
  EXPECT_EQ(group.family, Family::kPallas);
  EXPECT_EQ(group.ops, (std::vector<size_t>{p.call_op}));
  // Its operands come from buffers: the exp is another group's output and
  // the splat constant is not copied in (the kernel loads a pointer).
  EXPECT_NE(groupOf(plan, p.exp_op), g);
  EXPECT_EQ(groupsOf(plan, p.splat_op).size(), 1u);
  EXPECT_NE(groupOf(plan, p.splat_op), g);
  EXPECT_EQ(group.inputs, p.call().operands);
  // Both results, the unused second one too.
  EXPECT_EQ(group.outputs, p.call().results);
  // The add reading it is a loop group of its own.
  EXPECT_NE(groupOf(plan, p.add_op), g);
  EXPECT_NE(describePlan(p.m, p.f(), plan).find("ttir/pallas"), std::string::npos)
      << describePlan(p.m, p.f(), plan);
}

}  // namespace
}  // namespace jft::fusion
