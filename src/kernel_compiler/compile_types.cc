#include "kernel_compiler/compile_types.h"

#include <cctype>

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

std::string kernelNameOf(std::string_view ttir) {
  size_t func = ttir.find("tt.func");
  if (func == std::string_view::npos) return "";
  size_t at = ttir.find('@', func);
  if (at == std::string_view::npos) return "";
  size_t end = at + 1;
  while (end < ttir.size() &&
         (std::isalnum(static_cast<unsigned char>(ttir[end])) || ttir[end] == '_' ||
          ttir[end] == '$' || ttir[end] == '.')) {
    ++end;
  }
  return std::string(ttir.substr(at + 1, end - at - 1));
}

}  // namespace jft::kernel_compiler
