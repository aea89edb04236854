// FftDesc: item shapes, byte sizes and the inverse scale computed by hand
// from the definitions in runtime/fft.h; validation; and the load-time check
// of an FFT LibraryThunk's buffers.
#include <gtest/gtest.h>

#include "runtime/fft.h"
#include "runtime/program_check.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;

TEST(FftDesc, ShapesAndBytesOfEachKind) {
  // rfft of 3 rows of [4, 10] floats: complex [4, 6] per row.
  FftDesc r{FftKind::kRfft, false, {4, 10}, 3};
  EXPECT_EQ(fftInputDims(r), (std::vector<int64_t>{4, 10}));
  EXPECT_EQ(fftOutputDims(r), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(fftInputBytes(r), 3u * 40 * 4);
  EXPECT_EQ(fftOutputBytes(r), 3u * 24 * 8);
  EXPECT_EQ(fftWorkspaceBytes(r), 0u);
  EXPECT_EQ(fftBufferCount(r), 2u);
  EXPECT_EQ(fftScale(r), 1.0);
  EXPECT_EQ(fftText(r), "rfft [4,10] batch 3 f32");

  // irfft back, in f64: complex128 [4, 6] -> double [4, 10], a workspace of
  // the input's bytes, scaled by 1 / 40.
  FftDesc i{FftKind::kIrfft, true, {4, 10}, 3};
  EXPECT_EQ(fftInputDims(i), (std::vector<int64_t>{4, 6}));
  EXPECT_EQ(fftOutputDims(i), (std::vector<int64_t>{4, 10}));
  EXPECT_EQ(fftInputBytes(i), 3u * 24 * 16);
  EXPECT_EQ(fftOutputBytes(i), 3u * 40 * 8);
  EXPECT_EQ(fftWorkspaceBytes(i), fftInputBytes(i));
  EXPECT_EQ(fftBufferCount(i), 3u);
  EXPECT_DOUBLE_EQ(fftScale(i), 1.0 / 40);

  // Odd length: 7 keeps 7 / 2 + 1 = 4.
  FftDesc odd{FftKind::kRfft, false, {7}, 1};
  EXPECT_EQ(fftOutputDims(odd), std::vector<int64_t>{4});

  FftDesc c{FftKind::kIfft, false, {2, 3, 5}, 2};
  EXPECT_EQ(fftInputBytes(c), 2u * 30 * 8);
  EXPECT_EQ(fftOutputBytes(c), 2u * 30 * 8);
  EXPECT_DOUBLE_EQ(fftScale(c), 1.0 / 30);
  EXPECT_EQ(fftScale(FftDesc{FftKind::kFft, true, {8}, 1}), 1.0);
}

TEST(FftDesc, EmptyTransformsHaveNoBytesAndNoWorkspace) {
  FftDesc zeroBatch{FftKind::kIrfft, false, {8}, 0};
  EXPECT_TRUE(fftIsEmpty(zeroBatch));
  EXPECT_EQ(fftInputBytes(zeroBatch), 0u);
  EXPECT_EQ(fftBufferCount(zeroBatch), 2u);
  FftDesc zeroLength{FftKind::kRfft, false, {4, 0}, 2};
  EXPECT_TRUE(fftIsEmpty(zeroLength));
  EXPECT_EQ(fftOutputDims(zeroLength), (std::vector<int64_t>{4, 0}));
  EXPECT_FALSE(fftIsEmpty(FftDesc{FftKind::kFft, false, {1}, 1}));
  EXPECT_TRUE(validateFft(zeroLength).isOk());
}

TEST(FftDesc, ValidationNamesTheDescription) {
  Status s = validateFft(FftDesc{FftKind::kFft, false, {2, 2, 2, 2}, 1});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fft (fft [2,2,2,2] batch 1 f32): needs 1 to 3 lengths"),
            std::string::npos)
      << s.message();
  EXPECT_FALSE(validateFft(FftDesc{FftKind::kFft, false, {}, 1}).isOk());
  EXPECT_FALSE(validateFft(FftDesc{FftKind::kFft, false, {-1}, 1}).isOk());
  EXPECT_FALSE(validateFft(FftDesc{FftKind::kFft, false, {4}, -2}).isOk());
}

// slots: 0 x (parameter, 64 B), 1 out (output, 64 B), 2 workspace (temp, 64 B).
Program fftProgram(FftDesc fft, std::vector<int> buffers) {
  Program p;
  p.name = "fft";
  p.slots.push_back(slot(K::kParameter, 64, 0));
  p.slots.push_back(slot(K::kOutput, 64, 0));
  p.slots.push_back(slot(K::kTemp, 64, -1, 0));
  p.thunks.push_back(LibraryThunk{std::move(fft), std::move(buffers)});
  p.temp_bytes = 256;
  p.parameter_bytes = {64};
  p.output_slots = {1};
  p.output_aliases = {-1};
  return p;
}

void expectRefused(const Program& p, const std::string& text) {
  Status s = checkProgram(p, 32);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.toString();
  EXPECT_NE(s.message().find(text), std::string::npos) << s.message();
}

TEST(FftThunkCheck, BuffersMustHoldWhatTheTransformTouches) {
  // 8 complex64 in and out: 64 bytes each.
  const FftDesc fft{FftKind::kFft, false, {8}, 1};
  EXPECT_TRUE(checkProgram(fftProgram(fft, {0, 1}), 32).isOk());
  expectRefused(fftProgram(fft, {0, 1, 2}), "fft [8] batch 1 f32 lists 3 buffers, not 2");
  expectRefused(fftProgram(FftDesc{FftKind::kFft, false, {8}, 2}, {0, 1}),
                "input slot 0 holds 64 bytes, the FFT reads 128");
  expectRefused(fftProgram(fft, {1, 0}),
                "fft [8] batch 1 f32 output slot 0 is read-only");
  // irfft [14]: 8 complex64 in (64 B), 14 floats out, a 64-byte workspace.
  const FftDesc irfft{FftKind::kIrfft, false, {14}, 1};
  EXPECT_TRUE(checkProgram(fftProgram(irfft, {0, 1, 2}), 32).isOk());
  expectRefused(fftProgram(irfft, {0, 1}), "lists 2 buffers, not 3");
  expectRefused(fftProgram(irfft, {0, 1, 0}), "workspace slot 0 is read-only");
  expectRefused(fftProgram(FftDesc{FftKind::kFft, false, {}, 1}, {0, 1}),
                "needs 1 to 3 lengths");
}

}  // namespace
}  // namespace jft::runtime::testing
