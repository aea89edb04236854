// The extents of a convolution's dim roles.
#include "codegen/library/conv_form.h"

namespace jft::codegen::library {

int64_t roleExtent(const ConvForm& form, int64_t role) {
  switch (role) {
    case kGroupRole:
      return form.groups();
    case kChannelRole:
      return form.featuresPerGroup();
    case kBatchRole:
      return form.batchPerGroup();
    case kFeatureRole:
      return form.outFeatures() / form.groups();
    case kAllFeaturesRole:
      return form.outFeatures();
    default:
      return role >= kWindowRole ? form.window(role - kWindowRole)
                                 : form.outSpatial(role);
  }
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size());
  int64_t stride = 1;
  for (size_t d = dims.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= dims[d];
  }
  return strides;
}

}  // namespace jft::codegen::library
