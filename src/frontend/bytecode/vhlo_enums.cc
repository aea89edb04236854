#include "frontend/bytecode/vhlo_enums.h"

namespace jft::frontend::bytecode {

const std::vector<VhloEnum>& vhloEnums() {
  static const std::vector<VhloEnum> kEnums = {
      {3, "comparison_direction_v1", {"EQ", "NE", "GE", "GT", "LE", "LT"}},
      {4, "comparison_type_v1", {"NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"}},
      {5,
       "api_version_v1",
       {"API_VERSION_UNSPECIFIED", "API_VERSION_ORIGINAL", "API_VERSION_STATUS_RETURNING",
        "API_VERSION_STATUS_RETURNING_UNIFIED", "API_VERSION_TYPED_FFI"}},
      {7, "fft_type_v1", {"FFT", "IFFT", "RFFT", "IRFFT"}},
      {11, "precision_v1", {"DEFAULT", "HIGH", "HIGHEST"}},
      {12, "rng_algorithm_v1", {"DEFAULT", "THREE_FRY", "PHILOX"}},
      {13, "rng_distribution_v1", {"", "UNIFORM", "NORMAL"}},
      {16, "transpose_v1", {"TRANSPOSE_INVALID", "NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}},
      {19, "result_accuracy_mode_v1", {"DEFAULT", "HIGHEST", "TOLERANCE"}},
  };
  return kEnums;
}

}  // namespace jft::frontend::bytecode
