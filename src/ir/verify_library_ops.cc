// Ops JAX hands to vendor libraries or special kernels: fft, cholesky,
// triangular_solve, rng_bit_generator.
#include <string>

#include "ir/verify_op.h"

namespace jft::ir {
namespace {

std::vector<int64_t> trailing(const std::vector<int64_t>& dims, size_t count) {
  return std::vector<int64_t>(dims.end() - static_cast<std::ptrdiff_t>(count),
                              dims.end());
}

// RFFT's result (and IRFFT's operand) keeps n / 2 + 1 of the last n entries.
int64_t halfSpectrum(int64_t n) {
  return n == 0 ? 0 : n / 2 + 1;
}

void verifyFft(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  const Type& in = v.operand(0);
  const Type& out = v.result(0);
  const auto* type = v.requiredAttr<FftType>("fft_type");
  auto length = v.intsAttr("fft_length");
  if (!type || !length) return;
  if (length->empty() || length->size() > 3 ||
      static_cast<int64_t>(length->size()) > in.rank())
    return (void)v.fail("fft_length " + listText(*length) +
                        " must have 1 to 3 entries, at most the operand's rank");
  const std::string name(fftTypeName(*type));
  if (*type == FftType::FFT || *type == FftType::IFFT) {
    if (!isComplex(in.element)) return (void)v.fail(name + " needs a complex operand");
    checkResultIsOperandType(v, in);
    return;
  }
  const bool forward = *type == FftType::RFFT;
  const Type& real = forward ? in : out;
  const Type& complex = forward ? out : in;
  if (!isFloat(real.element) || !isComplex(complex.element) ||
      complexComponent(complex.element) != real.element)
    return (void)v.fail(
        name + " maps " +
        (forward ? "a float to its complex type" : "a complex type to its float") +
        ", got " + in.str() + " -> " + out.str());
  if (trailing(real.dims, length->size()) != *length)
    return (void)v.fail("real side " + real.str() + " must end in fft_length " +
                        listText(*length));
  std::vector<int64_t> expected = real.dims;
  expected.back() = halfSpectrum(real.dims.back());
  if (complex.dims != expected)
    v.fail("complex side " + complex.str() + " should have shape " + shapeText(expected));
}

bool checkSquareMatrices(OpVerifier& v, const Type& a) {
  if (a.rank() < 2) return v.fail("operand needs rank 2 or more, got " + a.str());
  if (a.dims[a.rank() - 1] != a.dims[a.rank() - 2])
    return v.fail("matrices of " + a.str() + " are not square");
  if (!isFloat(a.element) && !isComplex(a.element))
    return v.fail("operand must be floating-point or complex, got " + a.str());
  return true;
}

void verifyCholesky(OpVerifier& v) {
  if (!v.expectCounts(1, 1) || !v.expectTensors()) return;
  if (!checkSquareMatrices(v, v.operand(0))) return;
  checkResultIsOperandType(v, v.operand(0));
}

void verifyTriangularSolve(OpVerifier& v) {
  if (!v.expectCounts(2, 1) || !v.expectTensors()) return;
  const Type& a = v.operand(0);
  const Type& b = v.operand(1);
  if (!checkSquareMatrices(v, a)) return;
  if (b.element != a.element || b.rank() != a.rank())
    return (void)v.fail("b " + b.str() +
                        " must have a's rank and element type: " + a.str());
  const int64_t r = a.rank();
  const auto* left = v.optionalAttr<bool>("left_side");
  const bool left_side = left && *left;
  const int64_t shared = b.dims[left_side ? r - 2 : r - 1];
  if (shared != a.dims[r - 1])
    return (void)v.fail("b " + b.str() + " does not fit a " + a.str() + " on the " +
                        (left_side ? "left" : "right"));
  if (std::vector<int64_t>(a.dims.begin(), a.dims.end() - 2) !=
      std::vector<int64_t>(b.dims.begin(), b.dims.end() - 2))
    return (void)v.fail("batch dimensions differ: " + a.str() + " vs " + b.str());
  if (v.result(0) != b)
    v.fail("result type " + v.result(0).str() + " differs from b's " + b.str());
}

void verifyRngBitGenerator(OpVerifier& v) {
  if (!v.expectCounts(1, 2) || !v.expectTensors()) return;
  const Type& state = v.operand(0);
  if (state.rank() != 1 || state.element != ElementType::U64)
    return (void)v.fail("initial state must be a 1-d tensor of ui64, got " + state.str());
  if (v.result(0) != state)
    return (void)v.fail("output state " + v.result(0).str() +
                        " differs from initial state " + state.str());
  const auto* algorithm = v.optionalAttr<RngAlgorithm>("rng_algorithm");
  const int64_t size = state.dims[0];
  if (algorithm && *algorithm == RngAlgorithm::THREE_FRY && size != 2)
    return (void)v.fail("THREE_FRY needs a state of 2 words, got " +
                        std::to_string(size));
  if (algorithm && *algorithm == RngAlgorithm::PHILOX && size != 2 && size != 3)
    return (void)v.fail("PHILOX needs a state of 2 or 3 words, got " +
                        std::to_string(size));
  const ElementType out = v.result(1).element;
  if (!isInteger(out) && !isFloat(out))
    v.fail("output must be integer or floating-point, got " + v.result(1).str());
}

}  // namespace

void verifyLibraryOp(OpVerifier& v) {
  switch (v.op().kind) {
    case OpKind::Fft:
      return verifyFft(v);
    case OpKind::Cholesky:
      return verifyCholesky(v);
    case OpKind::TriangularSolve:
      return verifyTriangularSolve(v);
    case OpKind::RngBitGenerator:
      return verifyRngBitGenerator(v);
    default:
      return;
  }
}

}  // namespace jft::ir
