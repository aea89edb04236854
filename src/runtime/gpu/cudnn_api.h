// Our own minimal declarations of the cuDNN graph (backend) API subset we
// use, in the manner of cufft_api.h: cudnn.h need not exist where the plugin
// builds, the library is opened with dlopen at run time, and the numbers
// below are the library's documented ABI (cuDNN 9's cudnn_graph.h; the same
// values since cuDNN 8's cudnn_backend.h). Enums are C ints.
#pragma once

#include <cstdint>

#include "runtime/gpu/driver_api.h"

namespace jft::runtime::gpu {

using cudnnStatus_t = int;
using cudnnHandle_t = void*;
using cudnnBackendDescriptor_t = void*;

// cudnnStatus_t: 0 is success; the thousands digit is the category.
inline constexpr cudnnStatus_t kCudnnSuccess = 0;
inline constexpr cudnnStatus_t kCudnnBadParam = 2000;
inline constexpr cudnnStatus_t kCudnnNotSupported = 3000;
inline constexpr cudnnStatus_t kCudnnInternalError = 4000;
inline constexpr cudnnStatus_t kCudnnHostAllocationFailed = 4003;
inline constexpr cudnnStatus_t kCudnnDeviceAllocationFailed = 4004;
inline constexpr cudnnStatus_t kCudnnExecutionFailed = 5000;

// cudnnDataType_t
inline constexpr int kCudnnDataFloat = 0;
inline constexpr int kCudnnDataDouble = 1;
inline constexpr int kCudnnDataHalf = 2;
inline constexpr int kCudnnDataBfloat16 = 9;

// cudnnConvolutionMode_t
inline constexpr int kCudnnConvolution = 0;  // the window reversed
inline constexpr int kCudnnCrossCorrelation = 1;

// cudnnBackendHeurMode_t
inline constexpr int kCudnnHeurModeA = 3;

// cudnnBackendNumericalNote_t
inline constexpr int kCudnnNoteTensorCore = 0;
inline constexpr int kCudnnNoteDownConvertInputs = 1;
inline constexpr int kCudnnNoteReducedPrecisionReduction = 2;
inline constexpr int kCudnnNoteTypeCount = 10;

// cudnnBackendAttributeType_t
inline constexpr int kCudnnTypeHandle = 0;
inline constexpr int kCudnnTypeDataType = 1;
inline constexpr int kCudnnTypeInt64 = 3;
inline constexpr int kCudnnTypeFloat = 4;
inline constexpr int kCudnnTypeDouble = 5;
inline constexpr int kCudnnTypeVoidPtr = 6;
inline constexpr int kCudnnTypeConvolutionMode = 7;
inline constexpr int kCudnnTypeHeurMode = 8;
inline constexpr int kCudnnTypeNumericalNote = 11;
inline constexpr int kCudnnTypeBackendDescriptor = 15;

// cudnnBackendDescriptorType_t
inline constexpr int kCudnnConvolutionDescriptor = 1;
inline constexpr int kCudnnEngineDescriptor = 2;
inline constexpr int kCudnnEngineCfgDescriptor = 3;
inline constexpr int kCudnnEngineHeurDescriptor = 4;
inline constexpr int kCudnnExecutionPlanDescriptor = 5;
inline constexpr int kCudnnOpConvForwardDescriptor = 10;
inline constexpr int kCudnnOpConvBackwardFilterDescriptor = 11;
inline constexpr int kCudnnOpConvBackwardDataDescriptor = 12;
inline constexpr int kCudnnOperationGraphDescriptor = 15;
inline constexpr int kCudnnVariantPackDescriptor = 16;
inline constexpr int kCudnnTensorDescriptor = 17;

// cudnnBackendAttributeName_t
inline constexpr int kCudnnAttrConvCompType = 100;
inline constexpr int kCudnnAttrConvMode = 101;
inline constexpr int kCudnnAttrConvDilations = 102;
inline constexpr int kCudnnAttrConvFilterStrides = 103;
inline constexpr int kCudnnAttrConvPostPaddings = 104;
inline constexpr int kCudnnAttrConvPrePaddings = 105;
inline constexpr int kCudnnAttrConvSpatialDims = 106;
inline constexpr int kCudnnAttrEngineHeurMode = 200;
inline constexpr int kCudnnAttrEngineHeurOperationGraph = 201;
inline constexpr int kCudnnAttrEngineHeurResults = 202;
inline constexpr int kCudnnAttrEngineCfgEngine = 300;
inline constexpr int kCudnnAttrExecutionPlanHandle = 400;
inline constexpr int kCudnnAttrExecutionPlanEngineConfig = 401;
inline constexpr int kCudnnAttrExecutionPlanWorkspaceSize = 402;
// The forward, backward-data and backward-filter operations' attributes:
// alpha, beta, the convolution descriptor, then their three tensors.
inline constexpr int kCudnnAttrOpConvForwardAlpha = 700;
inline constexpr int kCudnnAttrOpConvForwardBeta = 701;
inline constexpr int kCudnnAttrOpConvForwardConvDesc = 702;
inline constexpr int kCudnnAttrOpConvForwardW = 703;
inline constexpr int kCudnnAttrOpConvForwardX = 704;
inline constexpr int kCudnnAttrOpConvForwardY = 705;
inline constexpr int kCudnnAttrOpConvBwdDataAlpha = 706;
inline constexpr int kCudnnAttrOpConvBwdDataBeta = 707;
inline constexpr int kCudnnAttrOpConvBwdDataConvDesc = 708;
inline constexpr int kCudnnAttrOpConvBwdDataW = 709;
inline constexpr int kCudnnAttrOpConvBwdDataDx = 710;
inline constexpr int kCudnnAttrOpConvBwdDataDy = 711;
inline constexpr int kCudnnAttrOpConvBwdFilterAlpha = 712;
inline constexpr int kCudnnAttrOpConvBwdFilterBeta = 713;
inline constexpr int kCudnnAttrOpConvBwdFilterConvDesc = 714;
inline constexpr int kCudnnAttrOpConvBwdFilterDw = 715;
inline constexpr int kCudnnAttrOpConvBwdFilterX = 716;
inline constexpr int kCudnnAttrOpConvBwdFilterDy = 717;
inline constexpr int kCudnnAttrOperationGraphHandle = 800;
inline constexpr int kCudnnAttrOperationGraphOps = 801;
inline constexpr int kCudnnAttrTensorByteAlignment = 900;
inline constexpr int kCudnnAttrTensorDataType = 901;
inline constexpr int kCudnnAttrTensorDimensions = 902;
inline constexpr int kCudnnAttrTensorStrides = 903;
inline constexpr int kCudnnAttrTensorUniqueId = 906;
inline constexpr int kCudnnAttrVariantPackUniqueIds = 1000;
inline constexpr int kCudnnAttrVariantPackDataPointers = 1001;
inline constexpr int kCudnnAttrVariantPackWorkspace = 1003;
inline constexpr int kCudnnAttrEngineNumericalNote = 1303;

// The entry points, in the order they are resolved. X(name, symbol, signature).
#define JFT_CUDNN_FUNCTIONS(X)                                                       \
  X(getVersion, "cudnnGetVersion", size_t (*)())                                     \
  X(getErrorString, "cudnnGetErrorString", const char* (*)(cudnnStatus_t))           \
  X(create, "cudnnCreate", cudnnStatus_t (*)(cudnnHandle_t*))                        \
  X(destroy, "cudnnDestroy", cudnnStatus_t (*)(cudnnHandle_t))                       \
  X(setStream, "cudnnSetStream", cudnnStatus_t (*)(cudnnHandle_t, CUstream))         \
  X(createDescriptor, "cudnnBackendCreateDescriptor",                                \
    cudnnStatus_t (*)(int, cudnnBackendDescriptor_t*))                               \
  X(destroyDescriptor, "cudnnBackendDestroyDescriptor",                              \
    cudnnStatus_t (*)(cudnnBackendDescriptor_t))                                     \
  X(finalize, "cudnnBackendFinalize", cudnnStatus_t (*)(cudnnBackendDescriptor_t))   \
  X(setAttribute, "cudnnBackendSetAttribute",                                        \
    cudnnStatus_t (*)(cudnnBackendDescriptor_t, int, int, int64_t, const void*))     \
  X(getAttribute, "cudnnBackendGetAttribute",                                        \
    cudnnStatus_t (*)(cudnnBackendDescriptor_t, int, int, int64_t, int64_t*, void*)) \
  X(execute, "cudnnBackendExecute",                                                  \
    cudnnStatus_t (*)(cudnnHandle_t, cudnnBackendDescriptor_t,                       \
                      cudnnBackendDescriptor_t))

}  // namespace jft::runtime::gpu
