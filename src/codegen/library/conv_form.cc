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

}  // namespace jft::codegen::library
