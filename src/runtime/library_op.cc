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

const char* solverKindName(SolverKind kind) {
  switch (kind) {
    case SolverKind::kPotrf:
      return "potrf";
    case SolverKind::kGetrf:
      return "getrf";
    case SolverKind::kLuPivotsToPermutation:
      return "lu_pivots_to_permutation";
    case SolverKind::kTriangularSolve:
      return "triangular_solve";
  }
  return "solver?";
}

const char* solverTypeName(SolverType type) {
  switch (type) {
    case SolverType::kF32:
      return "f32";
    case SolverType::kF64:
      return "f64";
    case SolverType::kC64:
      return "c64";
    case SolverType::kC128:
      return "c128";
  }
  return "?";
}

}  // namespace

std::string fftText(const FftDesc& desc) {
  return std::string(fftKindName(desc.kind)) + " " + dimsText(desc.lengths) + " batch " +
         std::to_string(desc.batch) + (desc.f64 ? " f64" : " f32");
}

std::string solverText(const SolverDesc& desc) {
  return std::string(solverKindName(desc.kind)) + " " + solverTypeName(desc.type) +
         " batch " + std::to_string(desc.batch) + " " + std::to_string(desc.m) + "x" +
         std::to_string(desc.n) + (desc.lower ? " lower" : "");
}

std::string libraryOpText(const LibraryOp& op) {
  if (const auto* fft = std::get_if<FftDesc>(&op)) return fftText(*fft);
  return solverText(std::get<SolverDesc>(op));
}

}  // namespace jft::runtime
