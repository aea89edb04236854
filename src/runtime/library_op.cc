// Text forms of the library descriptions.
#include "runtime/library_op.h"

namespace jft::runtime {
namespace {

std::string dimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "," : "") + std::to_string(dims[i]);
  return text + "]";
}

const char* fftKindName(FftKind kind) {
  switch (kind) {
    case FftKind::kFft:
      return "fft";
    case FftKind::kIfft:
      return "ifft";
    case FftKind::kRfft:
      return "rfft";
    case FftKind::kIrfft:
      return "irfft";
  }
  return "fft?";
}

}  // namespace

std::string fftText(const FftDesc& desc) {
  return std::string(fftKindName(desc.kind)) + " " + dimsText(desc.lengths) + " batch " +
         std::to_string(desc.batch) + (desc.f64 ? " f64" : " f32");
}

std::string libraryOpText(const LibraryOp& op) {
  if (const auto* fft = std::get_if<FftDesc>(&op)) return fftText(*fft);
  if (const auto* conv = std::get_if<ConvDesc>(&op)) return convText(*conv);
  return solverText(std::get<SolverDesc>(op));
}

}  // namespace jft::runtime
