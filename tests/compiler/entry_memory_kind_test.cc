// The memory kind a caller keeps each entry value in: JAX writes
// `mhlo.memory_kind` on the entry function's arguments and results when a
// jit's in/out shardings name host memory (memories_test's compute_on and
// host offloading); the executable must say so, or JAX reports an "XLA
// sharding override" and refuses the result.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "compiler/entry_value.h"
#include "ir_shorthands.h"

namespace jft::compiler {
namespace {

using testing::f32;

ir::Module doubling(ir::NamedAttrs argument, ir::NamedAttrs result) {
  ir::Module m;
  ir::Builder b(m);
  std::vector<ir::ValueId> x = b.beginFunction("main", {f32({4})}, {f32({4})});
  ir::ValueId sum = b.op1(ir::OpKind::Add, {x[0], x[0]}, f32({4}));
  b.ret({sum});
  ir::Function& main = b.endFunction();
  main.arg_attrs = {std::move(argument)};
  main.result_attrs = {std::move(result)};
  return m;
}

StatusOr<Executable> compileDoubling(ir::NamedAttrs argument, ir::NamedAttrs result) {
  Options options;
  options.mode = Mode::kFlOnly;
  return compileModule(doubling(std::move(argument), std::move(result)), options,
                       nullptr);
}

TEST(EntryMemoryKind, PinnedHostArgumentsAndResultsAreNamed) {
  StatusOr<Executable> compiled =
      compileDoubling({{"mhlo.memory_kind", std::string("pinned_host")}},
                      {{"mhlo.memory_kind", std::string("pinned_host")}});
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->parameter_memory_kinds, (std::vector<std::string>{"pinned_host"}));
  EXPECT_EQ(compiled->output_memory_kinds, (std::vector<std::string>{"pinned_host"}));
  EXPECT_EQ(entryOutputs(*compiled).at(0).memory_kind, "pinned_host");
  EXPECT_EQ(entryParameters(*compiled).at(0).memory_kind, "pinned_host");
}

TEST(EntryMemoryKind, DeviceIsTheDefaultAndTheOnlyOtherKind) {
  StatusOr<Executable> compiled =
      compileDoubling({}, {{"mhlo.memory_kind", std::string("device")}});
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->parameter_memory_kinds, (std::vector<std::string>{"device"}));
  EXPECT_EQ(compiled->output_memory_kinds, (std::vector<std::string>{"device"}));
  EXPECT_EQ(entryMemoryKind({{"mhlo.memory_kind", std::string("unpinned_host")}}),
            "device");
  EXPECT_EQ(entryMemoryKind({{"mhlo.sharding", std::string("{replicated}")}}), "device");
}

}  // namespace
}  // namespace jft::compiler
