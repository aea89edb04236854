// Library calls inside control flow, without binaries: where the product of
// a loop body lands among the body's thunks, and what a region holding
// something no route runs (an integer dot, a tuple carried by a loop) is
// told with.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ComparisonDirection;
using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using runtime::BufferSlot;
using testing::i32Constant;
using testing::kI32;
using testing::kPred;

// main(x, w) = fori_loop(0, 4, h -> h @ w - h) with h, w of type `t`; the
// dot at model.py:9.
ir::Module foriWithDot(const Type& t) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {t, t}, {t});
  const std::vector<Type> types = {kI32, t, t};
  ValueId zero = i32Constant(b, 0);
  auto c = b.beginRegion(types);
  b.ret({b.op1(OpKind::Compare, {c[0], i32Constant(b, 4)}, kPred,
               {{"comparison_direction", ComparisonDirection::LT}})});
  ir::Region cond = b.endRegion();
  auto d = b.beginRegion(types);
  b.setLoc(b.fileLoc("model.py", 9, 5));
  ValueId product =
      b.op1(OpKind::DotGeneral, {d[2], d[1]}, t,
            {{"dot_dimension_numbers", ir::DotDimensionNumbers{{}, {}, {1}, {0}}}});
  ValueId next = b.op1(OpKind::Subtract, {product, d[2]}, t);
  b.ret({b.op1(OpKind::Add, {d[0], i32Constant(b, 1)}, kI32), d[1], next});
  ir::Region body = b.endRegion();
  ValueId h = b.op(OpKind::While, {zero, args[1], args[0]}, types, {}, {cond, body})[2];
  b.ret({h});
  b.endFunction();
  return m;
}

StatusOr<Executable> compileOffline(ir::Module m) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.matmul = fusion::MatmulRoute::kLibrary;  // the library route under test
  return compileModule(std::move(m), options, nullptr);
}

TEST(ControlLibrary, TheProductOfALoopBodyIsAGemmThunkOfItsList) {
  const Type t = Type::tensor(ElementType::F32, {8, 8});
  StatusOr<Executable> built = compileOffline(foriWithDot(t));
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const runtime::Program& p = built->program;
  const auto* loop = std::get_if<runtime::WhileThunk>(&p.thunks.back());
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->trip_count, 4);
  const int out = p.output_slots.at(0);
  // The body: the product into a temp, the subtract reading it and h (the
  // carried output slot), then the copies of next values.
  const std::vector<runtime::Thunk>& body = p.lists.at(static_cast<size_t>(loop->body));
  const runtime::GemmThunk* gemm = nullptr;
  size_t gemm_at = 0;
  for (size_t i = 0; i < body.size(); ++i)
    if (const auto* g = std::get_if<runtime::GemmThunk>(&body[i])) {
      EXPECT_EQ(gemm, nullptr) << "one product per iteration";
      gemm = g;
      gemm_at = i;
    }
  ASSERT_NE(gemm, nullptr);
  EXPECT_EQ(gemm->a, out) << "A is h, carried in the output slot";
  EXPECT_EQ(p.slots.at(static_cast<size_t>(gemm->b)).kind, BufferSlot::Kind::kTemp)
      << "B is w's carried slot";
  EXPECT_EQ(p.slots.at(static_cast<size_t>(gemm->d)).kind, BufferSlot::Kind::kTemp);
  EXPECT_EQ(gemm->gemm.m, 8);
  EXPECT_EQ(gemm->gemm.n, 8);
  EXPECT_EQ(gemm->gemm.k, 8);
  bool read_after = false;
  for (size_t i = gemm_at + 1; i < body.size(); ++i)
    if (const auto* launch = std::get_if<runtime::LaunchThunk>(&body[i]))
      for (int s : launch->buffers) read_after |= s == gemm->d;
  EXPECT_TRUE(read_after) << "the subtract reads the product";
  // The body's temp (D) shares no bytes with w's carried slot, live
  // throughout the loop.
  const BufferSlot& d = p.slots.at(static_cast<size_t>(gemm->d));
  const BufferSlot& w = p.slots.at(static_cast<size_t>(gemm->b));
  EXPECT_TRUE(d.offset + d.bytes <= w.offset || w.offset + w.bytes <= d.offset);
  // The route report lists the body's product.
  size_t library_rows = 0;
  for (const RouteEntry& e : built->report.entries)
    library_rows += e.route == "library" && e.tile == "cublaslt m=8 n=8 k=8 batch=1 tf32";
  EXPECT_EQ(library_rows, 1u) << built->report.text();
}

// An integer product has no library GEMM: the passes turn it into a
// multiply and an add-reduce, which the body runs as a TTIR reduction.
TEST(ControlLibrary, AnIntegerDotInALoopBecomesAReductionKernel) {
  StatusOr<Executable> built =
      compileOffline(foriWithDot(Type::tensor(ElementType::I32, {8, 8})));
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  size_t reductions = 0, library_rows = 0;
  for (const RouteEntry& e : built->report.entries) {
    reductions += e.route == "ttir" && e.family == "reduction" &&
                  e.ops.find("reduce") != std::string::npos;
    library_rows += e.route == "library";
  }
  EXPECT_EQ(reductions, 1u) << built->report.text();
  EXPECT_EQ(library_rows, 0u) << built->report.text();
}

// 2048 x 2048 x 2048 products exceed the 2^31-element broadcast the
// rewrite allows, so the dot stays and is listed with its line.
TEST(ControlLibrary, AnIntegerDotTooLargeToRewriteIsListedWithItsLine) {
  StatusOr<Executable> built =
      compileOffline(foriWithDot(Type::tensor(ElementType::I32, {2048, 2048})));
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kUnimplemented);
  const std::string& m = built.status().message();
  EXPECT_NE(
      m.find("stablehlo.dot_general (tensor<2048x2048xi32>, tensor<2048x2048xi32>) -> "
             "tensor<2048x2048xi32> at model.py:9:5"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("has no library GEMM"), std::string::npos) << m;
}

// while (t: tuple<w, h>) { tuple(w, h @ w) } — JAX's loops carry flat
// operands; a tuple-typed carried value has no buffer form.
TEST(ControlLibrary, ATupleCarriedByALoopIsUnimplementedAndNamed) {
  const Type t = Type::tensor(ElementType::F32, {4, 4});
  const Type pair = Type::makeTuple({t, t});
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {t, t}, {t});
  ValueId init = b.op1(OpKind::Tuple, {args[0], args[1]}, pair);
  auto c = b.beginRegion({pair});
  (void)c;
  b.ret({b.constant(ir::denseFromValues(kPred, {0}))});
  ir::Region cond = b.endRegion();
  auto d = b.beginRegion({pair});
  b.setLoc(b.fileLoc("model.py", 21, 3));
  ValueId w = b.op1(OpKind::GetTupleElement, {d[0]}, t, {{"index", int64_t{0}}});
  b.ret({b.op1(OpKind::Tuple, {w, w}, pair)});
  ir::Region body = b.endRegion();
  b.setLoc(b.fileLoc("model.py", 20, 3));
  ValueId r = b.op1(OpKind::While, {init}, pair, {}, {cond, body});
  b.ret({b.op1(OpKind::GetTupleElement, {r}, t, {{"index", int64_t{1}}})});
  b.endFunction();
  StatusOr<Executable> built = compileOffline(std::move(m));
  ASSERT_FALSE(built.isOk());
  EXPECT_EQ(built.status().code(), StatusCode::kUnimplemented);
  const std::string& message = built.status().message();
  EXPECT_NE(message.find("tuple<tensor<4x4xf32>, tensor<4x4xf32>>"), std::string::npos)
      << message;
  EXPECT_NE(message.find("model.py:2"), std::string::npos) << message;
}

}  // namespace
}  // namespace jft::compiler
