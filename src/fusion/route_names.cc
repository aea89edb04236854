#include "fusion/fusion.h"

namespace jft::fusion {

const char* routeName(Route route) {
  switch (route) {
    case Route::kTtir:
      return "ttir";
    case Route::kLibrary:
      return "library";
    case Route::kControl:
      return "control";
    case Route::kCollective:
      return "collective";
    case Route::kCustomCall:
      return "custom_call";
    case Route::kCopy:
      return "copy";
    case Route::kNative:
      return "native";
    case Route::kNone:
      return "none";
  }
  return "?";
}

const char* familyName(Family family) {
  switch (family) {
    case Family::kNone:
      return "none";
    case Family::kLoop:
      return "loop";
    case Family::kReduction:
      return "reduction";
    case Family::kScan:
      return "scan";
    case Family::kScatter:
      return "scatter";
    case Family::kSort:
      return "sort";
    case Family::kMatmul:
      return "matmul";
    case Family::kConv:
      return "conv";
    case Family::kPallas:
      return "pallas";
    case Family::kAttention:
      return "attention";
  }
  return "?";
}

}  // namespace jft::fusion
