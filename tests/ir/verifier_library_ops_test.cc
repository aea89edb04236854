// fft, cholesky, triangular_solve and rng_bit_generator rules of the
// StableHLO spec.
#include "verifier_test_util.h"

namespace jft::ir {
namespace {

using namespace jft::ir::testing;
using Ints = std::vector<int64_t>;

BodyFn fft(FftType type, Ints length, Type out) {
  return oneOp(OpKind::Fft, out, {{"fft_type", type}, {"fft_length", length}});
}

TEST(VerifyFft, RealToComplexKeepsHalfTheSpectrum) {
  // The zoo's fft: rfft of 256 points gives 129 complex values.
  EXPECT_VALID(verifyMain({f32({4, 256})}, fft(FftType::RFFT, {256}, c64({4, 129}))));
  EXPECT_INVALID(verifyMain({f32({4, 256})}, fft(FftType::RFFT, {256}, c64({4, 256}))),
                 "stablehlo.fft at zoo.py:17:20: complex side tensor<4x256xcomplex<f32>> "
                 "should have shape [4, 129]");
  EXPECT_INVALID(verifyMain({f32({4, 256})}, fft(FftType::RFFT, {128}, c64({4, 129}))),
                 "real side tensor<4x256xf32> must end in fft_length [128]");
}

TEST(VerifyFft, InverseRealFftGivesTheRealShape) {
  EXPECT_VALID(verifyMain({c64({4, 129})}, fft(FftType::IRFFT, {256}, f32({4, 256}))));
  EXPECT_INVALID(verifyMain({c64({4, 129})}, fft(FftType::IRFFT, {256}, f64({4, 256}))),
                 "IRFFT maps a complex type to its float");
}

TEST(VerifyFft, ComplexFftKeepsTheType) {
  EXPECT_VALID(verifyMain({c64({8})}, fft(FftType::FFT, {8}, c64({8}))));
  EXPECT_INVALID(verifyMain({f32({8})}, fft(FftType::IFFT, {8}, f32({8}))),
                 "IFFT needs a complex operand");
  EXPECT_INVALID(
      verifyMain({c64({2, 2, 2, 2})}, fft(FftType::FFT, {2, 2, 2, 2}, c64({2, 2, 2, 2}))),
      "fft_length [2, 2, 2, 2] must have 1 to 3 entries");
}

TEST(VerifyCholesky, SquareMatrices) {
  EXPECT_VALID(verifyMain({f32({3, 5, 5})}, oneOp(OpKind::Cholesky, f32({3, 5, 5}))));
  EXPECT_INVALID(
      verifyMain({f32({5, 4})}, oneOp(OpKind::Cholesky, f32({5, 4}))),
      "stablehlo.cholesky at zoo.py:17:20: matrices of tensor<5x4xf32> are not "
      "square");
}

TEST(VerifyTriangularSolve, BFitsAOnItsSide) {
  NamedAttrs left = {{"left_side", true}, {"lower", true}};
  NamedAttrs right = {{"left_side", false}, {"lower", true}};
  EXPECT_VALID(verifyMain({f32({4, 4}), f32({4, 7})},
                          oneOp(OpKind::TriangularSolve, f32({4, 7}), left)));
  EXPECT_VALID(verifyMain({f32({4, 4}), f32({7, 4})},
                          oneOp(OpKind::TriangularSolve, f32({7, 4}), right)));
  EXPECT_INVALID(verifyMain({f32({4, 4}), f32({4, 7})},
                            oneOp(OpKind::TriangularSolve, f32({4, 7}), right)),
                 "b tensor<4x7xf32> does not fit a tensor<4x4xf32> on the right");
  EXPECT_INVALID(verifyMain({f32({2, 4, 4}), f32({3, 4, 7})},
                            oneOp(OpKind::TriangularSolve, f32({3, 4, 7}), left)),
                 "batch dimensions differ");
}

TEST(VerifyRngBitGenerator, StateShapeFollowsTheAlgorithm) {
  const Type state = tensorOf(ElementType::U64, {2});
  auto rng = [](RngAlgorithm algorithm, Type state_type) -> BodyFn {
    return [=](Builder& b, const std::vector<ValueId>& args) {
      return b.op(OpKind::RngBitGenerator, args,
                  {state_type, tensorOf(ElementType::U32, {16})},
                  {{"rng_algorithm", algorithm}});
    };
  };
  EXPECT_VALID(verifyMain({state}, rng(RngAlgorithm::THREE_FRY, state)));
  EXPECT_INVALID(
      verifyMain({tensorOf(ElementType::U64, {3})},
                 rng(RngAlgorithm::THREE_FRY, tensorOf(ElementType::U64, {3}))),
      "THREE_FRY needs a state of 2 words, got 3");
  EXPECT_INVALID(verifyMain({i64({2})}, rng(RngAlgorithm::PHILOX, i64({2}))),
                 "initial state must be a 1-d tensor of ui64");
}

}  // namespace
}  // namespace jft::ir
