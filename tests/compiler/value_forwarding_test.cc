// ValueForwarding on hand-built functions: tuple / get_tuple_element /
// optimization_barrier resolved to the values holding the data, also when
// the get_tuple_element sits in a loop body and its tuple is built before
// the loop.
#include "compiler/value_forwarding.h"

#include <gtest/gtest.h>

#include "compiler/ir_shorthands.h"
#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using testing::kPred;

const Type kF32x4 = Type::tensor(ElementType::F32, {4});

TEST(ValueForwarding, AGetTupleElementInALoopBodySeesTheTupleBuiltBeforeIt) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kF32x4, kF32x4}, {kF32x4});
  ValueId pair =
      b.op1(OpKind::Tuple, {args[0], args[1]}, Type::makeTuple({kF32x4, kF32x4}));
  auto c = b.beginRegion({kF32x4});
  b.ret({b.constant(ir::denseFromValues(kPred, {0}))});
  ir::Region cond = b.endRegion();
  auto d = b.beginRegion({kF32x4});
  ValueId w = b.op1(OpKind::GetTupleElement, {pair}, kF32x4, {{"index", int64_t{1}}});
  auto barrier = b.op(OpKind::OptimizationBarrier, {w, d[0]}, {kF32x4, kF32x4});
  b.ret({b.op1(OpKind::Add, {barrier[0], barrier[1]}, kF32x4)});
  ir::Region body = b.endRegion();
  ValueId r = b.op1(OpKind::While, {args[0]}, kF32x4, {}, {cond, body});
  b.ret({r});
  const ir::Function& f = b.endFunction();
  (void)c;
  StatusOr<ValueForwarding> forwarding = ValueForwarding::build(m, f);
  ASSERT_TRUE(forwarding.isOk()) << forwarding.status().toString();
  EXPECT_EQ(forwarding->resolve(w), args[1]);
  EXPECT_EQ(forwarding->resolve(barrier[0]), args[1]);
  EXPECT_EQ(forwarding->resolve(barrier[1]), d[0]) << "the body's argument itself";
  EXPECT_EQ(forwarding->resolve(r), r) << "a loop's result is not forwarded";
  ASSERT_NE(forwarding->tupleElements(pair), nullptr);
  EXPECT_EQ(*forwarding->tupleElements(pair), (std::vector<ValueId>{args[0], args[1]}));
}

TEST(ValueForwarding, AnElementOfATupleParameterHasNoBuffer) {
  ir::Module m;
  ir::Builder b(m);
  const Type pair = Type::makeTuple({kF32x4, kF32x4});
  auto args = b.beginFunction("main", {pair}, {kF32x4});
  b.setLoc(b.fileLoc("model.py", 4, 2));
  b.ret({b.op1(OpKind::GetTupleElement, {args[0]}, kF32x4, {{"index", int64_t{0}}})});
  const ir::Function& f = b.endFunction();
  Status s = ValueForwarding::build(m, f).status();
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("stablehlo.get_tuple_element at model.py:4:2"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("tuple<tensor<4xf32>, tensor<4xf32>>"), std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace jft::compiler
