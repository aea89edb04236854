// lowerConvolution: for each convolution form (strides, padding, dilations,
// reversal, feature and batch groups, layouts, the forward/input-gradient/
// weight-gradient forms JAX emits), the plan's product sizes and kernels
// are checked by hand, every scratch function verifies and is accepted by
// the TTIR emitter, and the whole lowering evaluated on the host (its
// scratch ops by their spec definitions, then the GEMM by GemmDesc's)
// equals the convolution computed here by the StableHLO spec's definition,
// exactly, on small integer-valued data.
#include "codegen/library/convolution_call.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "codegen/library/cudnn_conv.h"
#include "codegen/ttir/capability.h"
#include "codegen/ttir/kernel.h"
#include "compiler/compiler.h"
#include "compiler/host_eval.h"
#include "compiler/zoo_fixture.h"
#include "fusion/ttir_support.h"
#include "ir/builder.h"
#include "ir/verifier.h"
#include "runtime/program.h"

namespace jft::compiler {
namespace {

using namespace jft::codegen::library;

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using testing::count;
using testing::HostEval;
using testing::HostTensor;
using testing::ravel;
using testing::unravel;

// Layout letters: lhs "b" batch "f" feature, rhs "i"/"o", out "b"/"f",
// digits the spatial dims.
ir::ConvDimensionNumbers numbers(const std::string& lhs, const std::string& rhs,
                                 const std::string& out) {
  ir::ConvDimensionNumbers dn;
  const size_t s = lhs.size() - 2;
  dn.input_spatial_dims.resize(s);
  dn.kernel_spatial_dims.resize(s);
  dn.output_spatial_dims.resize(s);
  for (size_t d = 0; d < lhs.size(); ++d) {
    const int64_t i = static_cast<int64_t>(d);
    if (lhs[d] == 'b')
      dn.input_batch_dim = i;
    else if (lhs[d] == 'f')
      dn.input_feature_dim = i;
    else
      dn.input_spatial_dims[static_cast<size_t>(lhs[d] - '0')] = i;
    if (rhs[d] == 'i')
      dn.kernel_input_feature_dim = i;
    else if (rhs[d] == 'o')
      dn.kernel_output_feature_dim = i;
    else
      dn.kernel_spatial_dims[static_cast<size_t>(rhs[d] - '0')] = i;
    if (out[d] == 'b')
      dn.output_batch_dim = i;
    else if (out[d] == 'f')
      dn.output_feature_dim = i;
    else
      dn.output_spatial_dims[static_cast<size_t>(out[d] - '0')] = i;
  }
  return dn;
}

struct Case {
  std::string name;
  std::vector<int64_t> lhs, rhs;
  std::string lhs_layout, rhs_layout, out_layout;
  std::vector<int64_t> strides, padding, lhs_dilation, rhs_dilation;  // empty: defaults
  std::vector<bool> reversal;
  int64_t feature_groups = 1, batch_groups = 1;
  // Expected: GemmDesc batch, m, n, k and the call's kernels.
  int64_t batch, m, n, k;
  std::string kernels;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

struct Conv {
  ir::ConvDimensionNumbers dn;
  size_t s;
  std::vector<int64_t> strides, lo, hi, ld, rd;
  std::vector<bool> rev;
};

Conv convOf(const Case& c) {
  Conv v;
  v.dn = numbers(c.lhs_layout, c.rhs_layout, c.out_layout);
  v.s = c.lhs.size() - 2;
  auto orOnes = [&](const std::vector<int64_t>& x) {
    return x.empty() ? std::vector<int64_t>(v.s, 1) : x;
  };
  v.strides = orOnes(c.strides);
  v.ld = orOnes(c.lhs_dilation);
  v.rd = orOnes(c.rhs_dilation);
  for (size_t i = 0; i < v.s; ++i) {
    v.lo.push_back(c.padding.empty() ? 0 : c.padding[2 * i]);
    v.hi.push_back(c.padding.empty() ? 0 : c.padding[2 * i + 1]);
  }
  v.rev = c.reversal.empty() ? std::vector<bool>(v.s, false) : c.reversal;
  return v;
}

// The result shape by the spec's formula.
std::vector<int64_t> outShape(const Case& c, const Conv& v) {
  std::vector<int64_t> out(c.lhs.size());
  out[static_cast<size_t>(v.dn.output_batch_dim)] =
      c.lhs[static_cast<size_t>(v.dn.input_batch_dim)] / c.batch_groups;
  out[static_cast<size_t>(v.dn.output_feature_dim)] =
      c.rhs[static_cast<size_t>(v.dn.kernel_output_feature_dim)];
  for (size_t i = 0; i < v.s; ++i) {
    const int64_t in = c.lhs[static_cast<size_t>(v.dn.input_spatial_dims[i])];
    const int64_t win = c.rhs[static_cast<size_t>(v.dn.kernel_spatial_dims[i])];
    const int64_t dilated = (in - 1) * v.ld[i] + 1 + v.lo[i] + v.hi[i];
    const int64_t window = (win - 1) * v.rd[i] + 1;
    out[static_cast<size_t>(v.dn.output_spatial_dims[i])] =
        dilated < window ? 0 : (dilated - window) / v.strides[i] + 1;
  }
  return out;
}

// The convolution by its definition: every output element a sum over the
// window and the input features of its group.
HostTensor reference(const Case& c, const Conv& v, const HostTensor& lhs,
                     const HostTensor& rhs, const std::vector<int64_t>& out_dims) {
  HostTensor out{out_dims, std::vector<double>(static_cast<size_t>(count(out_dims)))};
  const auto& dn = v.dn;
  const int64_t features = c.rhs[static_cast<size_t>(dn.kernel_output_feature_dim)];
  const int64_t per_group = features / (c.feature_groups * c.batch_groups);
  const int64_t ci = c.rhs[static_cast<size_t>(dn.kernel_input_feature_dim)];
  const int64_t nb = out_dims[static_cast<size_t>(dn.output_batch_dim)];
  std::vector<int64_t> window;
  for (size_t i = 0; i < v.s; ++i)
    window.push_back(c.rhs[static_cast<size_t>(dn.kernel_spatial_dims[i])]);
  for (int64_t at = 0; at < count(out_dims); ++at) {
    const std::vector<int64_t> o = unravel(at, out_dims);
    const int64_t f = o[static_cast<size_t>(dn.output_feature_dim)];
    const int64_t g = f / per_group;
    int64_t b = o[static_cast<size_t>(dn.output_batch_dim)];
    if (c.batch_groups > 1) b += g * nb;
    double sum = 0;
    for (int64_t w = 0; w < count(window); ++w) {
      const std::vector<int64_t> wi = unravel(w, window);
      std::vector<int64_t> li(c.lhs.size()), ri(c.rhs.size());
      bool inside = true;
      for (size_t i = 0; i < v.s; ++i) {
        const int64_t p =
            o[static_cast<size_t>(dn.output_spatial_dims[i])] * v.strides[i] +
            wi[i] * v.rd[i] - v.lo[i];
        const int64_t in = c.lhs[static_cast<size_t>(dn.input_spatial_dims[i])];
        if (p < 0 || p % v.ld[i] != 0 || p / v.ld[i] >= in) inside = false;
        li[static_cast<size_t>(dn.input_spatial_dims[i])] = p / v.ld[i];
        ri[static_cast<size_t>(dn.kernel_spatial_dims[i])] =
            v.rev[i] ? window[i] - 1 - wi[i] : wi[i];
      }
      if (!inside) continue;
      for (int64_t x = 0; x < ci; ++x) {
        li[static_cast<size_t>(dn.input_batch_dim)] = b;
        li[static_cast<size_t>(dn.input_feature_dim)] =
            c.feature_groups > 1 ? g * ci + x : x;
        ri[static_cast<size_t>(dn.kernel_input_feature_dim)] = x;
        ri[static_cast<size_t>(dn.kernel_output_feature_dim)] = f;
        sum += lhs.data[static_cast<size_t>(ravel(li, lhs.dims))] *
               rhs.data[static_cast<size_t>(ravel(ri, rhs.dims))];
      }
    }
    out.data[static_cast<size_t>(at)] = sum;
  }
  return out;
}

HostTensor integers(const std::vector<int64_t>& dims, int64_t seed) {
  HostTensor t{dims, {}};
  for (int64_t i = 0; i < count(dims); ++i)
    t.data.push_back(static_cast<double>((i * 7 + seed * 3) % 9 - 4));
  return t;
}

// main(lhs, rhs) -> convolution, returned.
ir::Module convModule(const Case& c, const Conv& v,
                      ElementType element = ElementType::F32,
                      ElementType result = ElementType::F32,
                      std::vector<ir::Precision> precision = {}) {
  ir::Module m;
  ir::Builder b(m);
  const Type out = Type::tensor(result, outShape(c, v));
  auto args = b.beginFunction(
      "main", {Type::tensor(element, c.lhs), Type::tensor(element, c.rhs)}, {out});
  b.setLoc(b.fileLoc("model.py", 12, 5));
  std::vector<int64_t> padding;
  for (size_t i = 0; i < v.s; ++i) {
    padding.push_back(v.lo[i]);
    padding.push_back(v.hi[i]);
  }
  ir::NamedAttrs attrs = {{"dimension_numbers", v.dn},
                          {"window_strides", v.strides},
                          {"padding", padding},
                          {"lhs_dilation", v.ld},
                          {"rhs_dilation", v.rd},
                          {"window_reversal", v.rev},
                          {"feature_group_count", c.feature_groups},
                          {"batch_group_count", c.batch_groups}};
  if (!precision.empty()) attrs.emplace_back("precision_config", precision);
  const ir::ValueId r = b.op1(OpKind::Convolution, {args[0], args[1]}, out, attrs);
  b.ret({r});
  b.endFunction();
  return m;
}

fusion::Fusion libraryGroup(const ir::Module& m) {
  const ir::Function& f = m.functions[0];
  fusion::Fusion group;
  group.name = "fusion_0_library_convolution";
  group.route = fusion::Route::kLibrary;
  group.ops = {0};
  group.inputs = f.body.args;
  group.outputs = f.body.ops[0].results;
  return group;
}

class ConvolutionCall : public ::testing::TestWithParam<Case> {};

TEST_P(ConvolutionCall, PlanIsCheckedAndItsHostEvaluationIsTheConvolution) {
  const Case& c = GetParam();
  const Conv v = convOf(c);
  ir::Module m = convModule(c, v);
  ASSERT_TRUE(ir::verifyModule(m).isOk()) << ir::verifyModule(m).toString();
  const ir::Op conv = m.functions[0].body.ops[0];
  ASSERT_TRUE(checkConvolution(m, conv).isOk()) << checkConvolution(m, conv).toString();
  StatusOr<LibraryCall> lowered = lowerConvolution(m, libraryGroup(m), conv);
  ASSERT_TRUE(lowered.isOk()) << lowered.status().toString();
  const LibraryCall& call = *lowered;
  const runtime::GemmDesc& g = call.dot.gemm;
  SCOPED_TRACE(runtime::gemmText(g));
  EXPECT_EQ(g.batch, c.batch);
  EXPECT_EQ(g.m, c.m);
  EXPECT_EQ(g.n, c.n);
  EXPECT_EQ(g.k, c.k);
  EXPECT_EQ(g.compute, runtime::GemmCompute::kTf32);
  EXPECT_EQ(call.convolution, c.kernels);
  EXPECT_TRUE(runtime::validateGemm(g).isOk());
  EXPECT_EQ(libraryCallText(call).find("cublaslt m="), 0u) << libraryCallText(call);

  // Each kernel: a verified function of ops the TTIR route runs, emitted.
  for (const auto* list : {&call.transposes, &call.after})
    for (const OperandTranspose& t : *list) {
      ir::Module alone;
      alone = m;
      alone.functions = {t.scratch};
      alone.functions[0].is_public = true;
      Status valid = ir::verifyModule(alone);
      EXPECT_TRUE(valid.isOk()) << t.scratch.name << ": " << valid.toString();
      for (size_t i : t.group.ops) {
        const fusion::TtirSupport s =
            ::jft::codegen::ttir::ttirSupport(m, t.scratch.body.ops[i]);
        EXPECT_TRUE(s.ok) << s.reason;
      }
      StatusOr<codegen::ttir::TtirKernel> kernel =
          codegen::ttir::emitKernel(m, t.scratch, t.group);
      EXPECT_TRUE(kernel.isOk()) << t.scratch.name << ": " << kernel.status().toString();
    }

  HostEval eval(m);
  const HostTensor lhs = integers(c.lhs, 1), rhs = integers(c.rhs, 2);
  eval.values[conv.operands[0]] = lhs;
  eval.values[conv.operands[1]] = rhs;
  for (const OperandTranspose& t : call.transposes) eval.run(t.scratch);
  eval.gemm(g, call.a, call.b, call.d);
  for (const OperandTranspose& t : call.after) eval.run(t.scratch);
  const HostTensor want = reference(c, v, lhs, rhs, m.typeOf(conv.results[0]).dims);
  const HostTensor& got = eval.values.at(conv.results[0]);
  ASSERT_EQ(got.dims, want.dims);
  size_t wrong = 0;
  for (size_t i = 0; i < want.data.size(); ++i) wrong += got.data[i] != want.data[i];
  EXPECT_EQ(wrong, 0u) << "of " << want.data.size();
}

// The rhs as the cuDNN route hands it over: reversed along `reverse`, then
// transposed by `permutation`, by the StableHLO definitions of both.
HostTensor filterOf(const HostTensor& rhs, const std::vector<int64_t>& reverse,
                    const std::vector<int64_t>& permutation) {
  HostTensor out = rhs;
  for (int64_t at = 0; at < count(rhs.dims); ++at) {
    std::vector<int64_t> i = unravel(at, rhs.dims);
    for (int64_t d : reverse)
      i[static_cast<size_t>(d)] =
          rhs.dims[static_cast<size_t>(d)] - 1 - i[static_cast<size_t>(d)];
    out.data[static_cast<size_t>(at)] = rhs.data[static_cast<size_t>(ravel(i, rhs.dims))];
  }
  if (permutation.empty()) return out;
  HostTensor t{{}, out.data};
  for (int64_t p : permutation) t.dims.push_back(out.dims[static_cast<size_t>(p)]);
  for (int64_t at = 0; at < count(t.dims); ++at) {
    const std::vector<int64_t> i = unravel(at, t.dims);
    std::vector<int64_t> from(i.size());
    for (size_t d = 0; d < i.size(); ++d)
      from[static_cast<size_t>(permutation[d])] = i[d];
    t.data[static_cast<size_t>(at)] =
        out.data[static_cast<size_t>(ravel(from, out.dims))];
  }
  return t;
}

// What cuDNN computes for `d` (runtime/conv.h, the library's definition):
// the forward's terms y[n,k,o] += x[n, g*Cg + c, o*stride + r*dilation -
// pre] * w[k, c, r] summed into y, or (backward data) into x, or (backward
// filter) into w, over the flat buffers lhs, rhs, result by their strides.
std::vector<double> cudnnDefinition(const runtime::ConvDesc& d,
                                    const std::vector<double>& lhs,
                                    const std::vector<double>& rhs, size_t result_size) {
  std::vector<double> result(result_size, 0.0);
  const size_t s = d.strides.size();
  const int64_t cg = d.w.dims[1], kg = d.w.dims[0] / runtime::convGroups(d);
  std::vector<int64_t> out_dims(d.y.dims.begin() + 2, d.y.dims.end());
  std::vector<int64_t> window(d.w.dims.begin() + 2, d.w.dims.end());
  for (int64_t n = 0; n < d.x.dims[0]; ++n)
    for (int64_t k = 0; k < d.w.dims[0]; ++k)
      for (int64_t c = 0; c < cg; ++c)
        for (int64_t oa = 0; oa < count(out_dims); ++oa)
          for (int64_t ra = 0; ra < count(window); ++ra) {
            const std::vector<int64_t> o = unravel(oa, out_dims), r = unravel(ra, window);
            int64_t xo = n * d.x.strides[0] + ((k / kg) * cg + c) * d.x.strides[1];
            int64_t wo = k * d.w.strides[0] + c * d.w.strides[1];
            int64_t yo = n * d.y.strides[0] + k * d.y.strides[1];
            bool inside = true;
            for (size_t i = 0; i < s; ++i) {
              const int64_t p =
                  o[i] * d.strides[i] + r[i] * d.dilations[i] - d.pre_padding[i];
              inside = inside && p >= 0 && p < d.x.dims[i + 2];
              xo += p * d.x.strides[i + 2];
              wo += (d.flip ? window[i] - 1 - r[i] : r[i]) * d.w.strides[i + 2];
              yo += o[i] * d.y.strides[i + 2];
            }
            if (!inside) continue;
            auto at = [](const std::vector<double>& v, int64_t i) {
              return v[static_cast<size_t>(i)];
            };
            switch (d.kind) {
              case runtime::ConvKind::kForward:  // lhs x, rhs w, result y
                result[static_cast<size_t>(yo)] += at(lhs, xo) * at(rhs, wo);
                break;
              case runtime::ConvKind::kBackwardData:  // lhs dy, rhs w, result dx
                result[static_cast<size_t>(xo)] += at(lhs, yo) * at(rhs, wo);
                break;
              case runtime::ConvKind::kBackwardFilter:  // lhs x, rhs dy, result dw
                result[static_cast<size_t>(wo)] += at(lhs, xo) * at(rhs, yo);
                break;
            }
          }
  return result;
}

// The cuDNN description of each form, run by cuDNN's definition on the
// operands as the route hands them over (the rhs through its filter
// kernel, the result through its transpose kernel when written in another
// order), equals the convolution by the StableHLO definition, exactly:
// the mapping of codegen/library/cudnn_conv.h proved on every form it accepts.
// Refused here: mixed window reversal only (negative high padding, and the
// input gradient's negative low padding, are exact).
TEST_P(ConvolutionCall, CudnnDescriptionComputesTheConvolution) {
  const Case& c = GetParam();
  const Conv v = convOf(c);
  ir::Module m = convModule(c, v);
  const ir::Op conv = m.functions[0].body.ops[0];
  StatusOr<CudnnConv> described = cudnnConvOf(m, conv);
  if (c.name == "window_reversal") {  // reversed on one spatial dim of two
    EXPECT_EQ(described.status().code(), StatusCode::kUnimplemented);
    return;
  }
  ASSERT_TRUE(described.isOk()) << described.status().toString();
  const runtime::ConvDesc& d = described->desc;
  SCOPED_TRACE(runtime::convText(d));
  const HostTensor lhs = integers(c.lhs, 1), rhs = integers(c.rhs, 2);
  const HostTensor filter =
      filterOf(rhs, described->rhs_reverse, described->rhs_permutation);
  const std::vector<int64_t> out_dims = m.typeOf(conv.results[0]).dims;
  const HostTensor want = reference(c, v, lhs, rhs, out_dims);
  const std::vector<double> written =
      cudnnDefinition(d, lhs.data, filter.data, static_cast<size_t>(count(out_dims)));
  // A result written in another order is then transposed into place.
  std::vector<double> got = written;
  const std::vector<int64_t>& order = described->result_order;
  if (!order.empty()) {
    std::vector<int64_t> temp_dims;
    for (int64_t o : order) temp_dims.push_back(out_dims[static_cast<size_t>(o)]);
    for (int64_t at = 0; at < count(out_dims); ++at) {
      const std::vector<int64_t> i = unravel(at, out_dims);
      std::vector<int64_t> t;
      for (int64_t o : order) t.push_back(i[static_cast<size_t>(o)]);
      got[static_cast<size_t>(at)] = written[static_cast<size_t>(ravel(t, temp_dims))];
    }
  }
  size_t wrong = 0;
  for (size_t i = 0; i < want.data.size(); ++i) wrong += got[i] != want.data[i];
  EXPECT_EQ(wrong, 0u) << "of " << want.data.size();
}

// Expected sizes worked out by hand: m = batch x output positions, n =
// output features per group, k = window x input features per group.
// clang-format off
INSTANTIATE_TEST_SUITE_P(
    Forms, ConvolutionCall,
    ::testing::Values(
        // The zoo's layout, NHWC x HWIO, same padding: 2*6*5 positions.
        Case{"nhwc_same", {2, 6, 5, 3}, {3, 3, 3, 4}, "b01f", "01io", "b01f",
             {}, {1, 1, 1, 1}, {}, {}, {}, 1, 1, 1, 60, 4, 27, "patches"},
        // Strides, asymmetric and negative padding, rhs dilation: outputs
        // (10-3)/2+1 = 4 and (9-3)/3+1 = 3.
        Case{"strided_dilated", {1, 9, 8, 2}, {2, 3, 2, 3}, "b01f", "01io", "b01f",
             {2, 3}, {0, 1, 2, -1}, {}, {2, 1}, {}, 1, 1, 1, 12, 3, 12, "patches"},
        // lhs dilation with negative padding: 9-1+2-3+1 = 8, 10+1-2-2+1 = 8.
        Case{"lhs_dilated", {2, 5, 4, 3}, {3, 2, 3, 2}, "b01f", "01io", "b01f",
             {}, {-1, 2, 1, -2}, {2, 3}, {}, {}, 1, 1, 1, 128, 2, 18, "patches"},
        // NCHW x OIHW: the rhs read transposed, the result through a temp.
        Case{"nchw_oihw", {2, 3, 7, 6}, {4, 3, 3, 2}, "bf01", "oi01", "bf01",
             {}, {}, {}, {}, {}, 1, 1, 1, 50, 4, 18, "patches,output_transpose"},
        // One image: the product computed transposed writes NCHW in place.
        Case{"nchw_one_image", {1, 3, 7, 6}, {4, 3, 3, 2}, "bf01", "oi01", "bf01",
             {}, {}, {}, {}, {}, 1, 1, 1, 4, 25, 18, "patches"},
        Case{"feature_groups", {2, 5, 5, 4}, {3, 3, 2, 6}, "b01f", "01io", "b01f",
             {}, {}, {}, {}, {}, 2, 1, 2, 18, 3, 18, "patches,output_transpose"},
        Case{"depthwise", {1, 6, 6, 3}, {3, 3, 1, 3}, "b01f", "01io", "b01f",
             {}, {1, 1, 1, 1}, {}, {}, {}, 3, 1, 3, 36, 1, 9, "patches,output_transpose"},
        Case{"batch_groups", {4, 5, 5, 3}, {3, 3, 3, 6}, "b01f", "01io", "b01f",
             {}, {}, {}, {}, {}, 1, 2, 2, 18, 3, 27, "patches,output_transpose"},
        Case{"window_reversal", {2, 5, 6, 2}, {2, 3, 2, 3}, "b01f", "01io", "b01f",
             {}, {1, 0, 0, 2}, {}, {}, {true, false}, 1, 1, 1, 60, 3, 12, "patches"},
        Case{"conv1d", {3, 10, 2}, {4, 2, 5}, "b0f", "0io", "b0f",
             {3}, {}, {}, {}, {}, 1, 1, 1, 9, 5, 8, "patches"},
        Case{"conv3d", {1, 4, 5, 3, 2}, {2, 3, 2, 2, 3}, "b012f", "012io", "b012f",
             {}, {}, {}, {}, {}, 1, 1, 1, 18, 3, 24, "patches"},
        Case{"no_spatial_dims", {5, 7}, {7, 3}, "bf", "io", "bf",
             {}, {}, {}, {}, {}, 1, 1, 1, 5, 3, 7, "none"},
        // 1x1 convolutions: NHWC is its own patch matrix; strided or NCHW
        // ones are not.
        Case{"pointwise", {2, 5, 4, 3}, {1, 1, 3, 6}, "b01f", "01io", "b01f",
             {}, {}, {}, {}, {}, 1, 1, 1, 40, 6, 3, "none"},
        Case{"pointwise_strided", {2, 5, 4, 3}, {1, 1, 3, 6}, "b01f", "01io", "b01f",
             {2, 2}, {}, {}, {}, {}, 1, 1, 1, 12, 6, 3, "patches"},
        Case{"pointwise_nchw", {1, 3, 5, 4}, {6, 3, 1, 1}, "bf01", "oi01", "bf01",
             {}, {}, {}, {}, {}, 1, 1, 1, 6, 20, 3, "patches"},
        // The output feature between the rhs's spatial dims: a transpose.
        Case{"rhs_transposed", {2, 6, 5, 3}, {3, 4, 2, 3}, "b01f", "0o1i", "b01f",
             {}, {}, {}, {}, {}, 1, 1, 1, 32, 4, 18, "rhs_transpose,patches"},
        // JAX's input gradient of a stride-2, pad-1 3x3 conv of [2,7,7,3]
        // (out [2,4,4,4]): lhs dilated by the stride, padding (1,1), the
        // kernel reversed with its feature dims swapped.
        Case{"input_gradient", {2, 4, 4, 4}, {3, 3, 3, 4}, "b01f", "01oi", "b01f",
             {}, {1, 1, 1, 1}, {2, 2}, {}, {true, true}, 1, 1, 1, 98, 3, 36,
             "rhs_transpose,patches"},
        // JAX's weight gradient of a stride-1, pad-1 3x3 conv of [2,12,12,3]:
        // lhs x with batch and feature swapped, rhs the cotangent, a window as
        // large as the image and a 3x3 result.
        Case{"weight_gradient", {2, 12, 12, 3}, {2, 12, 12, 4}, "f01b", "i01o", "01bf",
             {}, {1, 1, 1, 1}, {}, {}, {}, 1, 1, 1, 27, 4, 288, "patches"},
        // The same for stride 2 ([2,7,7,3] -> [2,4,4,4]): rhs dilation 2.
        Case{"weight_gradient_strided", {2, 7, 7, 3}, {2, 4, 4, 4}, "f01b", "i01o", "01bf",
             {}, {1, 1, 1, 1}, {}, {2, 2}, {}, 1, 1, 1, 27, 4, 32, "patches"}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });
// clang-format on

TEST(ConvolutionCallTypes, Bf16AccumulatesInF32AndHighestAvoidsTf32) {
  const Case c{"bf16", {1, 4, 4, 2}, {3, 3, 2, 2}, "b01f", "01io", "b01f", {}, {},
               {},     {},           {},           1,      1,      1,      4,  2,
               18,     "patches"};
  const Conv v = convOf(c);
  {
    ir::Module m = convModule(c, v, ElementType::BF16, ElementType::BF16);
    StatusOr<LibraryCall> call =
        lowerConvolution(m, libraryGroup(m), m.functions[0].body.ops[0]);
    ASSERT_TRUE(call.isOk()) << call.status().toString();
    EXPECT_EQ(call->dot.gemm.a.type, runtime::GemmType::kBF16);
    EXPECT_EQ(call->dot.gemm.d_type, runtime::GemmType::kBF16);
    EXPECT_EQ(call->dot.gemm.compute, runtime::GemmCompute::kF32);
  }
  {
    ir::Module m = convModule(c, v, ElementType::F32, ElementType::F32,
                              {ir::Precision::HIGHEST, ir::Precision::HIGHEST});
    StatusOr<LibraryCall> call =
        lowerConvolution(m, libraryGroup(m), m.functions[0].body.ops[0]);
    ASSERT_TRUE(call.isOk()) << call.status().toString();
    EXPECT_EQ(call->dot.gemm.compute, runtime::GemmCompute::kF32);
  }
}

TEST(ConvolutionCallTypes, IntegerConvolutionsAreRejectedNamingTheOp) {
  const Case c{"i32", {1, 4, 4, 2}, {3, 3, 2, 2}, "b01f", "01io", "b01f", {}, {},
               {},    {},           {},           1,      1,      1,      4,  2,
               18,    "patches"};
  ir::Module m = convModule(c, convOf(c), ElementType::I32, ElementType::I32);
  Status s = checkConvolution(m, m.functions[0].body.ops[0]);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("stablehlo.convolution (tensor<1x4x4x2xi32>"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("model.py:12"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("f32, bf16"), std::string::npos) << s.message();
}

// The zoo's conv2d (NHWC x HWIO, 2x16x16x8 * 3x3x8x16, same padding) compiles
// to one patches kernel then one product writing the result in place.
TEST(ConvolutionCallZoo, Conv2dIsOnePatchesKernelAndOneProduct) {
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> result = compile(testing::zooArtifact("conv2d"), options, nullptr);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  size_t gemms = 0, launches = 0;
  for (const runtime::Thunk& t : result->program.thunks) {
    if (const auto* g = std::get_if<runtime::GemmThunk>(&t)) {
      ++gemms;
      EXPECT_EQ(g->gemm.m, 2 * 16 * 16);
      EXPECT_EQ(g->gemm.n, 16);
      EXPECT_EQ(g->gemm.k, 3 * 3 * 8);
      EXPECT_EQ(g->gemm.d_ld, 16);
      EXPECT_EQ(gemms, 1u);
      EXPECT_EQ(launches, 1u);  // the patches kernel came first
    }
    launches += std::holds_alternative<runtime::LaunchThunk>(t);
  }
  EXPECT_EQ(gemms, 1u);
  EXPECT_EQ(launches, 1u);
  EXPECT_NE(result->report.text().find("cublaslt m=512 n=16 k=72 batch=1 tf32 conv "
                                       "kernels=patches"),
            std::string::npos)
      << result->report.text();
}

}  // namespace
}  // namespace jft::compiler
