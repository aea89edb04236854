// Structural rules: definitions before uses, scopes of regions,
// terminators, unique function names, value ids, and error collection.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

TEST(VerifyStructure, UseBeforeDefinition) {
  Module m = buildMain({f32({2})}, [](Builder& b, const std::vector<ValueId>& args) {
    ValueId a = b.op1(OpKind::Negate, {args[0]}, f32({2}));
    ValueId c = b.op1(OpKind::Negate, {a}, f32({2}));
    return std::vector<ValueId>{c};
  });
  EXPECT_VALID(verifyModule(m));
  // Swap the two ops: the first now reads a value defined after it.
  std::swap(m.functions[0].body.ops[0], m.functions[0].body.ops[1]);
  EXPECT_INVALID(
      verifyModule(m),
      "stablehlo.negate at zoo.py:17:20: operand #0 is used before its definition "
      "or outside its scope");
}

TEST(VerifyStructure, RegionValuesStayInsideTheirRegion) {
  ValueId inner = 0;
  Module m =
      buildMain({f32({4}), f32()}, [&](Builder& b, const std::vector<ValueId>& args) {
        auto body_args = b.beginRegion({f32(), f32()});
        inner = b.op1(OpKind::Add, {body_args[0], body_args[1]}, f32());
        b.ret({inner});
        Region body = b.endRegion();
        ValueId sum = b.op1(OpKind::Reduce, args, f32(), {{"dimensions", Ints{0}}},
                            {std::move(body)});
        return std::vector<ValueId>{b.op1(OpKind::Add, {sum, inner}, f32())};
      });
  EXPECT_INVALID(
      verifyModule(m),
      "stablehlo.add at zoo.py:17:20: operand #1 is used before its definition or "
      "outside its scope");
}

TEST(VerifyStructure, NestedRegionsSeeEnclosingValues) {
  // A branch may capture a value of the function body (implicit capture).
  EXPECT_VALID(
      verifyMain({pred(), f32({2})}, [](Builder& b, const std::vector<ValueId>& args) {
        std::vector<Region> regions;
        for (int i = 0; i < 2; ++i) {
          b.beginRegion({});
          b.ret({b.op1(OpKind::Negate, {args[1]}, f32({2}))});
          regions.push_back(b.endRegion());
        }
        return b.op(OpKind::If, {args[0]}, {f32({2})}, {}, std::move(regions));
      }));
}

TEST(VerifyStructure, OpResultsAreNotVisibleInTheirOwnRegions) {
  Module m = buildMain({pred()}, [](Builder& b, const std::vector<ValueId>& args) {
    std::vector<Region> regions;
    for (int i = 0; i < 2; ++i) {
      b.beginRegion({});
      b.ret({});
      regions.push_back(b.endRegion());
    }
    return b.op(OpKind::If, {args[0]}, {f32({2})}, {}, std::move(regions));
  });
  // Make the true branch return the if's own result.
  Op& if_op = m.functions[0].body.ops[0];
  if_op.regions[0].ops.back().operands = {if_op.results[0]};
  EXPECT_INVALID(
      verifyModule(m),
      "stablehlo.return at zoo.py:17:20: operand #0 is used before its definition "
      "or outside its scope");
}

TEST(VerifyStructure, RegionsEndInReturn) {
  Module m =
      buildMain({f32({4}), f32()}, [](Builder& b, const std::vector<ValueId>& args) {
        auto body_args = b.beginRegion({f32(), f32()});
        b.op1(OpKind::Add, {body_args[0], body_args[1]}, f32());
        Region body = b.endRegion();
        return std::vector<ValueId>{b.op1(OpKind::Reduce, args, f32(),
                                          {{"dimensions", Ints{0}}}, {std::move(body)})};
      });
  EXPECT_INVALID(
      verifyModule(m),
      "stablehlo.reduce at zoo.py:17:20: region #0 does not end in stablehlo.return");
  m.functions[0].body.ops[0].regions[0].ops.clear();
  EXPECT_INVALID(verifyModule(m), "stablehlo.reduce at zoo.py:17:20: region #0 is empty");
}

TEST(VerifyStructure, ReturnIsLastOnly) {
  Module m = buildMain({f32({2})}, [](Builder& b, const std::vector<ValueId>& args) {
    return std::vector<ValueId>{b.op1(OpKind::Negate, {args[0]}, f32({2}))};
  });
  auto& ops = m.functions[0].body.ops;
  std::swap(ops[0], ops[1]);
  EXPECT_INVALID(verifyModule(m),
                 "func.return at zoo.py:17:20: must be the last op of its region");
  EXPECT_INVALID(verifyModule(m),
                 "func.func @main at zoo.py:17:20: body does not end in "
                 "func.return");
}

TEST(VerifyStructure, FunctionNamesAreUnique) {
  Module m = buildMain({f32({2})}, [](Builder&, const std::vector<ValueId>& args) {
    return std::vector<ValueId>{args[0]};
  });
  Builder b(m);
  auto args = b.beginFunction("main", {f32({2})}, {f32({2})});
  b.ret({args[0]});
  b.endFunction();
  EXPECT_INVALID(
      verifyModule(m),
      "func.func @main at unknown location: a function with this name is already "
      "defined");
}

TEST(VerifyStructure, ValueIdsMustExist) {
  Module m = buildMain({f32({2})}, [](Builder& b, const std::vector<ValueId>& args) {
    return std::vector<ValueId>{b.op1(OpKind::Negate, {args[0]}, f32({2}))};
  });
  m.functions[0].body.ops[0].operands = {999};
  EXPECT_INVALID(
      verifyModule(m),
      "func.func @main: stablehlo.negate refers to value %v999, which the module "
      "does not have");
}

TEST(VerifyStructure, ValuesAreDefinedOnce) {
  Module m = buildMain({f32({2})}, [](Builder& b, const std::vector<ValueId>& args) {
    return std::vector<ValueId>{b.op1(OpKind::Negate, {args[0]}, f32({2}))};
  });
  Op& negate = m.functions[0].body.ops[0];
  negate.results = {m.functions[0].body.args[0]};
  EXPECT_INVALID(verifyModule(m), "is defined more than once");
}

TEST(VerifyStructure, CollectsEveryError) {
  Status s =
      verifyMain({f32({4}), f32({8})}, [](Builder& b, const std::vector<ValueId>& args) {
        ValueId bad_add = b.op1(OpKind::Add, {args[0], args[1]}, f32({4}));
        ValueId bad_sqrt = b.op1(OpKind::Sqrt, {args[1]}, f32({4}));
        return std::vector<ValueId>{bad_add, bad_sqrt};
      });
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      s.message(),
      "stablehlo.add at zoo.py:17:20: operand shapes differ: tensor<4xf32> vs "
      "tensor<8xf32>\n"
      "stablehlo.sqrt at zoo.py:17:20: operand and result shapes differ: tensor<8xf32> "
      "vs tensor<4xf32>");
}

TEST(VerifyStructure, OpsWithoutRulesGetTheGenericChecks) {
  EXPECT_VALID(verifyMain({f32({4})}, [](Builder& b, const std::vector<ValueId>& args) {
    return std::vector<ValueId>{b.op1(OpKind::CustomCall, {args[0]}, f32({4}),
                                      {{"call_target_name", std::string("mhlo.erf")}})};
  }));
}

}  // namespace
}  // namespace jft::ir
