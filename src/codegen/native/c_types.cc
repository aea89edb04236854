#include "codegen/native/c_types.h"

namespace jft::codegen::native {

using ir::ElementType;

bool isNativeType(ElementType element, std::string* why) {
  switch (element) {
    case ElementType::PRED:
    case ElementType::I8:
    case ElementType::I16:
    case ElementType::I32:
    case ElementType::I64:
    case ElementType::U8:
    case ElementType::U16:
    case ElementType::U32:
    case ElementType::U64:
    case ElementType::F16:
    case ElementType::BF16:
    case ElementType::F32:
    case ElementType::F64:
    case ElementType::C64:
    case ElementType::C128:
      return true;
    default:
      break;
  }
  if (why) {
    *why =
        std::string(ir::elementTypeName(element)) +
        ": the native emitter computes with pred, 8- to 64-bit integers, f16, bf16, f32, "
        "f64, complex<f32> and complex<f64> only";
  }
  return false;
}

std::string registerType(ElementType element) {
  switch (element) {
    case ElementType::PRED:
      return "bool";
    case ElementType::F16:
    case ElementType::BF16:
    case ElementType::F32:
      return "float";
    case ElementType::F64:
      return "double";
    case ElementType::C64:
      return "jft_c64";
    case ElementType::C128:
      return "jft_c128";
    default:
      break;
  }
  return (ir::isUnsignedInteger(element) ? "jft_u" : "jft_i") +
         std::to_string(ir::bitWidth(element));
}

std::string storageType(ElementType element) {
  if (element == ElementType::PRED) return "jft_u8";
  if (element == ElementType::F16 || element == ElementType::BF16) return "jft_u16";
  return registerType(element);
}

std::string computeType(ElementType element) {
  return element == ElementType::F64 || element == ElementType::C128 ? "double" : "float";
}

std::string unsignedTwin(ElementType element) {
  return "jft_u" + std::to_string(ir::bitWidth(element));
}

std::string signedTwin(ElementType element) {
  return "jft_i" + std::to_string(ir::bitWidth(element));
}

std::string fromStorage(ElementType element, const std::string& stored) {
  switch (element) {
    case ElementType::PRED:
      return "(" + stored + " != 0)";
    case ElementType::F16:
      return "jft_f16_to_f32(" + stored + ")";
    case ElementType::BF16:
      return "jft_bf16_to_f32(" + stored + ")";
    default:
      return stored;
  }
}

std::string toStorage(ElementType element, const std::string& value) {
  switch (element) {
    case ElementType::PRED:
      return "(jft_u8)(" + value + " ? 1 : 0)";
    case ElementType::F16:
      return "jft_f32_to_f16(" + value + ")";
    case ElementType::BF16:
      return "jft_f32_to_bf16(" + value + ")";
    default:
      return value;
  }
}

std::string roundTo(ElementType element, const std::string& computed) {
  switch (element) {
    case ElementType::F16:
      return "jft_round_f16(" + computed + ")";
    case ElementType::BF16:
      return "jft_round_bf16(" + computed + ")";
    default:
      return computed;
  }
}

}  // namespace jft::codegen::native
