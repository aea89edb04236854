// The support table and op routes: what TTIR can hold and run, which route
// each other op takes, and the reasons given when none is available.
#include <gtest/gtest.h>

#include "codegen/ttir/capability.h"
#include "fusion/op_route.h"
#include "fusion/op_text.h"
#include "fusion/ttir_support.h"
#include "fusion_test_util.h"

namespace jft::fusion {
namespace {

using namespace testing;

TEST(TtirSupport, ElementTypesTritonHolds) {
  for (ElementType t :
       {ElementType::PRED, ElementType::I8, ElementType::I16, ElementType::I32,
        ElementType::I64, ElementType::U8, ElementType::U16, ElementType::U32,
        ElementType::U64, ElementType::F16, ElementType::BF16, ElementType::F32,
        ElementType::F64, ElementType::F8E4M3FN, ElementType::F8E5M2})
    EXPECT_TRUE(::jft::codegen::ttir::ttirHoldsElementType(t)) << ir::elementTypeName(t);
  for (ElementType t :
       {ElementType::C64, ElementType::C128, ElementType::I4, ElementType::U4,
        ElementType::I2, ElementType::F8E4M3FNUZ, ElementType::F8E5M2FNUZ,
        ElementType::F8E4M3, ElementType::F8E3M4, ElementType::F8E8M0FNU,
        ElementType::F6E2M3FN, ElementType::F4E2M1FN})
    EXPECT_FALSE(::jft::codegen::ttir::ttirHoldsElementType(t)) << ir::elementTypeName(t);
}

// One op of `kind` on values of `type`, in a module of its own.
struct OneOp {
  ir::Module m;
  ir::Op op;
  OneOp(OpKind kind, std::vector<Type> operands, std::vector<Type> results,
        ir::NamedAttrs attrs = {}, std::vector<ir::Region> regions = {}) {
    op.kind = kind;
    for (const Type& t : operands) op.operands.push_back(m.newValue(t));
    for (const Type& t : results) op.results.push_back(m.newValue(t));
    op.attrs = std::move(attrs);
    op.regions = std::move(regions);
  }
  OpRoute route(const PlanOptions& options = {}) const {
    return routeOf(m, op, ::jft::codegen::ttir::withTtir(options));
  }
};

TEST(TtirSupport, ElementwiseAndMovementOpsRunOnTtir) {
  EXPECT_TRUE(OneOp(OpKind::Add, {f32({4}), f32({4})}, {f32({4})}).route().supported);
  EXPECT_EQ(OneOp(OpKind::Tanh, {f32({4})}, {f32({4})}).route().route, Route::kTtir);
  EXPECT_EQ(OneOp(OpKind::Transpose, {f32({2, 3})}, {f32({3, 2})}).route().route,
            Route::kTtir);
  EXPECT_EQ(OneOp(OpKind::DynamicUpdateSlice, {f32({8}), f32({2}), i32()}, {f32({8})})
                .route()
                .route,
            Route::kTtir);
}

TEST(TtirSupport, ComplexValuesOnlyInTheOpsThatCarryTheirParts) {
  const Type c64 = Type::tensor(ElementType::C64, {4});
  const Type f32v = Type::tensor(ElementType::F32, {4});
  EXPECT_EQ(OneOp(OpKind::Add, {c64, c64}, {c64}).route().route, Route::kTtir);
  EXPECT_EQ(OneOp(OpKind::Real, {c64}, {f32v}).route().route, Route::kTtir);
  EXPECT_EQ(OneOp(OpKind::Complex, {f32v, f32v}, {c64}).route().route, Route::kTtir);
  // The functions of codegen/ttir/complex_math.h.
  for (OpKind kind : {OpKind::Sign, OpKind::Sine, OpKind::Cosine, OpKind::Tan,
                      OpKind::Tanh, OpKind::Rsqrt, OpKind::Cbrt,
                      OpKind::ExponentialMinusOne, OpKind::LogPlusOne, OpKind::Logistic})
    EXPECT_EQ(OneOp(kind, {c64}, {c64}).route().route, Route::kTtir)
        << ir::opKindName(kind);
  EXPECT_EQ(OneOp(OpKind::Power, {c64, c64}, {c64}).route().route, Route::kTtir);
  OpRoute atan2 = OneOp(OpKind::Atan2, {c64, c64}, {c64}).route();
  EXPECT_FALSE(atan2.supported);
  EXPECT_EQ(atan2.reason, "no TTIR emitter for atan2 of complex values yet");
  for (auto d : {ir::ComparisonDirection::LT, ir::ComparisonDirection::LE,
                 ir::ComparisonDirection::GT, ir::ComparisonDirection::GE}) {
    OpRoute ordered =
        OneOp(OpKind::Compare, {c64, c64}, {Type::tensor(ElementType::PRED, {4})},
              {{"comparison_direction", d}})
            .route();
    EXPECT_FALSE(ordered.supported);
    EXPECT_EQ(ordered.reason,
              "compare of complex values other than EQ and NE: complex numbers have no "
              "order");
  }
}

// A complex reduce runs when its combiner is one complex add or multiply of
// the region's arguments (either order); anything else names why not.
TEST(TtirSupport, ComplexReducesByAddOrMultiplyOnly) {
  const Type c64 = Type::tensor(ElementType::C64, {4});
  const Type s64 = Type::tensor(ElementType::C64, {});
  auto reduceWith = [&](OpKind combine, bool swapped = false) {
    OneOp one(OpKind::Reduce, {c64, s64}, {s64},
              {{"dimensions", std::vector<int64_t>{0}}});
    ir::Builder b(one.m);
    auto args = b.beginRegion({s64, s64});
    b.ret({b.op1(combine, {args[swapped ? 1 : 0], args[swapped ? 0 : 1]}, s64)});
    one.op.regions.push_back(b.endRegion());
    return one.route();
  };
  EXPECT_EQ(reduceWith(OpKind::Add).route, Route::kTtir);
  EXPECT_EQ(reduceWith(OpKind::Multiply).route, Route::kTtir);
  EXPECT_EQ(reduceWith(OpKind::Multiply, true).route, Route::kTtir);
  OpRoute sub = reduceWith(OpKind::Subtract);
  EXPECT_FALSE(sub.supported);
  EXPECT_EQ(sub.reason, "complex subtract combiner (add and multiply are run)");

  // add(acc, acc): not a combination of the two arguments.
  OneOp same(OpKind::Reduce, {c64, s64}, {s64},
             {{"dimensions", std::vector<int64_t>{0}}});
  {
    ir::Builder b(same.m);
    auto args = b.beginRegion({s64, s64});
    b.ret({b.op1(OpKind::Add, {args[0], args[0]}, s64)});
    same.op.regions.push_back(b.endRegion());
  }
  EXPECT_EQ(same.route().reason, "complex combiner that is not one add or multiply");

  // Two complex operands (a variadic reduce): refused.
  OneOp pair(OpKind::Reduce, {c64, c64, s64, s64}, {s64, s64},
             {{"dimensions", std::vector<int64_t>{0}}});
  {
    ir::Builder b(pair.m);
    auto args = b.beginRegion({s64, s64, s64, s64});
    b.ret({b.op1(OpKind::Add, {args[0], args[2]}, s64),
           b.op1(OpKind::Add, {args[1], args[3]}, s64)});
    pair.op.regions.push_back(b.endRegion());
  }
  EXPECT_EQ(pair.route().reason,
            "combiner of several complex operands (one complex operand is run)");
}

TEST(TtirSupport, BitcastOnlyBetweenEqualWidths) {
  EXPECT_TRUE(OneOp(OpKind::BitcastConvert, {f32({4})}, {i32({4})}).route().supported);
  OpRoute r =
      OneOp(OpKind::BitcastConvert, {f32({4})}, {Type::tensor(ElementType::I8, {4, 4})})
          .route();
  EXPECT_FALSE(r.supported);
  EXPECT_EQ(r.reason, "bitcast_convert between element types of different widths");
}

TEST(TtirSupport, PadWithNegativeInteriorIsRefused) {
  auto pad = [](std::vector<int64_t> interior) {
    return OneOp(OpKind::Pad, {f32({4}), f32()}, {f32({4})},
                 {{"edge_padding_low", std::vector<int64_t>{0}},
                  {"edge_padding_high", std::vector<int64_t>{0}},
                  {"interior_padding", interior}});
  };
  EXPECT_TRUE(pad({0}).route().supported);
  EXPECT_FALSE(pad({-1}).route().supported);
}

TEST(TtirSupport, ReduceCombinerMustBeScalarElementwise) {
  auto reduceWith = [](OpKind combine) {
    OneOp one(OpKind::Reduce, {f32({4}), f32()}, {f32()},
              {{"dimensions", std::vector<int64_t>{0}}});
    ir::Builder b(one.m);
    auto args = b.beginRegion({f32(), f32()});
    b.ret({b.op1(combine, {args[0], args[1]}, f32())});
    one.op.regions.push_back(b.endRegion());
    return one.route();
  };
  EXPECT_TRUE(reduceWith(OpKind::Maximum).supported);
  OpRoute r = reduceWith(OpKind::DotGeneral);
  EXPECT_FALSE(r.supported);
  EXPECT_EQ(r.reason,
            "reduce combiner holds dot_general, which a TTIR reduction cannot run");
}

// Scatter combiners with no Triton atomic run as a compare-and-swap loop
// (multiply, any elementwise region such as lax.scatter_apply's, f64 max,
// 8/16-bit max/min/multiply); a region op no TTIR kernel holds is refused.
TEST(TtirSupport, ScatterCombinersWithoutAnAtomicRunAsCompareAndSwap) {
  auto scatterWith = [](ElementType t, std::optional<OpKind> combine,
                        std::optional<OpKind> unary = std::nullopt) {
    const Type table = Type::tensor(t, {8}), upd = Type::tensor(t, {2});
    OneOp one(OpKind::Scatter, {table, i32({2, 1}), upd}, {table});
    ir::Builder b(one.m);
    const Type scalar = Type::scalar(t);
    auto args = b.beginRegion({scalar, scalar});
    ValueId r = combine ? b.op1(*combine, {args[0], args[1]}, scalar) : args[1];
    if (unary) r = b.op1(*unary, {r}, scalar);
    b.ret({r});
    one.op.regions.push_back(b.endRegion());
    return one.route();
  };
  using E = ElementType;
  EXPECT_TRUE(scatterWith(E::F32, OpKind::Multiply).supported);
  EXPECT_TRUE(scatterWith(E::I64, OpKind::Multiply).supported);
  EXPECT_TRUE(scatterWith(E::U32, OpKind::Subtract).supported);
  EXPECT_TRUE(
      scatterWith(E::F32, std::nullopt, OpKind::Exponential).supported);  // exp(update)
  EXPECT_TRUE(scatterWith(E::F64, OpKind::Maximum).supported);
  EXPECT_TRUE(scatterWith(E::F64, OpKind::Add, OpKind::Negate).supported);
  // 8/16-bit elements swap the 32-bit word holding them.
  EXPECT_TRUE(scatterWith(E::F16, OpKind::Multiply).supported);
  EXPECT_TRUE(scatterWith(E::BF16, OpKind::Maximum).supported);
  EXPECT_TRUE(scatterWith(E::I8, OpKind::Subtract).supported);
  EXPECT_TRUE(scatterWith(E::PRED, OpKind::Or).supported);
  OpRoute r = scatterWith(E::F32, OpKind::Add, OpKind::DotGeneral);
  EXPECT_FALSE(r.supported);
  EXPECT_EQ(
      r.reason,
      "scatter whose update computation is not elementwise ops of (current, update) "
      "on f32 scalars");
}

TEST(TtirSupport, OpsWithoutAnEmitterSayWhich) {
  // select_and_scatter has an emitter, which needs its two regions.
  OpRoute pool = OneOp(OpKind::SelectAndScatter, {f32({8})}, {f32({8})}).route();
  EXPECT_FALSE(pool.supported);
  EXPECT_EQ(pool.reason, "select_and_scatter without 3 operands and 2 regions");
  // Sort has an emitter now, which needs the sort's dimension.
  EXPECT_EQ(OneOp(OpKind::Sort, {f32({8})}, {f32({8})}).route().reason,
            "sort without a dimension");
  EXPECT_EQ(OneOp(OpKind::RngBitGenerator, {}, {}).route().reason,
            "no TTIR emitter for rng_bit_generator yet");
}

TEST(OpRoutes, OtherRoutesWhenAvailable) {
  PlanOptions all;
  all.library_route = all.control_route = all.collective_route = true;
  OneOp dot(OpKind::DotGeneral, {f32({2, 2}), f32({2, 2})}, {f32({2, 2})});
  EXPECT_EQ(dot.route().reason, "no library route for dot_general yet");
  EXPECT_EQ(dot.route(all).route, Route::kLibrary);
  OneOp loop(OpKind::While, {f32()}, {f32()});
  EXPECT_EQ(loop.route().reason, "no control route for while yet");
  EXPECT_EQ(loop.route(all).route, Route::kControl);
  OneOp sum(OpKind::AllReduce, {f32({4})}, {f32({4})});
  EXPECT_EQ(sum.route().reason, "no collective route for all_reduce yet");
  EXPECT_EQ(sum.route(all).route, Route::kCollective);
}

TEST(OpRoutes, CustomCallsByTarget) {
  auto call = [](std::string target) {
    return OneOp(OpKind::CustomCall, {f32({4})}, {f32({4})},
                 {{"call_target_name", std::move(target)}});
  };
  EXPECT_EQ(call("Sharding").route().route, Route::kNone);
  EXPECT_TRUE(call("SPMDFullToShardShape").route().supported);
  EXPECT_EQ(call("cusolver_getrf_ffi").route().reason,
            "no library route for custom_call @cusolver_getrf_ffi yet");
  PlanOptions library;
  library.library_route = true;
  EXPECT_EQ(call("cublas_geqrf_batched").route(library).route, Route::kLibrary);
  OpRoute other = call("my_kernel").route(library);
  EXPECT_FALSE(other.supported);
  EXPECT_NE(other.reason.find("custom_call @my_kernel is not an XLA FFI call"),
            std::string::npos)
      << other.reason;
  EXPECT_NE(other.reason.find("jax.ffi.register_ffi_target('my_kernel'"),
            std::string::npos)
      << other.reason;
  // A typed-FFI call (api_version 4): the custom-call route, when available.
  OneOp ffi(OpKind::CustomCall, {f32({4})}, {f32({4})},
            {{"api_version", ir::CustomCallApiVersion::TYPED_FFI},
             {"call_target_name", std::string("my_kernel")}});
  EXPECT_EQ(ffi.route(library).reason,
            "no custom-call route for custom_call @my_kernel yet");
  PlanOptions custom = library;
  custom.custom_call_route = true;
  EXPECT_EQ(ffi.route(custom).route, Route::kCustomCall);
  EXPECT_EQ(call("cusolver_getrf_ffi").route(custom).route, Route::kLibrary);
}

TEST(OpRoutes, LibraryTargetTheLibraryCannotPlanRunsItsFfiHandler) {
  auto ffi = [](std::string target) {
    return OneOp(OpKind::CustomCall, {f32({4})}, {f32({4})},
                 {{"api_version", ir::CustomCallApiVersion::TYPED_FFI},
                  {"call_target_name", std::move(target)}});
  };
  PlanOptions options;
  options.library_route = true;
  options.custom_call_route = true;
  options.library_takes_call = [](const ir::Op& op) {
    const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
    return target != nullptr && *target == "cusolver_getrf_ffi";
  };
  EXPECT_EQ(ffi("cusolver_getrf_ffi").route(options).route, Route::kLibrary);
  EXPECT_EQ(ffi("cusolver_csrlsvqr_ffi").route(options).route, Route::kCustomCall);
  // Without the custom-call route the library keeps it and says why it cannot.
  options.custom_call_route = false;
  EXPECT_EQ(ffi("cusolver_csrlsvqr_ffi").route(options).route, Route::kLibrary);
  // A library target that is not a typed-FFI call has no handler to run.
  options.custom_call_route = true;
  EXPECT_EQ(OneOp(OpKind::CustomCall, {f32({4})}, {f32({4})},
                  {{"call_target_name", std::string("cusolver_csrlsvqr_ffi")}})
                .route(options)
                .route,
            Route::kLibrary);
}

TEST(OpRoutes, PlumbingAndDenseConstantsNeedNoKernel) {
  EXPECT_EQ(OneOp(OpKind::Tuple, {f32(), f32()}, {Type::makeTuple({f32(), f32()})})
                .route()
                .route,
            Route::kNone);
  EXPECT_EQ(OneOp(OpKind::OptimizationBarrier, {f32()}, {f32()}).route().route,
            Route::kNone);
  EXPECT_EQ(OneOp(OpKind::AfterAll, {}, {Type::token()}).route().route, Route::kNone);
  OneOp dense(OpKind::Constant, {}, {f32({2})},
              {{"value", ir::denseFromValues(f32({2}), {1, 2})}});
  EXPECT_EQ(dense.route().route, Route::kNone);
  OneOp same(OpKind::Constant, {}, {f32({2})},
             {{"value", ir::denseFromValues(f32({2}), {3, 3})}});
  EXPECT_EQ(same.route().route, Route::kTtir);
}

TEST(OpText, SignatureNamesTypesAndTarget) {
  OneOp sort(OpKind::Sort, {f32({8}), i32({8})}, {f32({8}), i32({8})});
  EXPECT_EQ(opSignature(sort.m, sort.op),
            "stablehlo.sort (tensor<8xf32>, tensor<8xi32>) -> (tensor<8xf32>, "
            "tensor<8xi32>)");
  OneOp call(OpKind::CustomCall, {f32({4})}, {f32({4})},
             {{"call_target_name", std::string("cusolver_potrf_ffi")}});
  EXPECT_EQ(opSignature(call.m, call.op),
            "stablehlo.custom_call @cusolver_potrf_ffi (tensor<4xf32>) -> tensor<4xf32>");
  EXPECT_EQ(opUserFrame(call.m, call.op), "");
  call.op.loc = call.m.locations.add({ir::Location::Kind::File, "model.py", 12, 4});
  EXPECT_EQ(opUserFrame(call.m, call.op), "model.py:12:4");
}

}  // namespace
}  // namespace jft::fusion

namespace jft::fusion {
namespace {

using namespace testing;

// Unverified input: an op naming a value that does not exist is reported,
// never read out of the value table.
TEST(OpRoutes, UndefinedValueIsReportedNotRead) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4})});
  ValueId e = b.op1(OpKind::Exponential, {x[0]}, f32({4}));
  b.lastOp().operands[0] = 999;
  b.ret({e});
  const ir::Function& f = b.endFunction();
  Plan plan = planFusions(m, f, ::jft::codegen::ttir::withTtir());
  ASSERT_EQ(plan.unsupported.size(), 1u);
  EXPECT_EQ(plan.unsupported[0].reason,
            "the op names a value the module does not define");
  EXPECT_EQ(plan.unsupported[0].what,
            "stablehlo.exponential (<invalid value %v999>) -> tensor<4xf32>");
  ASSERT_EQ(plan.fusions.size(), 1u);
  EXPECT_EQ(plan.fusions[0].route, Route::kNative);
}

TEST(OpRoutes, EmptyBodyHasAnEmptyPlan) {
  ir::Module m;
  ir::Builder b(m);
  auto x = b.beginFunction("main", {f32({4})}, {f32({4})});
  b.ret({x[0]});
  const ir::Function& f = b.endFunction();
  Plan plan = planFusions(m, f, ::jft::codegen::ttir::withTtir());
  EXPECT_TRUE(plan.fusions.empty());
  EXPECT_TRUE(plan.unsupported.empty());
  EXPECT_EQ(describePlan(m, f, plan), "");
  EXPECT_TRUE(
      planFusions(m, ir::Region{}, ::jft::codegen::ttir::withTtir()).fusions.empty());
}

}  // namespace
}  // namespace jft::fusion
