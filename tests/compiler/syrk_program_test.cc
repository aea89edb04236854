// A program holding JAX's cusolver_syrk_ffi call (lax.linalg.symmetric_product
// on CUDA), written as jax/_src/lax/linalg.py's GPU lowering emits it (read by
// hand): a [..., m, n], c [..., m, m] aliased to the result, alpha and beta
// rank-0 constants, `transpose` false in backend_config, row-major layouts.
// It compiles in fl_only through passes/syrk_expand: one product on the
// existing routes (exact f32 arithmetic, no TF32) and an elementwise
// epilogue, no custom call left; a malformed call is one clear error.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/program_checks.h"
#include "ir/builder.h"
#include "runtime/gemm.h"
#include "runtime/program.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;

ir::AttrList rowMajor(const std::vector<int64_t>& ranks) {
  ir::AttrList list;
  for (int64_t rank : ranks) {
    std::vector<int64_t> layout;
    for (int64_t d = rank - 1; d >= 0; --d) layout.push_back(d);
    list.push_back(ir::Attribute(std::move(layout)));
  }
  return list;
}

// main(a, c) -> symmetric_product(a, c, alpha=2, beta=0.5).
ir::Module symmetricProduct(ElementType e, std::vector<int64_t> batch, int64_t m,
                            int64_t n, size_t operands = 4) {
  ir::Module module;
  module.name = "jit_symmetric_product";
  ir::Builder b(module);
  std::vector<int64_t> a_dims = batch, c_dims = batch;
  a_dims.insert(a_dims.end(), {m, n});
  c_dims.insert(c_dims.end(), {m, m});
  const Type a = Type::tensor(e, a_dims), c = Type::tensor(e, c_dims);
  const Type scalar = Type::tensor(e, {});
  auto args = b.beginFunction("main", {a, c}, {c});
  b.setLoc(b.fileLoc("model.py", 4, 1));
  std::vector<ir::ValueId> call_operands = {args[0], args[1]};
  for (double v : {2.0, 0.5}) {
    if (ir::isComplex(e))
      call_operands.push_back(b.constant(ir::denseFromBits(
          scalar,
          {e == ElementType::C64 ? uint64_t{0x40000000} : uint64_t{0x4000000000000000},
           0})));
    else
      call_operands.push_back(b.constant(ir::denseFromValues(scalar, {v})));
  }
  call_operands.resize(operands);
  const int64_t rank = static_cast<int64_t>(a_dims.size());
  const ir::ValueId out = b.op1(
      OpKind::CustomCall, call_operands, c,
      {{"call_target_name", std::string("cusolver_syrk_ffi")},
       {"api_version", ir::CustomCallApiVersion::TYPED_FFI},
       {"backend_config", ir::NamedAttrs{{"transpose", ir::Attribute(false)}}},
       {"operand_layouts", rowMajor({rank, rank, 0, 0})},
       {"result_layouts", rowMajor({rank})},
       {"output_operand_aliases", std::vector<ir::OutputOperandAlias>{{{}, 1, {}}}}});
  b.ret({out});
  b.endFunction();
  return module;
}

struct CompiledSyrk {
  Executable executable;
  Stages stages;
  std::vector<const runtime::GemmThunk*> gemms;
};

CompiledSyrk compileFlOnly(ir::Module m) {
  Options options;
  options.mode = Mode::kFlOnly;
  CompiledSyrk c;
  StatusOr<Executable> result = compileModule(std::move(m), options, nullptr, &c.stages);
  EXPECT_TRUE(result.isOk()) << result.status().toString();
  if (!result.isOk()) return c;
  c.executable = std::move(*result);
  testing::expectConsistentProgram(c.executable.program, false);
  for (const runtime::Thunk& t : c.executable.program.thunks)
    if (const auto* g = std::get_if<runtime::GemmThunk>(&t)) c.gemms.push_back(g);
  for (const RouteEntry& entry : c.executable.report.entries)
    EXPECT_EQ(entry.ops.find("custom_call"), std::string::npos) << entry.ops;
  return c;
}

bool hasProduct(const Executable& e) {
  for (const RouteEntry& entry : e.report.entries)
    if (entry.ops.find("dot_general") != std::string::npos) return true;
  return false;
}

TEST(SyrkProgram, F32CompilesToAnExactProductAndAnEpilogue) {
  // A small product is a TTIR matmul with the epilogue fused; a large one
  // a library GEMM and a loop kernel. Either way the product must not round
  // its operands to TF32 (HIGHEST): "ieee" in tt.dot, kF32 on the library.
  CompiledSyrk small = compileFlOnly(symmetricProduct(ElementType::F32, {}, 6, 4));
  EXPECT_TRUE(hasProduct(small.executable));
  EXPECT_TRUE(small.gemms.empty());
  size_t dots = 0;
  for (const std::string& ttir : small.stages.ttir) {
    if (ttir.find("tt.dot") == std::string::npos) continue;
    ++dots;
    EXPECT_NE(ttir.find("inputPrecision = ieee"), std::string::npos) << ttir;
  }
  EXPECT_EQ(dots, 1u);
  CompiledSyrk large = compileFlOnly(symmetricProduct(ElementType::F32, {2}, 256, 512));
  ASSERT_EQ(large.gemms.size(), 1u);
  const runtime::GemmDesc& g = large.gemms[0]->gemm;
  EXPECT_EQ(g.compute, runtime::GemmCompute::kF32) << runtime::gemmText(g);
  EXPECT_EQ(g.batch, 2);
  EXPECT_EQ(g.m, 256);
  EXPECT_EQ(g.n, 256);
  EXPECT_EQ(g.k, 512);
}

TEST(SyrkProgram, BatchedF64AndComplexRunOnTheLibraryGemm) {
  struct Case {
    ElementType e;
    runtime::GemmType type;
  };
  for (Case k : {Case{ElementType::F64, runtime::GemmType::kF64},
                 Case{ElementType::C64, runtime::GemmType::kC64},
                 Case{ElementType::C128, runtime::GemmType::kC128}}) {
    CompiledSyrk c = compileFlOnly(symmetricProduct(k.e, {3}, 5, 7));
    ASSERT_EQ(c.gemms.size(), 1u) << ir::elementTypeName(k.e);
    const runtime::GemmDesc& g = c.gemms[0]->gemm;
    EXPECT_EQ(g.a.type, k.type);
    // A A^T per batch element: [5 x 7] * [7 x 5], three times.
    EXPECT_EQ(g.batch, 3);
    EXPECT_EQ(g.m, 5);
    EXPECT_EQ(g.n, 5);
    EXPECT_EQ(g.k, 7);
  }
}

TEST(SyrkProgram, AMalformedCallIsOneClearError) {
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result =
      compileModule(symmetricProduct(ElementType::F32, {}, 6, 4, 3), options, nullptr);
  ASSERT_FALSE(result.isOk());
  const std::string& message = result.status().message();
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << message;
  EXPECT_NE(message.find("custom_call @cusolver_syrk_ffi at model.py:4"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("expected 4 operands"), std::string::npos) << message;
}

}  // namespace
}  // namespace jft::compiler
