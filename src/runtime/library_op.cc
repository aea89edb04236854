// Text forms of the library descriptions.
#include "runtime/library_op.h"

#include "support/enum_table.h"
#include "support/text.h"

namespace jft::runtime {
namespace {

// clang-format off
constexpr EnumName<FftKind> kFftKinds[] = {
    {FftKind::kFft, "fft"}, {FftKind::kIfft, "ifft"}, {FftKind::kRfft, "rfft"},
    {FftKind::kIrfft, "irfft"},
};
// clang-format on

}  // namespace

std::string fftText(const FftDesc& desc) {
  return std::string(nameOf(kFftKinds, desc.kind, "fft?")) + " " +
         intListText(desc.lengths, ",") + " batch " + std::to_string(desc.batch) +
         (desc.f64 ? " f64" : " f32");
}

std::string libraryOpText(const LibraryOp& op) {
  if (const auto* fft = std::get_if<FftDesc>(&op)) return fftText(*fft);
  if (const auto* conv = std::get_if<ConvDesc>(&op)) return convText(*conv);
  return solverText(std::get<SolverDesc>(op));
}

}  // namespace jft::runtime
