#include "codegen/common/math_functions.h"

namespace jft::codegen::common {

using ir::OpKind;

const char* cMathFunction(OpKind kind) {
  switch (kind) {
    case OpKind::Remainder:
      return "fmod";
    case OpKind::Power:
      return "pow";
    case OpKind::Atan2:
      return "atan2";
    case OpKind::Exponential:
      return "exp";
    case OpKind::ExponentialMinusOne:
      return "expm1";
    case OpKind::Log:
      return "log";
    case OpKind::LogPlusOne:
      return "log1p";
    case OpKind::Cbrt:
      return "cbrt";
    case OpKind::Tanh:
      return "tanh";
    case OpKind::Sine:
      return "sin";
    case OpKind::Cosine:
      return "cos";
    case OpKind::Tan:
      return "tan";
    case OpKind::RoundNearestAfz:
      return "round";  // halfway cases away from zero
    case OpKind::RoundNearestEven:
      return "rint";  // the default rounding mode: to nearest even
    default:
      return nullptr;
  }
}

}  // namespace jft::codegen::common
