// --xla_gpu_exclude_nondeterministic_ops through compile(): the option
// reaches the scatter emitter, whose update kernel then walks the rows in
// order with no atomics (tests/codegen/emit_scatter_order_test.cc checks the
// kernels themselves); without it the updates stay atomic. The fingerprint
// tells the two apart, so a cached executable of one is never the other's.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;

// x.at[idx].add(g): x f32[50, 8], idx i32[64, 1], g f32[64, 8].
ir::Module scatterAddRows() {
  ir::Module m;
  m.name = "jit_scatter_add_rows";
  ir::Builder b(m);
  const Type table = Type::tensor(ElementType::F32, {50, 8});
  const Type scalar = Type::scalar(ElementType::F32);
  auto a = b.beginFunction("main",
                           {table, Type::tensor(ElementType::I32, {64, 1}),
                            Type::tensor(ElementType::F32, {64, 8})},
                           {table});
  auto args = b.beginRegion({scalar, scalar});
  b.ret({b.op1(OpKind::Add, {args[0], args[1]}, scalar)});
  std::vector<ir::Region> body;
  body.push_back(b.endRegion());
  ir::ScatterDimensionNumbers dn;
  dn.update_window_dims = {1};
  dn.inserted_window_dims = {0};
  dn.scatter_dims_to_operand_dims = {0};
  dn.index_vector_dim = 1;
  b.ret({b.op1(OpKind::Scatter, {a[0], a[1], a[2]}, table,
               {{"scatter_dimension_numbers", dn}}, std::move(body))});
  b.endFunction();
  return m;
}

// The update kernel's TTIR ("<group>_updates").
std::string updatesKernel(bool deterministic, std::string* fingerprint) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.exclude_nondeterministic_ops = deterministic;
  Stages stages;
  StatusOr<Executable> compiled =
      compileModule(scatterAddRows(), options, nullptr, &stages);
  EXPECT_TRUE(compiled.isOk()) << compiled.status().toString();
  if (!compiled.isOk()) return {};
  *fingerprint = compiled->fingerprint;
  EXPECT_EQ(stages.ttir.size(), 2u);  // the copy, then the updates
  for (size_t i = 0; i < stages.kernel_names.size(); ++i) {
    const std::string& name = stages.kernel_names[i];
    if (name.size() > 8 && name.substr(name.size() - 8) == "_updates")
      return stages.ttir[i];
  }
  ADD_FAILURE() << "no _updates kernel";
  return {};
}

TEST(DeterministicScatter, TheFlagReachesTheScatterEmitter) {
  std::string fp_off, fp_on;
  const std::string off = updatesKernel(false, &fp_off);
  const std::string on = updatesKernel(true, &fp_on);
  EXPECT_NE(off.find("tt.atomic_rmw fadd"), std::string::npos) << off;
  EXPECT_EQ(off.find("scf.for"), std::string::npos) << off;
  EXPECT_EQ(on.find("tt.atomic"), std::string::npos) << on;
  EXPECT_NE(on.find("scf.for"), std::string::npos) << on;
  EXPECT_NE(fp_off, fp_on);
}

}  // namespace
}  // namespace jft::compiler
