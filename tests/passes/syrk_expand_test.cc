// syrk_expand: JAX's cusolver_syrk_ffi call becomes a HIGHEST-precision
// dot_general and a masked epilogue. Values are checked against matrices
// worked by hand from the kernel's row-major meaning (syrk_expand.h): the
// lower triangle, diagonal included, is alpha * A A^T + beta * C (A^T A with
// transpose), with no conjugation; the strict upper triangle is C's.
#include "passes/syrk_expand.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "float_eval.h"
#include "pass_test_util.h"
#include "passes/pipeline.h"

namespace jft::passes {
namespace {

using namespace testing;
using C = std::complex<double>;

Type typed(ElementType e, std::vector<int64_t> dims) {
  return tensor(e, std::move(dims));
}

struct Call {
  ElementType element = ElementType::F32;
  std::vector<int64_t> a, c;  // dims
  bool transpose = false;
  std::vector<int64_t> scalar;  // alpha's and beta's dims
};

ir::NamedAttrs syrkAttrs(bool transpose) {
  return {{"call_target_name", std::string("cusolver_syrk_ffi")},
          {"api_version", ir::CustomCallApiVersion::TYPED_FFI},
          {"backend_config", ir::NamedAttrs{{"transpose", ir::Attribute(transpose)}}},
          {"output_operand_aliases", std::vector<ir::OutputOperandAlias>{{{}, 1, {}}}}};
}

// main(a, c, alpha, beta) -> (syrk(a, c, alpha, beta), c): c is returned
// too, so the test sees that the call's operand keeps its value.
ir::Module module(const Call& call, ir::NamedAttrs attrs) {
  ir::Module m;
  ir::Builder b(m);
  const Type a = typed(call.element, call.a), c = typed(call.element, call.c);
  const Type s = typed(call.element, call.scalar);
  auto args = b.beginFunction("main", {a, c, s, s}, {c, c});
  b.setLoc(b.fileLoc("model.py", 3, 1));
  const ValueId out = b.op1(OpKind::CustomCall, args, c, std::move(attrs));
  b.ret({out, args[1]});
  b.endFunction();
  return m;
}

ir::Module module(const Call& call) {
  return module(call, syrkAttrs(call.transpose));
}

FloatTensor values(std::vector<int64_t> dims, std::vector<C> data) {
  return {std::move(dims), std::move(data)};
}

FloatTensor reals(std::vector<int64_t> dims, const std::vector<double>& data) {
  return {std::move(dims), std::vector<C>(data.begin(), data.end())};
}

// The rewritten main on (a, c, alpha, beta); returns (result, c).
std::vector<FloatTensor> run(const Call& call, const FloatTensor& a, const FloatTensor& c,
                             C alpha, C beta) {
  ir::Module m = module(call);
  StatusOr<bool> changed = expandSyrkCalls(m);
  EXPECT_TRUE(changed.isOk()) << changed.status().toString();
  EXPECT_TRUE(changed.isOk() && *changed);
  expectVerifies(m);
  const FloatTensor s = values(call.scalar, {alpha});
  const FloatTensor t = values(call.scalar, {beta});
  return evaluateFloat(m, {a, c, s, t});
}

void expectValues(const FloatTensor& got, const std::vector<C>& want) {
  ASSERT_EQ(got.data.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(got.data[i], want[i]) << "element " << i;
}

// The dimension numbers of the one product the rewrite of `call` holds.
ir::DotDimensionNumbers productNumbers(const Call& call) {
  ir::Module m = module(call);
  EXPECT_TRUE(expandSyrkCalls(m).isOk());
  for (const ir::Op& op : mainOf(m).body.ops) {
    if (op.kind != OpKind::DotGeneral) continue;
    return *ir::findAttrAs<ir::DotDimensionNumbers>(op.attrs, "dot_dimension_numbers");
  }
  ADD_FAILURE() << "no dot_general";
  return {};
}

const FloatTensor kA = reals({3, 2}, {1, 2, 3, 4, 5, 6});

TEST(SyrkExpand, BecomesAHighestPrecisionProductAndAMaskedEpilogue) {
  ir::Module m = module({ElementType::F32, {3, 2}, {3, 3}});
  const ValueId result = returned(mainOf(m))[0];
  StatusOr<bool> changed = expandSyrkCalls(m);
  ASSERT_TRUE(changed.isOk()) << changed.status().toString();
  EXPECT_TRUE(*changed);
  expectVerifies(m);
  const ir::Function& f = mainOf(m);
  const ir::Op* dot = nullptr;
  for (const ir::Op& op : f.body.ops) {
    EXPECT_NE(op.kind, OpKind::CustomCall);
    if (op.kind == OpKind::DotGeneral) dot = &op;
  }
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->operands, (std::vector<ValueId>{f.body.args[0], f.body.args[0]}));
  EXPECT_EQ(m.typeOf(dot->results[0]), f32({3, 3}));
  const auto* numbers =
      ir::findAttrAs<ir::DotDimensionNumbers>(dot->attrs, "dot_dimension_numbers");
  ASSERT_NE(numbers, nullptr);
  EXPECT_EQ(*numbers, (ir::DotDimensionNumbers{{}, {}, {1}, {1}}));
  const auto* precision =
      ir::findAttrAs<std::vector<ir::Precision>>(dot->attrs, "precision_config");
  ASSERT_NE(precision, nullptr);
  EXPECT_EQ(*precision,
            (std::vector<ir::Precision>{ir::Precision::HIGHEST, ir::Precision::HIGHEST}));
  // The call's result id is kept, defined by the final select.
  EXPECT_EQ(returned(f)[0], result);
  ASSERT_NE(definer(f, result), nullptr);
  EXPECT_EQ(definer(f, result)->kind, OpKind::Select);
}

TEST(SyrkExpand, LowerTriangleIsAlphaAATPlusBetaCUpperIsC) {
  // A A^T = [[5, 11, 17], [11, 25, 39], [17, 39, 61]]; alpha 2, beta 3.
  const FloatTensor c = reals({3, 3}, {10, 11, 12, 13, 14, 15, 16, 17, 18});
  auto out = run({ElementType::F32, {3, 2}, {3, 3}}, kA, c, 2.0, 3.0);
  ASSERT_EQ(out.size(), 2u);
  expectValues(out[0], {40, 11, 12, 61, 92, 15, 82, 129, 176});
  // The aliased operand keeps its value.
  expectValues(out[1], {10, 11, 12, 13, 14, 15, 16, 17, 18});
}

TEST(SyrkExpand, TransposeComputesATA) {
  // A^T A = [[35, 44], [44, 56]]; alpha 1, beta -1, c = [[1, 2], [3, 4]].
  const FloatTensor c = reals({2, 2}, {1, 2, 3, 4});
  auto out = run({ElementType::F64, {3, 2}, {2, 2}, true}, kA, c, 1.0, -1.0);
  expectValues(out[0], {34, 2, 41, 52});
  // The product contracts a's rows (dim 0) on both sides.
  EXPECT_EQ(productNumbers({ElementType::F64, {3, 2}, {2, 2}, true}),
            (ir::DotDimensionNumbers{{}, {}, {0}, {0}}));
}

TEST(SyrkExpand, BatchesAreIndependent) {
  // Two [2, 3] matrices:
  //   A0 = [[1, 0, 2], [0, 1, 1]]: A0 A0^T = [[5, 2], [2, 2]]
  //   A1 = [[0, 3, 0], [1, 0, 1]]: A1 A1^T = [[9, 0], [0, 2]]
  // alpha -1, beta 2, c0 = [[1, 7], [2, 3]], c1 = [[4, 8], [5, 6]].
  const FloatTensor a = reals({2, 2, 3}, {1, 0, 2, 0, 1, 1, 0, 3, 0, 1, 0, 1});
  const FloatTensor c = reals({2, 2, 2}, {1, 7, 2, 3, 4, 8, 5, 6});
  auto out = run({ElementType::F32, {2, 2, 3}, {2, 2, 2}}, a, c, -1.0, 2.0);
  // lower: -P + 2c; upper: c.
  expectValues(out[0], {-5 + 2, 7, -2 + 4, -2 + 6, -9 + 8, 8, 0 + 10, -2 + 12});
  EXPECT_EQ(productNumbers({ElementType::F32, {2, 2, 3}, {2, 2, 2}}),
            (ir::DotDimensionNumbers{{0}, {0}, {2}, {2}}));
}

TEST(SyrkExpand, ComplexIsSymmetricNotHermitian) {
  // A = [[1+i, 2], [0, i]]: A A^T (no conjugate) = [[4+2i, 2i], [2i, -1]]
  // (A A^H would have 6 on the diagonal). alpha i, beta 2,
  // c = [[1, 5], [i, 1]]: lower = i P + 2c.
  const C i(0, 1);
  const FloatTensor a = values({2, 2}, {1.0 + i, 2, 0, i});
  const FloatTensor c = values({2, 2}, {1, 5, i, 1});
  for (ElementType e : {ElementType::C64, ElementType::C128}) {
    auto out = run({e, {2, 2}, {2, 2}}, a, c, i, 2.0);
    expectValues(out[0], {4.0 * i, 5, -2.0 + 2.0 * i, 2.0 - i});
  }
}

TEST(SyrkExpand, BetaZeroDoesNotReadC) {
  // BLAS: with beta 0, C need not be set; NaN there stays out of the lower
  // triangle and stays in the upper one (the kernel leaves it).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const FloatTensor c = reals({3, 3}, {nan, nan, nan, nan, nan, nan, nan, nan, nan});
  auto out = run({ElementType::F32, {3, 2}, {3, 3}}, kA, c, 1.0, 0.0);
  const std::vector<double> lower = {5, 0, 0, 11, 25, 0, 17, 39, 61};
  for (int64_t r = 0; r < 3; ++r)
    for (int64_t col = 0; col < 3; ++col) {
      const C v = out[0].data[static_cast<size_t>(r * 3 + col)];
      if (r >= col)
        EXPECT_EQ(v, C(lower[static_cast<size_t>(r * 3 + col)])) << r << "," << col;
      else
        EXPECT_TRUE(std::isnan(v.real())) << r << "," << col;
    }
}

TEST(SyrkExpand, OneElementScalarsOfRankOneAreReshaped) {
  const FloatTensor c = reals({3, 3}, {10, 11, 12, 13, 14, 15, 16, 17, 18});
  auto out = run({ElementType::F32, {3, 2}, {3, 3}, false, {1}}, kA, c, 2.0, 3.0);
  expectValues(out[0], {40, 11, 12, 61, 92, 15, 82, 129, 176});
}

TEST(SyrkExpand, TransposeInMhloBackendConfigOrAsAnInteger) {
  for (const char* holder : {"backend_config", "mhlo.backend_config"}) {
    ir::NamedAttrs attrs = {
        {"call_target_name", std::string("cusolver_syrk_ffi")},
        {holder, ir::NamedAttrs{{"transpose", ir::Attribute(int64_t{1})}}}};
    const FloatTensor c = reals({2, 2}, {1, 2, 3, 4});
    ir::Module m = module({ElementType::F64, {3, 2}, {2, 2}}, std::move(attrs));
    ASSERT_TRUE(expandSyrkCalls(m).isOk()) << holder;
    auto out = evaluateFloat(m, {kA, c, values({}, {1.0}), values({}, {-1.0})});
    expectValues(out[0], {34, 2, 41, 52});
  }
}

TEST(SyrkExpand, OtherCallsAreLeftAlone) {
  ir::Module m = module({ElementType::F32, {3, 2}, {3, 3}},
                        {{"call_target_name", std::string("cusolver_csrlsvqr_ffi")}});
  StatusOr<bool> changed = expandSyrkCalls(m);
  ASSERT_TRUE(changed.isOk());
  EXPECT_FALSE(*changed);
  EXPECT_EQ(kindsOf(mainOf(m).body),
            (std::vector<OpKind>{OpKind::CustomCall, OpKind::Return}));
}

// --- bad calls: one clear error each, naming the call and its line ----------

void expectRejected(ir::Module m, const std::string& why) {
  StatusOr<bool> changed = expandSyrkCalls(m);
  ASSERT_FALSE(changed.isOk()) << why;
  EXPECT_EQ(changed.status().code(), StatusCode::kInvalidArgument);
  const std::string& message = changed.status().message();
  EXPECT_NE(message.find("custom_call @cusolver_syrk_ffi at model.py:3"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(why), std::string::npos) << message << "\nlacks: " << why;
}

ir::Module withOperands(const std::vector<Type>& operands,
                        const std::vector<Type>& results,
                        ir::NamedAttrs attrs = syrkAttrs(false)) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", operands, results);
  b.setLoc(b.fileLoc("model.py", 3, 1));
  auto out = b.op(OpKind::CustomCall, args, results, std::move(attrs));
  b.ret(out);
  b.endFunction();
  return m;
}

TEST(SyrkExpand, BadCallsAreClearErrors) {
  const Type s = f32();
  expectRejected(withOperands({f32({3, 2}), f32({3, 3})}, {f32({3, 3})}),
                 "expected 4 operands (a, c, alpha, beta) and 1 result, got 2 operands");
  expectRejected(
      withOperands({f32({3, 2}), f32({3, 3}), s, s}, {f32({3, 3}), f32({3, 3})}),
      "and 2 results");
  const Type h = tensor(ElementType::BF16, {3, 2});
  const Type hc = tensor(ElementType::BF16, {3, 3});
  const Type hs = tensor(ElementType::BF16);
  expectRejected(withOperands({h, hc, hs, hs}, {hc}),
                 "element type bf16 is not one syrk computes");
  expectRejected(withOperands({f32({3}), f32({3, 3}), s, s}, {f32({3, 3})}),
                 "operand a must be a batch of matrices, got tensor<3xf32>");
  expectRejected(withOperands({f32({3, 2}), f32({2, 2}), s, s}, {f32({2, 2})}),
                 "operand c is tensor<2x2xf32>, expected tensor<3x3xf32>");
  expectRejected(
      withOperands({f32({3, 2}), f32({3, 3}), s, s}, {f32({2, 2})}, syrkAttrs(true)),
      "operand c is tensor<3x3xf32>, expected tensor<2x2xf32> for a "
      "tensor<3x2xf32> with transpose");
  expectRejected(withOperands({f32({2, 3, 2}), f32({3, 3, 3}), s, s}, {f32({3, 3, 3})}),
                 "expected tensor<2x3x3xf32>");
  expectRejected(withOperands({f32({3, 2}), f32({3, 3}), s, s}, {f32({3, 2})}),
                 "the result is tensor<3x2xf32>, expected tensor<3x3xf32>");
  expectRejected(withOperands({f32({3, 2}), f32({3, 3}), tensor(ElementType::F64), s},
                              {f32({3, 3})}),
                 "alpha is tensor<f64>, expected one element of f32");
  expectRejected(withOperands({f32({3, 2}), f32({3, 3}), s, f32({2})}, {f32({3, 3})}),
                 "beta is tensor<2xf32>");
  expectRejected(withOperands({f32({3, 2}), f32({3, 3}), s, s}, {f32({3, 3})},
                              {{"call_target_name", std::string("cusolver_syrk_ffi")}}),
                 "the configuration has no bool `transpose`");
  ir::NamedAttrs column_major = syrkAttrs(false);
  ir::AttrList layouts = {ir::Attribute(std::vector<int64_t>{0, 1}),
                          ir::Attribute(std::vector<int64_t>{1, 0}),
                          ir::Attribute(std::vector<int64_t>{}),
                          ir::Attribute(std::vector<int64_t>{})};
  column_major.push_back({"operand_layouts", layouts});
  expectRejected(
      withOperands({f32({3, 2}), f32({3, 3}), s, s}, {f32({3, 3})}, column_major),
      "operand_layouts entry 0 is not row-major");
}

TEST(SyrkExpand, RowMajorLayoutsAreAccepted) {
  ir::NamedAttrs attrs = syrkAttrs(false);
  attrs.push_back(
      {"operand_layouts", ir::AttrList{ir::Attribute(std::vector<int64_t>{1, 0}),
                                       ir::Attribute(std::vector<int64_t>{1, 0}),
                                       ir::Attribute(std::vector<int64_t>{}),
                                       ir::Attribute(std::vector<int64_t>{})}});
  attrs.push_back(
      {"result_layouts", ir::AttrList{ir::Attribute(std::vector<int64_t>{1, 0})}});
  ir::Module m = module({ElementType::F32, {3, 2}, {3, 3}}, std::move(attrs));
  StatusOr<bool> changed = expandSyrkCalls(m);
  ASSERT_TRUE(changed.isOk()) << changed.status().toString();
  EXPECT_TRUE(*changed);
}

// --- in the pipeline -----------------------------------------------------------

TEST(SyrkExpand, ThePipelineLeavesNoCallAndTheSameValues) {
  ir::Module m = module({ElementType::F32, {3, 2}, {3, 3}});
  PipelineOptions options;
  options.verify = true;
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  bool ran = false;
  for (const PassRecord& record : report->passes)
    if (record.pass == "syrk_expand") ran = record.changed;
  EXPECT_TRUE(ran);
  std::function<void(const ir::Region&)> scan = [&](const ir::Region& region) {
    for (const ir::Op& op : region.ops) {
      EXPECT_NE(op.kind, OpKind::CustomCall);
      for (const ir::Region& nested : op.regions) scan(nested);
    }
  };
  scan(mainOf(m).body);
  const FloatTensor c = reals({3, 3}, {10, 11, 12, 13, 14, 15, 16, 17, 18});
  auto out = evaluateFloat(m, {kA, c, values({}, {2.0}), values({}, {3.0})});
  ASSERT_EQ(out.size(), 2u);
  expectValues(out[0], {40, 11, 12, 61, 92, 15, 82, 129, 176});
  expectValues(out[1], {10, 11, 12, 13, 14, 15, 16, 17, 18});
}

// JAX passes alpha and beta as constants, which the pipeline folds: with
// beta 0 the result's upper triangle is still C's, NaN included.
TEST(SyrkExpand, ThePipelineWithConstantBetaZeroKeepsCsUpperTriangle) {
  ir::Module m;
  {
    ir::Builder b(m);
    const Type a = f32({2, 4, 3}), c = f32({2, 4, 4}), s = f32({});
    auto args = b.beginFunction("main", {a, c}, {c});
    b.setLoc(b.fileLoc("model.py", 3, 1));
    const ValueId alpha = splat(b, s, 1.5), beta = splat(b, s, 0.0);
    const ValueId out =
        b.op1(OpKind::CustomCall, {args[0], args[1], alpha, beta}, c, syrkAttrs(false));
    b.ret({out});
    b.endFunction();
  }
  PipelineOptions options;
  options.verify = true;
  StatusOr<PipelineReport> report = runPasses(m, options);
  ASSERT_TRUE(report.isOk()) << report.status().toString();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> a_data(24);
  for (size_t i = 0; i < a_data.size(); ++i) a_data[i] = static_cast<double>(i % 5) - 1;
  auto out = evaluateFloat(
      m, {reals({2, 4, 3}, a_data), reals({2, 4, 4}, std::vector<double>(32, nan))});
  ASSERT_EQ(out.size(), 1u);
  for (int64_t batch = 0; batch < 2; ++batch)
    for (int64_t r = 0; r < 4; ++r)
      for (int64_t col = 0; col < 4; ++col) {
        const C v = out[0].data[static_cast<size_t>(batch * 16 + r * 4 + col)];
        if (r < col) {
          EXPECT_TRUE(std::isnan(v.real()))
              << batch << ":" << r << "," << col << " " << v;
          continue;
        }
        double dot = 0;
        for (int64_t k = 0; k < 3; ++k)
          dot += a_data[static_cast<size_t>(batch * 12 + r * 3 + k)] *
                 a_data[static_cast<size_t>(batch * 12 + col * 3 + k)];
        EXPECT_EQ(v, C(1.5 * dot)) << batch << ":" << r << "," << col;
      }
}

TEST(SyrkExpand, ThePipelineReportsABadCall) {
  ir::Module m = withOperands({f32({3, 2}), f32({3, 3})}, {f32({3, 3})});
  StatusOr<PipelineReport> report = runPasses(m);
  ASSERT_FALSE(report.isOk());
  EXPECT_NE(
      report.status().message().find("custom_call @cusolver_syrk_ffi at model.py:3"),
      std::string::npos)
      << report.status().message();
}

}  // namespace
}  // namespace jft::passes
