// One convolution as the runtime hands it to a convolution library (cuDNN's
// graph API on CUDA; MIOpen would read the same description). The compiler
// fills it in from stablehlo.convolution (codegen/library/cudnn_conv.h); nothing
// here knows CUDA or our IR.
//
// The three tensors are named by their roles in the library's forward
// convolution, each with its dims in the library's order and its strides in
// elements (any layout: the strides say where each dim lives in memory):
//   x [N, C, spatial...]           the input
//   w [K, C / groups, window...]   the filter (groups = C / w's C)
//   y [N, K, output...]            the output
// with, per spatial dim i, y_i = (x_i + pre_i + post_i - ((w_i - 1) * dilation_i
// + 1)) / stride_i + 1 (rounded down), exactly: the libraries check it.
//
// kForward computes y from x and w; kBackwardData computes x (the data
// gradient) from y and w, the adjoint of the forward in x; kBackwardFilter
// computes w (the filter gradient) from x and y, its adjoint in w. `flip`
// makes the forward a true convolution (window reversed) instead of the
// cross-correlation StableHLO and the libraries compute by default.
//
// Buffers of its LibraryThunk, in order: the convolution's lhs, its rhs and
// its result, that is {x, w, y} for kForward, {y, w, x} for kBackwardData
// and {x, y, w} for kBackwardFilter; the result is written, never read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace jft::runtime {

enum class ConvKind : uint8_t { kForward, kBackwardData, kBackwardFilter };

// Every tensor has this element type; products accumulate in f32 (f64 for
// kF64).
enum class ConvElement : uint8_t { kF16, kBF16, kF32, kF64 };

struct ConvTensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;  // elements
  friend bool operator==(const ConvTensor&, const ConvTensor&) = default;
};

struct ConvDesc {
  ConvKind kind = ConvKind::kForward;
  ConvElement element = ConvElement::kF32;
  bool allow_tf32 = false;  // f32 only: the library may round operands to TF32
  bool flip = false;        // true convolution rather than cross-correlation
  ConvTensor x, w, y;
  std::vector<int64_t> strides, pre_padding, post_padding, dilations;  // per spatial dim
  friend bool operator==(const ConvDesc&, const ConvDesc&) = default;
};

// "cudnn conv fwd x[2,3,9,9] w[4,3,3,3] y[2,4,9,9] f32 tf32 stride [1,1] pad
// [1,1]/[1,1] dilation [1,1]" for errors and the route report.
std::string convText(const ConvDesc& desc);

// INVALID_ARGUMENT, naming the description, unless: 2 or 3 spatial dims,
// every tensor of rank spatial + 2 with as many strides, every dim and stride
// >= 1, strides and dilations >= 1, paddings >= 0, x and y of one N, w and y
// of one K, groups = x's C / w's C a whole number dividing K, allow_tf32 only
// for f32, and each output extent the formula above.
Status validateConv(const ConvDesc& desc);

int64_t convGroups(const ConvDesc& desc);  // x's C / w's C

// The extent the forward produces along spatial dim `i` from x, w and the
// parameters (the formula above); <= 0 when the window does not fit.
int64_t convOutputExtent(const ConvDesc& desc, size_t i);

// Bytes of one element, and the bytes a tensor spans in memory (its last
// element's offset + 1, times the element's bytes).
int64_t convElementBytes(ConvElement element);
uint64_t convTensorBytes(const ConvDesc& desc, const ConvTensor& tensor);

// The buffers of its LibraryThunk (3: lhs, rhs, result) and the tensor each is.
inline constexpr size_t kConvBufferCount = 3;
const ConvTensor& convBufferTensor(const ConvDesc& desc, size_t buffer);

}  // namespace jft::runtime
