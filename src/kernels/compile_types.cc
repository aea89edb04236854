#include "kernels/compile_types.h"

namespace jft::kernels {

const char* paramRoleName(ParamRole role) {
  switch (role) {
    case ParamRole::kArg:
      return "arg";
    case ParamRole::kGlobalScratch:
      return "global_scratch";
    case ParamRole::kProfileScratch:
      return "profile_scratch";
    case ParamRole::kHidden:
      return "hidden";
  }
  return "hidden";
}

}  // namespace jft::kernels
