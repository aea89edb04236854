// Names of the backend's math library functions. CUDA: libdevice
// (__nv_tanhf / __nv_tanh), linked by Triton's NVIDIA backend whenever the
// module calls an external function; HIP: OCML (__ocml_tanh_f32 / _f64),
// linked likewise by the AMD backend. Both use the C math names, so one base
// name per function suffices.
#include "codegen/ttir/elementwise_ops.h"

namespace jft::codegen::ttir::ew {

std::string mathSymbol(Target target, std::string_view function,
                       std::string_view scalar) {
  const bool f64 = scalar == "f64";
  const std::string base(function);
  switch (target) {
    case Target::kCuda:
      return "__nv_" + base + (f64 ? "" : "f");
    case Target::kHip:
      return "__ocml_" + base + (f64 ? "_f64" : "_f32");
  }
  return base;
}

}  // namespace jft::codegen::ttir::ew
