// Collectives through compile() for one participant: a psum program plans
// no collective group (the pass made it a plain value). Several
// participants: collective_route_test.cc.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

// What jax.pmap(lambda x: jnp.exp(jax.lax.psum(x, 'i'))) sends for one
// device (replica_groups [[0]], no channel); with `exp` false, the psum alone.
ir::Module psumProgram(bool exp) {
  ir::Module m;
  m.name = "pmap_psum";
  ir::Builder b(m);
  const Type vector = Type::tensor(ElementType::F32, {4});
  const Type scalar = Type::scalar(ElementType::F32);
  auto x = b.beginFunction("main", {vector}, {vector});
  auto a = b.beginRegion({scalar, scalar});
  b.ret({b.op1(OpKind::Add, {a[0], a[1]}, scalar)});
  std::vector<ir::Region> region;
  region.push_back(b.endRegion());
  ir::NamedAttrs groups = {
      {"replica_groups",
       ir::denseFromValues(Type::tensor(ElementType::I64, {1, 1}), {0})}};
  ValueId sum = b.op1(OpKind::AllReduce, {x[0]}, vector, groups, std::move(region));
  b.ret({exp ? b.op1(OpKind::Exponential, {sum}, vector) : sum});
  b.endFunction();
  return m;
}

void expectNoCollective(const StatusOr<Executable>& compiled, const Stages& stages) {
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  for (const RouteEntry& entry : compiled->report.entries)
    EXPECT_NE(entry.route, "collective") << entry.name << ": " << entry.ops;
  EXPECT_EQ(stages.ir_after_passes.find("all_reduce"), std::string::npos)
      << stages.ir_after_passes;
  EXPECT_EQ(stages.plan.find("collective"), std::string::npos) << stages.plan;
}

TEST(Collectives, PsumOfOneParticipantCompilesWithNoCollectiveLeft) {
  for (Mode mode : {Mode::kFlOnly, Mode::kBackUnsupported}) {
    Options options;
    options.mode = mode;
    Stages stages;
    StatusOr<Executable> compiled =
        compileModule(psumProgram(/*exp=*/true), options, nullptr, &stages);
    expectNoCollective(compiled, stages);
    // The exponential is the one kernel, reading the argument itself.
    EXPECT_EQ(stages.ttir.size(), 1u);
    EXPECT_NE(stages.plan.find("exponential"), std::string::npos) << stages.plan;
  }
}

TEST(Collectives, APsumAloneReturnsItsArgument) {
  Options options;
  options.mode = Mode::kFlOnly;
  Stages stages;
  StatusOr<Executable> compiled =
      compileModule(psumProgram(/*exp=*/false), options, nullptr, &stages);
  expectNoCollective(compiled, stages);
  EXPECT_TRUE(stages.ttir.empty());
}

}  // namespace
}  // namespace jft::compiler
