// Our cuDNN declarations (runtime/gpu/cudnn_api.h) against cudnn_graph.h,
// built only where that header exists (it need not where the plugin builds):
// every value we pass, and the shape of every entry point. Where the library
// loads, the host-side descriptors the runner builds (tensors, convolution
// parameters, the three convolution operations) finalize with our values,
// which needs no GPU.
#include <cudnn.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "codegen/conv_modules.h"
#include "codegen/library/cudnn_conv.h"
#include "ir/builder.h"
#include "runtime/gpu/cudnn.h"
#include "runtime/gpu/cudnn_api.h"

namespace jft::runtime::gpu {
namespace {

static_assert(sizeof(cudnnStatus_t) == sizeof(::cudnnStatus_t));
static_assert(sizeof(int) == sizeof(::cudnnDataType_t));
static_assert(sizeof(int) == sizeof(::cudnnBackendAttributeName_t));
static_assert(sizeof(int) == sizeof(::cudnnBackendNumericalNote_t));
static_assert(kCudnnSuccess == CUDNN_STATUS_SUCCESS);
static_assert(kCudnnBadParam == CUDNN_STATUS_BAD_PARAM);
static_assert(kCudnnNotSupported == CUDNN_STATUS_NOT_SUPPORTED);
static_assert(kCudnnInternalError == CUDNN_STATUS_INTERNAL_ERROR);
static_assert(kCudnnHostAllocationFailed ==
              CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED);
static_assert(kCudnnDeviceAllocationFailed ==
              CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED);
static_assert(kCudnnExecutionFailed == CUDNN_STATUS_EXECUTION_FAILED);

static_assert(kCudnnDataFloat == CUDNN_DATA_FLOAT);
static_assert(kCudnnDataDouble == CUDNN_DATA_DOUBLE);
static_assert(kCudnnDataHalf == CUDNN_DATA_HALF);
static_assert(kCudnnDataBfloat16 == CUDNN_DATA_BFLOAT16);
static_assert(kCudnnConvolution == CUDNN_CONVOLUTION);
static_assert(kCudnnCrossCorrelation == CUDNN_CROSS_CORRELATION);
static_assert(kCudnnHeurModeA == CUDNN_HEUR_MODE_A);
static_assert(kCudnnNoteTensorCore == CUDNN_NUMERICAL_NOTE_TENSOR_CORE);
static_assert(kCudnnNoteDownConvertInputs == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS);
static_assert(kCudnnNoteReducedPrecisionReduction ==
              CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION);
static_assert(kCudnnNoteTypeCount >= CUDNN_NUMERICAL_NOTE_TYPE_COUNT);

static_assert(kCudnnTypeHandle == CUDNN_TYPE_HANDLE);
static_assert(kCudnnTypeDataType == CUDNN_TYPE_DATA_TYPE);
static_assert(kCudnnTypeInt64 == CUDNN_TYPE_INT64);
static_assert(kCudnnTypeFloat == CUDNN_TYPE_FLOAT);
static_assert(kCudnnTypeDouble == CUDNN_TYPE_DOUBLE);
static_assert(kCudnnTypeVoidPtr == CUDNN_TYPE_VOID_PTR);
static_assert(kCudnnTypeConvolutionMode == CUDNN_TYPE_CONVOLUTION_MODE);
static_assert(kCudnnTypeHeurMode == CUDNN_TYPE_HEUR_MODE);
static_assert(kCudnnTypeNumericalNote == CUDNN_TYPE_NUMERICAL_NOTE);
static_assert(kCudnnTypeBackendDescriptor == CUDNN_TYPE_BACKEND_DESCRIPTOR);

static_assert(kCudnnConvolutionDescriptor == CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
static_assert(kCudnnEngineDescriptor == CUDNN_BACKEND_ENGINE_DESCRIPTOR);
static_assert(kCudnnEngineCfgDescriptor == CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
static_assert(kCudnnEngineHeurDescriptor == CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
static_assert(kCudnnExecutionPlanDescriptor == CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
static_assert(kCudnnOpConvForwardDescriptor ==
              CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
static_assert(kCudnnOpConvBackwardFilterDescriptor ==
              CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_FILTER_DESCRIPTOR);
static_assert(kCudnnOpConvBackwardDataDescriptor ==
              CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR);
static_assert(kCudnnOperationGraphDescriptor == CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
static_assert(kCudnnVariantPackDescriptor == CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
static_assert(kCudnnTensorDescriptor == CUDNN_BACKEND_TENSOR_DESCRIPTOR);

static_assert(kCudnnAttrConvCompType == CUDNN_ATTR_CONVOLUTION_COMP_TYPE);
static_assert(kCudnnAttrConvMode == CUDNN_ATTR_CONVOLUTION_CONV_MODE);
static_assert(kCudnnAttrConvDilations == CUDNN_ATTR_CONVOLUTION_DILATIONS);
static_assert(kCudnnAttrConvFilterStrides == CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
static_assert(kCudnnAttrConvPostPaddings == CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
static_assert(kCudnnAttrConvPrePaddings == CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
static_assert(kCudnnAttrConvSpatialDims == CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS);
static_assert(kCudnnAttrEngineHeurMode == CUDNN_ATTR_ENGINEHEUR_MODE);
static_assert(kCudnnAttrEngineHeurOperationGraph ==
              CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH);
static_assert(kCudnnAttrEngineHeurResults == CUDNN_ATTR_ENGINEHEUR_RESULTS);
static_assert(kCudnnAttrEngineCfgEngine == CUDNN_ATTR_ENGINECFG_ENGINE);
static_assert(kCudnnAttrExecutionPlanHandle == CUDNN_ATTR_EXECUTION_PLAN_HANDLE);
static_assert(kCudnnAttrExecutionPlanEngineConfig ==
              CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG);
static_assert(kCudnnAttrExecutionPlanWorkspaceSize ==
              CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
static_assert(kCudnnAttrOpConvForwardAlpha ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA);
static_assert(kCudnnAttrOpConvForwardBeta ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA);
static_assert(kCudnnAttrOpConvForwardConvDesc ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC);
static_assert(kCudnnAttrOpConvForwardW == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W);
static_assert(kCudnnAttrOpConvForwardX == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X);
static_assert(kCudnnAttrOpConvForwardY == CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y);
static_assert(kCudnnAttrOpConvBwdDataAlpha ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA);
static_assert(kCudnnAttrOpConvBwdDataBeta ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA);
static_assert(kCudnnAttrOpConvBwdDataConvDesc ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC);
static_assert(kCudnnAttrOpConvBwdDataW == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W);
static_assert(kCudnnAttrOpConvBwdDataDx == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX);
static_assert(kCudnnAttrOpConvBwdDataDy == CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY);
static_assert(kCudnnAttrOpConvBwdFilterAlpha ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_ALPHA);
static_assert(kCudnnAttrOpConvBwdFilterBeta ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_BETA);
static_assert(kCudnnAttrOpConvBwdFilterConvDesc ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_CONV_DESC);
static_assert(kCudnnAttrOpConvBwdFilterDw ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DW);
static_assert(kCudnnAttrOpConvBwdFilterX ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_X);
static_assert(kCudnnAttrOpConvBwdFilterDy ==
              CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_FILTER_DY);
static_assert(kCudnnAttrOperationGraphHandle == CUDNN_ATTR_OPERATIONGRAPH_HANDLE);
static_assert(kCudnnAttrOperationGraphOps == CUDNN_ATTR_OPERATIONGRAPH_OPS);
static_assert(kCudnnAttrTensorByteAlignment == CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
static_assert(kCudnnAttrTensorDataType == CUDNN_ATTR_TENSOR_DATA_TYPE);
static_assert(kCudnnAttrTensorDimensions == CUDNN_ATTR_TENSOR_DIMENSIONS);
static_assert(kCudnnAttrTensorStrides == CUDNN_ATTR_TENSOR_STRIDES);
static_assert(kCudnnAttrTensorUniqueId == CUDNN_ATTR_TENSOR_UNIQUE_ID);
static_assert(kCudnnAttrVariantPackUniqueIds == CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
static_assert(kCudnnAttrVariantPackDataPointers == CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS);
static_assert(kCudnnAttrVariantPackWorkspace == CUDNN_ATTR_VARIANT_PACK_WORKSPACE);
static_assert(kCudnnAttrEngineNumericalNote == CUDNN_ATTR_ENGINE_NUMERICAL_NOTE);

// Our entry-point types against the header's, enums read as int and
// descriptors and handles as void*.
static_assert(sizeof(::cudnnHandle_t) == sizeof(cudnnHandle_t));
static_assert(sizeof(::cudnnBackendDescriptor_t) == sizeof(cudnnBackendDescriptor_t));
static_assert(std::is_same_v<::cudnnBackendDescriptor_t, void*>);
static_assert(std::is_same_v<decltype(&::cudnnGetVersion), decltype(Cudnn::getVersion)>);
static_assert(
    std::is_same_v<decltype(&::cudnnGetErrorString), const char* (*)(::cudnnStatus_t)>);

// The descriptors that need no handle, built with our values: BAD_PARAM here
// would mean a value or an attribute type is wrong.
TEST(CudnnDecls, HostSideDescriptorsFinalize) {
  StatusOr<const Cudnn*> loaded = Cudnn::load();
  if (!loaded.isOk()) GTEST_SKIP() << loaded.status().toString();
  const Cudnn& c = **loaded;
  auto make = [&](int type) {
    cudnnBackendDescriptor_t d = nullptr;
    EXPECT_EQ(c.createDescriptor(type, &d), kCudnnSuccess);
    return d;
  };
  auto tensor = [&](int64_t uid, std::vector<int64_t> dims,
                    std::vector<int64_t> strides) {
    cudnnBackendDescriptor_t t = make(kCudnnTensorDescriptor);
    const int type = kCudnnDataFloat;
    const int64_t alignment = 16;
    EXPECT_EQ(c.setAttribute(t, kCudnnAttrTensorDataType, kCudnnTypeDataType, 1, &type),
              0);
    EXPECT_EQ(
        c.setAttribute(t, kCudnnAttrTensorDimensions, kCudnnTypeInt64, 4, dims.data()),
        0);
    EXPECT_EQ(
        c.setAttribute(t, kCudnnAttrTensorStrides, kCudnnTypeInt64, 4, strides.data()),
        0);
    EXPECT_EQ(c.setAttribute(t, kCudnnAttrTensorUniqueId, kCudnnTypeInt64, 1, &uid), 0);
    EXPECT_EQ(
        c.setAttribute(t, kCudnnAttrTensorByteAlignment, kCudnnTypeInt64, 1, &alignment),
        0);
    const cudnnStatus_t s = c.finalize(t);
    EXPECT_EQ(s, kCudnnSuccess) << c.getErrorString(s);
    return t;
  };
  // NHWC x [2,3,9,9], KRSC w [4,3,3,3], y [2,4,9,9] with SAME padding.
  cudnnBackendDescriptor_t x = tensor(1, {2, 3, 9, 9}, {243, 1, 27, 3});
  cudnnBackendDescriptor_t w = tensor(2, {4, 3, 3, 3}, {27, 1, 9, 3});
  cudnnBackendDescriptor_t y = tensor(3, {2, 4, 9, 9}, {324, 1, 36, 4});
  cudnnBackendDescriptor_t conv = make(kCudnnConvolutionDescriptor);
  const int compute = kCudnnDataFloat, mode = kCudnnCrossCorrelation;
  const int64_t spatial = 2, ones[2] = {1, 1};
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvCompType, kCudnnTypeDataType, 1, &compute),
            0);
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvMode, kCudnnTypeConvolutionMode, 1, &mode),
            0);
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvSpatialDims, kCudnnTypeInt64, 1, &spatial),
            0);
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvDilations, kCudnnTypeInt64, 2, ones), 0);
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvFilterStrides, kCudnnTypeInt64, 2, ones),
            0);
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvPrePaddings, kCudnnTypeInt64, 2, ones), 0);
  EXPECT_EQ(c.setAttribute(conv, kCudnnAttrConvPostPaddings, kCudnnTypeInt64, 2, ones),
            0);
  cudnnStatus_t s = c.finalize(conv);
  EXPECT_EQ(s, kCudnnSuccess) << c.getErrorString(s);
  struct Op {
    int type, alpha, beta, desc, w, x, y;
  };
  const Op ops[3] = {
      {kCudnnOpConvForwardDescriptor, kCudnnAttrOpConvForwardAlpha,
       kCudnnAttrOpConvForwardBeta, kCudnnAttrOpConvForwardConvDesc,
       kCudnnAttrOpConvForwardW, kCudnnAttrOpConvForwardX, kCudnnAttrOpConvForwardY},
      {kCudnnOpConvBackwardDataDescriptor, kCudnnAttrOpConvBwdDataAlpha,
       kCudnnAttrOpConvBwdDataBeta, kCudnnAttrOpConvBwdDataConvDesc,
       kCudnnAttrOpConvBwdDataW, kCudnnAttrOpConvBwdDataDx, kCudnnAttrOpConvBwdDataDy},
      {kCudnnOpConvBackwardFilterDescriptor, kCudnnAttrOpConvBwdFilterAlpha,
       kCudnnAttrOpConvBwdFilterBeta, kCudnnAttrOpConvBwdFilterConvDesc,
       kCudnnAttrOpConvBwdFilterDw, kCudnnAttrOpConvBwdFilterX,
       kCudnnAttrOpConvBwdFilterDy}};
  std::vector<cudnnBackendDescriptor_t> made = {x, w, y, conv};
  for (const Op& o : ops) {
    cudnnBackendDescriptor_t op = make(o.type);
    const float one = 1, zero = 0;
    EXPECT_EQ(c.setAttribute(op, o.alpha, kCudnnTypeFloat, 1, &one), 0);
    EXPECT_EQ(c.setAttribute(op, o.beta, kCudnnTypeFloat, 1, &zero), 0);
    EXPECT_EQ(c.setAttribute(op, o.desc, kCudnnTypeBackendDescriptor, 1, &conv), 0);
    EXPECT_EQ(c.setAttribute(op, o.w, kCudnnTypeBackendDescriptor, 1, &w), 0);
    EXPECT_EQ(c.setAttribute(op, o.x, kCudnnTypeBackendDescriptor, 1, &x), 0);
    EXPECT_EQ(c.setAttribute(op, o.y, kCudnnTypeBackendDescriptor, 1, &y), 0);
    s = c.finalize(op);
    EXPECT_EQ(s, kCudnnSuccess) << o.type << ": " << c.getErrorString(s);
    made.push_back(op);
  }
  // A wrong output extent is refused at finalize: the check the description
  // reproduces (runtime/conv.h).
  cudnnBackendDescriptor_t bad_y = tensor(3, {2, 4, 8, 9}, {288, 1, 36, 4});
  cudnnBackendDescriptor_t bad = make(kCudnnOpConvForwardDescriptor);
  const float one = 1, zero = 0;
  c.setAttribute(bad, kCudnnAttrOpConvForwardAlpha, kCudnnTypeFloat, 1, &one);
  c.setAttribute(bad, kCudnnAttrOpConvForwardBeta, kCudnnTypeFloat, 1, &zero);
  c.setAttribute(bad, kCudnnAttrOpConvForwardConvDesc, kCudnnTypeBackendDescriptor, 1,
                 &conv);
  c.setAttribute(bad, kCudnnAttrOpConvForwardW, kCudnnTypeBackendDescriptor, 1, &w);
  c.setAttribute(bad, kCudnnAttrOpConvForwardX, kCudnnTypeBackendDescriptor, 1, &x);
  c.setAttribute(bad, kCudnnAttrOpConvForwardY, kCudnnTypeBackendDescriptor, 1, &bad_y);
  EXPECT_NE(c.finalize(bad), kCudnnSuccess);
  made.push_back(bad_y);
  made.push_back(bad);
  for (cudnnBackendDescriptor_t d : made) c.destroyDescriptor(d);
}

// The operation `d` describes, finalized with host-side descriptors only:
// cuDNN's own checks of the shapes (output-size formula, groups) pass.
cudnnStatus_t finalizeOperation(const Cudnn& c, const ConvDesc& d) {
  std::vector<cudnnBackendDescriptor_t> made;
  auto make = [&](int type) {
    cudnnBackendDescriptor_t x = nullptr;
    c.createDescriptor(type, &x);
    made.push_back(x);
    return x;
  };
  const int type = d.element == ConvElement::kF64    ? kCudnnDataDouble
                   : d.element == ConvElement::kF32  ? kCudnnDataFloat
                   : d.element == ConvElement::kBF16 ? kCudnnDataBfloat16
                                                     : kCudnnDataHalf;
  cudnnStatus_t status = kCudnnSuccess;
  auto keep = [&](cudnnStatus_t s) {
    if (status == kCudnnSuccess) status = s;
  };
  auto tensor = [&](const ConvTensor& t, int64_t uid) {
    cudnnBackendDescriptor_t x = make(kCudnnTensorDescriptor);
    const int64_t rank = static_cast<int64_t>(t.dims.size()), alignment = 16;
    keep(c.setAttribute(x, kCudnnAttrTensorDataType, kCudnnTypeDataType, 1, &type));
    keep(c.setAttribute(x, kCudnnAttrTensorDimensions, kCudnnTypeInt64, rank,
                        t.dims.data()));
    keep(c.setAttribute(x, kCudnnAttrTensorStrides, kCudnnTypeInt64, rank,
                        t.strides.data()));
    keep(c.setAttribute(x, kCudnnAttrTensorUniqueId, kCudnnTypeInt64, 1, &uid));
    keep(
        c.setAttribute(x, kCudnnAttrTensorByteAlignment, kCudnnTypeInt64, 1, &alignment));
    keep(c.finalize(x));
    return x;
  };
  cudnnBackendDescriptor_t x = tensor(d.x, 1), w = tensor(d.w, 2), y = tensor(d.y, 3);
  cudnnBackendDescriptor_t conv = make(kCudnnConvolutionDescriptor);
  const int compute = d.element == ConvElement::kF64 ? kCudnnDataDouble : kCudnnDataFloat;
  const int mode = d.flip ? kCudnnConvolution : kCudnnCrossCorrelation;
  const int64_t n = static_cast<int64_t>(d.strides.size());
  keep(c.setAttribute(conv, kCudnnAttrConvCompType, kCudnnTypeDataType, 1, &compute));
  keep(c.setAttribute(conv, kCudnnAttrConvMode, kCudnnTypeConvolutionMode, 1, &mode));
  keep(c.setAttribute(conv, kCudnnAttrConvSpatialDims, kCudnnTypeInt64, 1, &n));
  keep(c.setAttribute(conv, kCudnnAttrConvDilations, kCudnnTypeInt64, n,
                      d.dilations.data()));
  keep(c.setAttribute(conv, kCudnnAttrConvFilterStrides, kCudnnTypeInt64, n,
                      d.strides.data()));
  keep(c.setAttribute(conv, kCudnnAttrConvPrePaddings, kCudnnTypeInt64, n,
                      d.pre_padding.data()));
  keep(c.setAttribute(conv, kCudnnAttrConvPostPaddings, kCudnnTypeInt64, n,
                      d.post_padding.data()));
  keep(c.finalize(conv));
  int op_type = kCudnnOpConvForwardDescriptor;
  int attrs[6] = {kCudnnAttrOpConvForwardAlpha,    kCudnnAttrOpConvForwardBeta,
                  kCudnnAttrOpConvForwardConvDesc, kCudnnAttrOpConvForwardW,
                  kCudnnAttrOpConvForwardX,        kCudnnAttrOpConvForwardY};
  if (d.kind == ConvKind::kBackwardData) {
    op_type = kCudnnOpConvBackwardDataDescriptor;
    const int a[6] = {kCudnnAttrOpConvBwdDataAlpha,    kCudnnAttrOpConvBwdDataBeta,
                      kCudnnAttrOpConvBwdDataConvDesc, kCudnnAttrOpConvBwdDataW,
                      kCudnnAttrOpConvBwdDataDx,       kCudnnAttrOpConvBwdDataDy};
    std::copy(a, a + 6, attrs);
  } else if (d.kind == ConvKind::kBackwardFilter) {
    op_type = kCudnnOpConvBackwardFilterDescriptor;
    const int a[6] = {kCudnnAttrOpConvBwdFilterAlpha,    kCudnnAttrOpConvBwdFilterBeta,
                      kCudnnAttrOpConvBwdFilterConvDesc, kCudnnAttrOpConvBwdFilterDw,
                      kCudnnAttrOpConvBwdFilterX,        kCudnnAttrOpConvBwdFilterDy};
    std::copy(a, a + 6, attrs);
  }
  cudnnBackendDescriptor_t op = make(op_type);
  const double one64 = 1, zero64 = 0;
  const float one = 1, zero = 0;
  const bool f64 = d.element == ConvElement::kF64;
  const int scalar = f64 ? kCudnnTypeDouble : kCudnnTypeFloat;
  keep(c.setAttribute(op, attrs[0], scalar, 1,
                      f64 ? static_cast<const void*>(&one64) : &one));
  keep(c.setAttribute(op, attrs[1], scalar, 1,
                      f64 ? static_cast<const void*>(&zero64) : &zero));
  keep(c.setAttribute(op, attrs[2], kCudnnTypeBackendDescriptor, 1, &conv));
  keep(c.setAttribute(op, attrs[3], kCudnnTypeBackendDescriptor, 1, &w));
  keep(c.setAttribute(op, attrs[4], kCudnnTypeBackendDescriptor, 1, &x));
  keep(c.setAttribute(op, attrs[5], kCudnnTypeBackendDescriptor, 1, &y));
  keep(c.finalize(op));
  for (cudnnBackendDescriptor_t m : made) c.destroyDescriptor(m);
  return status;
}

// The compiler's description of a convolution built the way the tests of
// codegen/library/cudnn_conv.h build it.
ConvDesc compiled(const testing::conv::ConvSpec& s) {
  ir::Module module;
  ir::Builder b(module);
  auto a = b.beginFunction(
      "main", {ir::Type::tensor(s.element, s.lhs), ir::Type::tensor(s.element, s.rhs)},
      {testing::conv::convResultType(s)});
  b.ret({testing::conv::addConv(b, a[0], a[1], s)});
  b.endFunction();
  StatusOr<codegen::library::CudnnConv> c =
      codegen::library::cudnnConvOf(module, module.entry()->body.ops[0]);
  EXPECT_TRUE(c.isOk()) << c.status().toString();
  return c.isOk() ? c->desc : ConvDesc{};
}

// cuDNN's own shape checks accept what the compiler describes for the
// forward convolution and the two backward convolutions JAX emits for it
// (x [2,7,7,3] NHWC, w [3,3,3,4] HWIO, stride 2, pad 1/1; cudnn_conv_test.cc
// derives each by hand), a 1-D and a grouped one, in f32, bf16 and f64.
TEST(CudnnDecls, CompiledDescriptionsPassCudnnsShapeChecks) {
  StatusOr<const Cudnn*> loaded = Cudnn::load();
  if (!loaded.isOk()) GTEST_SKIP() << loaded.status().toString();
  using testing::conv::ConvSpec;
  std::vector<ConvSpec> specs;
  ConvSpec fwd;
  fwd.lhs = {2, 7, 7, 3};
  fwd.rhs = {3, 3, 3, 4};
  fwd.strides = {2, 2};
  fwd.padding = {1, 1, 1, 1};
  specs.push_back(fwd);
  ConvSpec dgrad;
  dgrad.lhs = {2, 4, 4, 4};
  dgrad.rhs = {3, 3, 3, 4};
  dgrad.rhs_layout = "01oi";
  dgrad.lhs_dilation = {2, 2};
  dgrad.padding = {1, 1, 1, 1};
  specs.push_back(dgrad);
  ConvSpec wgrad;
  wgrad.lhs = {2, 7, 7, 3};
  wgrad.rhs = {2, 4, 4, 4};
  wgrad.lhs_layout = "f01b";
  wgrad.rhs_layout = "i01o";
  wgrad.out_layout = "01bf";
  wgrad.rhs_dilation = {2, 2};
  wgrad.padding = {1, 1, 1, 1};
  specs.push_back(wgrad);
  ConvSpec odd = fwd;  // the forward's remainder row: x 8, not reached
  odd.lhs = {2, 8, 8, 3};
  specs.push_back(odd);
  ConvSpec odd_dgrad = dgrad;  // its input gradient: padding (1, 2)
  odd_dgrad.padding = {1, 2, 1, 2};
  specs.push_back(odd_dgrad);
  ConvSpec odd_wgrad = wgrad;  // its weight gradient: padding (1, 0)
  odd_wgrad.lhs = {2, 8, 8, 3};
  odd_wgrad.padding = {1, 0, 1, 0};
  specs.push_back(odd_wgrad);
  ConvSpec conv1d;
  conv1d.lhs = {3, 31, 5};
  conv1d.rhs = {4, 5, 7};
  conv1d.lhs_layout = "b0f";
  conv1d.rhs_layout = "0io";
  conv1d.out_layout = "b0f";
  conv1d.strides = {3};
  specs.push_back(conv1d);
  ConvSpec grouped;
  grouped.lhs = {2, 8, 8, 6};
  grouped.rhs = {3, 3, 2, 9};
  grouped.feature_groups = 3;
  grouped.padding = {1, 1, 1, 1};
  specs.push_back(grouped);
  ConvSpec grouped_wgrad = wgrad;
  grouped_wgrad.lhs = {1, 5, 5, 4};
  grouped_wgrad.rhs = {1, 5, 5, 4};
  grouped_wgrad.batch_groups = 2;
  grouped_wgrad.rhs_dilation = {};
  specs.push_back(grouped_wgrad);
  for (ir::ElementType e :
       {ir::ElementType::F32, ir::ElementType::BF16, ir::ElementType::F64})
    for (ConvSpec s : specs) {
      s.element = s.result = e;
      const ConvDesc d = compiled(s);
      const cudnnStatus_t status = finalizeOperation(**loaded, d);
      EXPECT_EQ(status, kCudnnSuccess)
          << convText(d) << ": " << (*loaded)->getErrorString(status);
      // One stride more of post padding makes the output a row longer than
      // y: cuDNN refuses, so the check above is a real one.
      ConvDesc longer = d;
      longer.post_padding[0] += longer.strides[0];
      EXPECT_NE(finalizeOperation(**loaded, longer), kCudnnSuccess) << convText(longer);
    }
}

}  // namespace
}  // namespace jft::runtime::gpu
