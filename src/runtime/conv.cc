// ConvDesc's checks and text.
#include "runtime/conv.h"

#include "support/enum_table.h"
#include "support/text.h"

namespace jft::runtime {
namespace {

// clang-format off
constexpr EnumName<ConvKind> kConvKinds[] = {
    {ConvKind::kForward, "fwd"}, {ConvKind::kBackwardData, "bwd_data"},
    {ConvKind::kBackwardFilter, "bwd_filter"},
};
constexpr ElementTypeRow<ConvElement> kElements[] = {
    {ConvElement::kF16, "f16", 2}, {ConvElement::kBF16, "bf16", 2},
    {ConvElement::kF32, "f32", 4}, {ConvElement::kF64, "f64", 8},
};
// clang-format on

const char* kindName(ConvKind kind) {
  return nameOf(kConvKinds, kind, "?");
}

const char* elementName(ConvElement element) {
  return nameOf(kElements, element, "?");
}

Status checkTensor(const std::string& what, const char* name, const ConvTensor& t,
                   size_t rank) {
  if (t.dims.size() != rank || t.strides.size() != rank)
    return invalidArgument(what + ": " + name + " has " + std::to_string(t.dims.size()) +
                           " dims and " + std::to_string(t.strides.size()) +
                           " strides, not " + std::to_string(rank));
  for (size_t i = 0; i < rank; ++i)
    if (t.dims[i] < 1 || t.strides[i] < 1)
      return invalidArgument(what + ": " + name + " needs dims and strides >= 1");
  return Status::ok();
}

}  // namespace

std::string convText(const ConvDesc& d) {
  std::string text = std::string("cudnn conv ") + kindName(d.kind) + " x" +
                     intListText(d.x.dims, ",") + " w" + intListText(d.w.dims, ",") +
                     " y" + intListText(d.y.dims, ",") + " " + elementName(d.element);
  if (d.allow_tf32) text += " tf32";
  if (d.flip) text += " flip";
  return text + " stride " + intListText(d.strides, ",") + " pad " +
         intListText(d.pre_padding, ",") + "/" + intListText(d.post_padding, ",") +
         " dilation " + intListText(d.dilations, ",");
}

int64_t convGroups(const ConvDesc& d) {
  if (d.x.dims.size() < 2 || d.w.dims.size() < 2 || d.w.dims[1] <= 0) return 0;
  return d.x.dims[1] / d.w.dims[1];
}

int64_t convOutputExtent(const ConvDesc& d, size_t i) {
  const int64_t window = (d.w.dims[i + 2] - 1) * d.dilations[i] + 1;
  const int64_t span = d.x.dims[i + 2] + d.pre_padding[i] + d.post_padding[i] - window;
  if (span < 0) return 0;
  return span / d.strides[i] + 1;
}

Status validateConv(const ConvDesc& d) {
  const std::string what = convText(d);
  const size_t spatial = d.strides.size();
  if (spatial < 2 || spatial > 3)
    return invalidArgument(what + ": 2 or 3 spatial dims, not " +
                           std::to_string(spatial));
  if (d.pre_padding.size() != spatial || d.post_padding.size() != spatial ||
      d.dilations.size() != spatial)
    return invalidArgument(what + ": strides, paddings and dilations differ in length");
  for (size_t i = 0; i < spatial; ++i)
    if (d.strides[i] < 1 || d.dilations[i] < 1 || d.pre_padding[i] < 0 ||
        d.post_padding[i] < 0)
      return invalidArgument(what +
                             ": strides and dilations must be >= 1, paddings >= 0");
  JFT_RETURN_IF_ERROR(checkTensor(what, "x", d.x, spatial + 2));
  JFT_RETURN_IF_ERROR(checkTensor(what, "w", d.w, spatial + 2));
  JFT_RETURN_IF_ERROR(checkTensor(what, "y", d.y, spatial + 2));
  if (d.x.dims[0] != d.y.dims[0]) return invalidArgument(what + ": x and y differ in N");
  if (d.w.dims[0] != d.y.dims[1]) return invalidArgument(what + ": w's K is not y's");
  if (d.x.dims[1] % d.w.dims[1] != 0)
    return invalidArgument(what + ": x's C is not a multiple of w's");
  if (d.w.dims[0] % convGroups(d) != 0)
    return invalidArgument(what + ": " + std::to_string(convGroups(d)) +
                           " groups do not divide K");
  if (d.allow_tf32 && d.element != ConvElement::kF32)
    return invalidArgument(what + ": tf32 is for f32 convolutions only");
  for (size_t i = 0; i < spatial; ++i)
    if (convOutputExtent(d, i) != d.y.dims[i + 2])
      return invalidArgument(what + ": spatial dim " + std::to_string(i) +
                             " of y should be " + std::to_string(convOutputExtent(d, i)));
  return Status::ok();
}

int64_t convElementBytes(ConvElement element) {
  return bytesOf(kElements, element, 0);
}

uint64_t convTensorBytes(const ConvDesc& d, const ConvTensor& t) {
  int64_t last = 0;
  for (size_t i = 0; i < t.dims.size() && i < t.strides.size(); ++i)
    last += (t.dims[i] - 1) * t.strides[i];
  return static_cast<uint64_t>(last + 1) *
         static_cast<uint64_t>(convElementBytes(d.element));
}

const ConvTensor& convBufferTensor(const ConvDesc& d, size_t buffer) {
  switch (d.kind) {
    case ConvKind::kForward:
      return buffer == 0 ? d.x : buffer == 1 ? d.w : d.y;
    case ConvKind::kBackwardData:
      return buffer == 0 ? d.y : buffer == 1 ? d.w : d.x;
    case ConvKind::kBackwardFilter:
      return buffer == 0 ? d.x : buffer == 1 ? d.y : d.w;
  }
  return d.y;
}

}  // namespace jft::runtime
