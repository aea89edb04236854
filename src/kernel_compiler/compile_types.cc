#include "kernel_compiler/compile_types.h"

namespace jft::kernel_compiler {

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

}  // namespace jft::kernel_compiler
