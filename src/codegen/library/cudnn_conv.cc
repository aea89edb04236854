// convolution -> runtime::ConvDesc; the mappings are derived in cudnn_conv.h.
#include "codegen/library/cudnn_conv.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>

#include "codegen/library/conv_form.h"
#include "codegen/library/dot_to_gemm.h"
#include "support/int_lists.h"

namespace jft::codegen::library {
namespace {

using runtime::ConvDesc;
using runtime::ConvElement;
using runtime::ConvKind;
using runtime::ConvTensor;

std::optional<ConvElement> elementOf(ir::ElementType t) {
  switch (t) {
    case ir::ElementType::F16:
      return ConvElement::kF16;
    case ir::ElementType::BF16:
      return ConvElement::kBF16;
    case ir::ElementType::F32:
      return ConvElement::kF32;
    case ir::ElementType::F64:
      return ConvElement::kF64;
    default:
      return std::nullopt;
  }
}

// The tensor whose library dims are `type`'s dims `order` (in that order),
// read in place from `type`'s row-major memory.
ConvTensor tensorOf(const ir::Type& type, const std::vector<int64_t>& order) {
  const std::vector<int64_t> strides = rowMajorStrides(type.dims);
  ConvTensor t;
  for (int64_t d : order) {
    t.dims.push_back(type.dims[static_cast<size_t>(d)]);
    t.strides.push_back(strides[static_cast<size_t>(d)]);
  }
  return t;
}

// The same for `type` first permuted by `permutation` (result dim i = dim
// permutation[i]); `order` still names `type`'s dims.
ConvTensor permutedTensorOf(const ir::Type& type, const std::vector<int64_t>& permutation,
                            const std::vector<int64_t>& order) {
  std::vector<int64_t> dims;
  for (int64_t p : permutation) dims.push_back(type.dims[static_cast<size_t>(p)]);
  const std::vector<int64_t> strides = rowMajorStrides(dims);
  ConvTensor t;
  for (int64_t d : order) {
    const size_t i = static_cast<size_t>(
        std::find(permutation.begin(), permutation.end(), d) - permutation.begin());
    t.dims.push_back(dims[i]);
    t.strides.push_back(strides[i]);
  }
  return t;
}

std::vector<int64_t> concat(std::initializer_list<int64_t> head,
                            const std::vector<int64_t>& tail) {
  std::vector<int64_t> all(head);
  all.insert(all.end(), tail.begin(), tail.end());
  return all;
}

// The packed memory order cuDNN's engines take for a tensor [k, c,
// spatial...] beside an input of this layout: k, spatial..., c when the
// input's channels are innermost (NHWC, KRSC), else k, c, spatial... (NCHW,
// KCRS). Dims named by the tensor's own dims (filters and data alike).
std::vector<int64_t> filterOrder(bool channels_last, int64_t k, int64_t c,
                                 const std::vector<int64_t>& window) {
  std::vector<int64_t> order = {k};
  if (!channels_last) order.push_back(c);
  order.insert(order.end(), window.begin(), window.end());
  if (channels_last) order.push_back(c);
  return order;
}

// The rhs's permutation into `order` (empty when already there) and the
// filter tensor [K, C, window...] over the permuted (or original) memory.
void placeFilter(const ir::Type& rhs, const std::vector<int64_t>& order,
                 const std::vector<int64_t>& roles, CudnnConv& out) {
  std::vector<int64_t> identity(rhs.dims.size());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
  if (order == identity) {
    out.desc.w = tensorOf(rhs, roles);
    return;
  }
  out.rhs_permutation = order;
  out.desc.w = permutedTensorOf(rhs, order, roles);
}

// The result tensor [first, second, spatial...] of `out` (its dims `roles`)
// over `out` itself when its memory is already in `order`, else over a temp
// in that order (CudnnConv::result_order).
ConvTensor placeResult(const ir::Type& out, const std::vector<int64_t>& order,
                       const std::vector<int64_t>& roles, CudnnConv& result) {
  std::vector<int64_t> identity(out.dims.size());
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
  if (order == identity) return tensorOf(out, roles);
  result.result_order = order;
  return permutedTensorOf(out, order, roles);
}

// The lhs read in place, the result placed beside it (placeResult) and the
// filter placed with rhs dims `k`, `c` as its [K, C] (placeFilter): what the
// forward and backward-data descriptions share, they differ in which of x
// and y the lhs and the result are. Returns {lhs, result}.
std::pair<ConvTensor, ConvTensor> placeOperands(const ConvForm& f, int64_t k, int64_t c,
                                                CudnnConv& result) {
  const ir::ConvDimensionNumbers& dn = f.dn;
  ConvTensor lhs = tensorOf(
      f.lhs, concat({dn.input_batch_dim, dn.input_feature_dim}, dn.input_spatial_dims));
  const bool channels_last = dn.input_feature_dim == f.lhs.rank() - 1;
  ConvTensor out = placeResult(
      f.out,
      filterOrder(channels_last, dn.output_batch_dim, dn.output_feature_dim,
                  dn.output_spatial_dims),
      concat({dn.output_batch_dim, dn.output_feature_dim}, dn.output_spatial_dims),
      result);
  placeFilter(f.rhs, filterOrder(channels_last, k, c, dn.kernel_spatial_dims),
              concat({k, c}, dn.kernel_spatial_dims), result);
  return {std::move(lhs), std::move(out)};
}

// Appends a spatial dim of extent 1 to every tensor and parameter. Its
// stride is what a packed tensor of that layout would give it (the innermost
// spatial dim's: 1 in NCHW, C in NHWC), so layout detection sees the
// original layout; with no spatial dim, C's extent when C is innermost.
void addUnitSpatialDim(ConvDesc& d) {
  for (ConvTensor* t : {&d.x, &d.w, &d.y}) {
    const int64_t stride = t->dims.size() > 2   ? t->strides.back()
                           : t->strides[1] == 1 ? t->dims[1]
                                                : 1;
    t->dims.push_back(1);
    t->strides.push_back(stride);
  }
  d.strides.push_back(1);
  d.dilations.push_back(1);
  d.pre_padding.push_back(0);
  d.post_padding.push_back(0);
}

}  // namespace

std::optional<int64_t> solvePostPadding(int64_t in, int64_t pre, int64_t window,
                                        int64_t stride, int64_t out) {
  if (out < 1 || stride < 1) return std::nullopt;
  const int64_t lowest = (out - 1) * stride + window - in - pre;
  const int64_t post = std::max<int64_t>(lowest, 0);
  if (post > lowest + stride - 1) return std::nullopt;
  return post;
}

StatusOr<CudnnConv> cudnnConvOf(const ir::Module& module, const ir::Op& op) {
  JFT_ASSIGN_OR_RETURN(const ConvForm f, readConvForm(module, op));
  const std::string what = convText(module, op);
  auto refuse = [&](const std::string& why) { return unimplemented(what + ": " + why); };
  const std::optional<ConvElement> element = elementOf(f.lhs.element);
  if (!element || f.rhs.element != f.lhs.element || f.out.element != f.lhs.element)
    return refuse("cuDNN takes f16, bf16, f32 and f64 convolutions of one element type");
  StatusOr<GemmTypes> types =
      gemmTypesOf(op, f.lhs.element, f.rhs.element, f.out.element);
  if (!types.isOk()) return refuse(types.status().message());
  if (f.lhs.numElements() == 0 || f.rhs.numElements() == 0 || f.out.numElements() == 0)
    return refuse("an empty convolution");
  if (f.spatial > 3) return refuse("more than 3 spatial dims");
  const ir::ConvDimensionNumbers& dn = f.dn;
  const size_t spatial = static_cast<size_t>(f.spatial);
  const bool reversed =
      std::all_of(f.reversal.begin(), f.reversal.end(), [](bool r) { return r; });
  const bool mixed_reversal =
      !reversed &&
      std::any_of(f.reversal.begin(), f.reversal.end(), [](bool r) { return r; });
  if (mixed_reversal) return refuse("window reversal on some spatial dims only");
  const bool lhs_dilated = std::any_of(f.lhs_dilation.begin(), f.lhs_dilation.end(),
                                       [](int64_t d) { return d > 1; });
  std::vector<int64_t> windows, outputs;
  for (size_t i = 0; i < spatial; ++i) {
    windows.push_back(f.window(static_cast<int64_t>(i)));
    outputs.push_back(f.outSpatial(static_cast<int64_t>(i)));
  }

  CudnnConv result;
  ConvDesc& d = result.desc;
  d.element = *element;
  d.allow_tf32 = types->compute == runtime::GemmCompute::kTf32;
  const int64_t lhs_rank = f.lhs.rank();
  if (lhs_dilated) {
    if (std::any_of(f.strides.begin(), f.strides.end(), [](int64_t s) { return s != 1; }))
      return refuse("lhs dilation with window strides has no cuDNN equivalent");
    if (f.groups() != 1)
      return refuse("lhs dilation with groups has no cuDNN equivalent");
    d.kind = ConvKind::kBackwardData;
    // cuDNN's backward data is the adjoint of a forward that reads the
    // filter unreversed; this convolution reads the rhs reversed (the
    // window_reversal attribute cancels that).
    if (!reversed) result.rhs_reverse = dn.kernel_spatial_dims;
    std::tie(d.y, d.x) = placeOperands(f, dn.kernel_input_feature_dim,
                                       dn.kernel_output_feature_dim, result);
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t extent = (windows[i] - 1) * f.rhs_dilation[i] + 1;
      const int64_t pre = extent - 1 - f.pad_lo[i];
      if (pre < 0) return refuse("the input gradient's padding exceeds its window");
      const std::optional<int64_t> post =
          solvePostPadding(outputs[i], pre, extent, f.lhs_dilation[i],
                           f.inSpatial(static_cast<int64_t>(i)));
      if (!post) return refuse("no cuDNN padding gives the input gradient's extent");
      d.strides.push_back(f.lhs_dilation[i]);
      d.dilations.push_back(f.rhs_dilation[i]);
      d.pre_padding.push_back(pre);
      d.post_padding.push_back(*post);
    }
  } else if (f.batch_groups > 1 ||
             (f.feature_groups == 1 && product(windows) > product(outputs))) {
    if (reversed && spatial > 0)
      return refuse("a reversed window in a weight-gradient form");
    d.kind = ConvKind::kBackwardFilter;
    d.x = tensorOf(
        f.lhs, concat({dn.input_feature_dim, dn.input_batch_dim}, dn.input_spatial_dims));
    d.y = tensorOf(f.rhs,
                   concat({dn.kernel_input_feature_dim, dn.kernel_output_feature_dim},
                          dn.kernel_spatial_dims));
    // dw in KRSC beside an x whose C (the lhs's batch role) is innermost,
    // else KCRS.
    d.w = placeResult(
        f.out,
        filterOrder(dn.input_batch_dim == lhs_rank - 1, dn.output_feature_dim,
                    dn.output_batch_dim, dn.output_spatial_dims),
        concat({dn.output_feature_dim, dn.output_batch_dim}, dn.output_spatial_dims),
        result);
    for (size_t i = 0; i < spatial; ++i) {
      // cuDNN's filter positions are our output positions, spaced by our
      // window strides; its output positions are our window positions.
      const int64_t extent = (outputs[i] - 1) * f.strides[i] + 1;
      if (f.pad_lo[i] < 0) return refuse("negative padding");
      const std::optional<int64_t> post =
          solvePostPadding(f.inSpatial(static_cast<int64_t>(i)), f.pad_lo[i], extent,
                           f.rhs_dilation[i], windows[i]);
      if (!post) return refuse("no cuDNN padding gives the weight gradient's extent");
      d.strides.push_back(f.rhs_dilation[i]);
      d.dilations.push_back(f.strides[i]);
      d.pre_padding.push_back(f.pad_lo[i]);
      d.post_padding.push_back(*post);
    }
  } else {
    d.kind = ConvKind::kForward;
    d.flip = reversed && spatial > 0;
    std::tie(d.x, d.y) = placeOperands(f, dn.kernel_output_feature_dim,
                                       dn.kernel_input_feature_dim, result);
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t extent = (windows[i] - 1) * f.rhs_dilation[i] + 1;
      if (f.pad_lo[i] < 0) return refuse("negative padding");
      const std::optional<int64_t> post =
          solvePostPadding(f.inSpatial(static_cast<int64_t>(i)), f.pad_lo[i], extent,
                           f.strides[i], outputs[i]);
      if (!post) return refuse("no cuDNN padding gives the output's extent");
      d.strides.push_back(f.strides[i]);
      d.dilations.push_back(f.rhs_dilation[i]);
      d.pre_padding.push_back(f.pad_lo[i]);
      d.post_padding.push_back(*post);
    }
  }
  while (d.strides.size() < 2) addUnitSpatialDim(d);
  if (Status valid = runtime::validateConv(d); !valid.isOk())
    return internalError(what +
                         ": the cuDNN description is inconsistent: " + valid.message());
  return result;
}

}  // namespace jft::codegen::library
