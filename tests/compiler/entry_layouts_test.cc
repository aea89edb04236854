// Entry layouts (compiler/entry_layouts.h): `mhlo.layout_mode` on the entry
// function's arguments and results, as JAX writes it for a jit's in/out
// Format. The caller's bytes are in the layout's order; the rewritten
// function, evaluated on the host, must read and write them so, and the
// executable must name the layouts (JAX checks them against what it asked).
#include "compiler/entry_layouts.h"

#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "compiler/entry_value.h"
#include "host_eval.h"
#include "ir/verifier.h"
#include "ir_shorthands.h"

namespace jft::compiler {
namespace {

using testing::f32;
using testing::HostEval;
using testing::HostTensor;

ir::NamedAttrs mode(const char* text) {
  return {{"mhlo.layout_mode", std::string(text)}};
}

// main(x) = x + x on f32[dims], its argument and result asking for layouts.
ir::Module doubling(const std::vector<int64_t>& dims, const char* argument,
                    const char* result) {
  ir::Module m;
  ir::Builder b(m);
  std::vector<ir::ValueId> x = b.beginFunction("main", {f32(dims)}, {f32(dims)});
  ir::ValueId sum = b.op1(ir::OpKind::Add, {x[0], x[0]}, f32(dims));
  b.ret({sum});
  ir::Function& main = b.endFunction();
  main.arg_attrs = {mode(argument)};
  main.result_attrs = {mode(result)};
  return m;
}

// The element at row-major `index` of `dims` stored in `minor_to_major`
// order: its position in memory.
int64_t offsetIn(const std::vector<int64_t>& index, const std::vector<int64_t>& dims,
                 const MinorToMajor& minor_to_major) {
  const MinorToMajor order =
      minor_to_major.empty() ? rowMajor(dims.size()) : minor_to_major;
  int64_t offset = 0, stride = 1;
  for (int64_t d : order) {
    offset += index[static_cast<size_t>(d)] * stride;
    stride *= dims[static_cast<size_t>(d)];
  }
  return offset;
}

// Logical values 0, 1, 2, ... laid out in `minor_to_major` order.
std::vector<double> laidOut(const std::vector<int64_t>& dims, const MinorToMajor& order) {
  std::vector<double> memory(static_cast<size_t>(testing::count(dims)));
  for (int64_t at = 0; at < testing::count(dims); ++at)
    memory[static_cast<size_t>(offsetIn(testing::unravel(at, dims), dims, order))] =
        static_cast<double>(at);
  return memory;
}

// Runs the rewritten entry on the caller's bytes; returns its result's bytes.
std::vector<double> runOnMemory(const ir::Module& module, std::vector<double> memory) {
  const ir::Function& main = *module.entry();
  HostEval eval(module);
  HostTensor& in = eval.values[main.body.args.at(0)];
  in.dims = module.typeOf(main.body.args.at(0)).dims;
  in.data = std::move(memory);
  eval.run(main);
  return eval.values.at(main.body.ops.back().operands.at(0)).data;
}

void expectDoubledLayouts(const std::vector<int64_t>& dims, const char* argument,
                          const char* result, const MinorToMajor& in_order,
                          const MinorToMajor& out_order) {
  ir::Module module = doubling(dims, argument, result);
  StatusOr<EntryLayouts> layouts = applyEntryLayouts(module, module.functions.at(0));
  ASSERT_TRUE(layouts.isOk()) << layouts.status().toString();
  ASSERT_TRUE(ir::verifyModule(module).isOk());
  EXPECT_EQ(layouts->parameters.at(0), in_order);
  EXPECT_EQ(layouts->outputs.at(0), out_order);
  EXPECT_EQ(layouts->parameter_types.at(0), f32(dims));
  EXPECT_EQ(layouts->output_types.at(0), f32(dims));
  const std::vector<double> out = runOnMemory(module, laidOut(dims, in_order));
  std::vector<double> expected = laidOut(dims, out_order);
  for (double& v : expected) v *= 2;
  EXPECT_EQ(out, expected) << argument << " -> " << result;
}

TEST(EntryLayouts, ColumnMajorInAndOut) {
  expectDoubledLayouts({2, 3}, "{0,1}", "{0,1}", {0, 1}, {0, 1});
}

TEST(EntryLayouts, ColumnMajorInRowMajorOut) {
  expectDoubledLayouts({2, 3}, "{0,1}", "default", {0, 1}, {});
  expectDoubledLayouts({2, 3}, "auto", "{0,1}", {}, {0, 1});
}

TEST(EntryLayouts, AnyPermutationOfThreeDims) {
  expectDoubledLayouts({2, 3, 4}, "{1,2,0}", "{0,2,1}", {1, 2, 0}, {0, 2, 1});
}

TEST(EntryLayouts, RowMajorSpelledOutChangesNothing) {
  ir::Module module = doubling({2, 3}, "{1,0}", "default");
  const size_t ops = module.functions.at(0).body.ops.size();
  StatusOr<EntryLayouts> layouts = applyEntryLayouts(module, module.functions.at(0));
  ASSERT_TRUE(layouts.isOk()) << layouts.status().toString();
  EXPECT_TRUE(layouts->parameters.at(0).empty());
  EXPECT_EQ(module.functions.at(0).body.ops.size(), ops);
}

TEST(EntryLayouts, ModesParse) {
  EXPECT_FALSE(parseLayoutMode("default", 2)->has_value());
  EXPECT_FALSE(parseLayoutMode("auto", 2)->has_value());
  EXPECT_FALSE(parseLayoutMode("{}", 0)->has_value());
  EXPECT_FALSE(parseLayoutMode("{2,1,0}", 3)->has_value());
  EXPECT_EQ(**parseLayoutMode("{0,2,1}", 3), (MinorToMajor{0, 2, 1}));
  EXPECT_EQ(layoutText({1, 0}), "{1,0}");
  EXPECT_EQ(layoutText({}), "{}");
}

TEST(EntryLayouts, BadModesAreNamedErrors) {
  EXPECT_EQ(parseLayoutMode("{0,1:T(8,128)}", 2).status().code(),
            StatusCode::kUnimplemented);
  for (const char* bad : {"{0,0}", "{0}", "{0,2}", "{a,b}", "0,1", "{0,,1}", "{-1,0}"})
    EXPECT_EQ(parseLayoutMode(bad, 2).status().code(), StatusCode::kInvalidArgument)
        << bad;
  ir::Module module = doubling({2, 3}, "{0,0}", "default");
  StatusOr<EntryLayouts> layouts = applyEntryLayouts(module, module.functions.at(0));
  ASSERT_FALSE(layouts.isOk());
  EXPECT_NE(layouts.status().message().find("parameter 0 (tensor<2x3xf32>)"),
            std::string::npos)
      << layouts.status().message();
}

TEST(EntryLayouts, TheExecutableNamesTheLayoutsAndTheLogicalTypes) {
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> compiled =
      compileModule(doubling({2, 3}, "{0,1}", "{0,1}"), options, nullptr);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  EXPECT_EQ(compiled->parameter_types.at(0), f32({2, 3}));
  EXPECT_EQ(compiled->output_types.at(0), f32({2, 3}));
  EXPECT_EQ(entryParameters(*compiled).at(0).minor_to_major, (MinorToMajor{0, 1}));
  EXPECT_EQ(entryOutputs(*compiled).at(0).minor_to_major, (MinorToMajor{0, 1}));
}

}  // namespace
}  // namespace jft::compiler
