// fft -> FftDesc. The checks are the StableHLO spec's constraints (C1..C5),
// plus XLA's for FFT/IFFT (the operand's innermost dims are fft_length: a
// library transform neither crops nor pads). Every type the spec allows has
// a library FFT: the complex types are complex64 and complex128, so the real
// side is f32 or f64.
#include "codegen/library/fft_call.h"

#include <string>
#include <vector>

namespace jft::codegen::library {
namespace {

std::string listText(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

std::string typesText(const ir::Module& module, const ir::Op& op) {
  std::string text = "(";
  for (size_t i = 0; i < op.operands.size(); ++i)
    text += (i ? ", " : "") + module.typeOf(op.operands[i]).str();
  text += ") -> ";
  for (size_t i = 0; i < op.results.size(); ++i)
    text += (i ? ", " : "") + module.typeOf(op.results[i]).str();
  return text;
}

int64_t halfSpectrum(int64_t n) {
  return n == 0 ? 0 : n / 2 + 1;
}

// The last `count` dims (all of them when there are fewer).
std::vector<int64_t> innermost(const std::vector<int64_t>& dims, size_t count) {
  if (count > dims.size()) return dims;
  return std::vector<int64_t>(dims.end() - static_cast<std::ptrdiff_t>(count),
                              dims.end());
}

runtime::FftKind kindOf(ir::FftType type) {
  switch (type) {
    case ir::FftType::FFT:
      return runtime::FftKind::kFft;
    case ir::FftType::IFFT:
      return runtime::FftKind::kIfft;
    case ir::FftType::RFFT:
      return runtime::FftKind::kRfft;
    case ir::FftType::IRFFT:
      return runtime::FftKind::kIrfft;
  }
  return runtime::FftKind::kFft;
}

}  // namespace

StatusOr<LibraryOpCall> lowerFftCall(const ir::Module& module, const ir::Op& fft) {
  if (fft.operands.size() != 1 || fft.results.size() != 1)
    return invalidArgument("fft takes one operand and has one result, got " +
                           typesText(module, fft));
  const ir::Type& in = module.typeOf(fft.operands[0]);
  const ir::Type& out = module.typeOf(fft.results[0]);
  const std::string op = "fft " + typesText(module, fft);
  if (!in.isTensor() || !out.isTensor())
    return invalidArgument(op + ": operand and result must be tensors");
  const auto* type = ir::findAttrAs<ir::FftType>(fft.attrs, "fft_type");
  const auto* length = ir::findAttrAs<std::vector<int64_t>>(fft.attrs, "fft_length");
  if (type == nullptr || length == nullptr)
    return invalidArgument(op + ": needs fft_type and fft_length attributes");
  const std::string name =
      op + " " + std::string(ir::fftTypeName(*type)) + " fft_length " + listText(*length);
  if (length->empty() || length->size() > 3)
    return invalidArgument(name + ": fft_length must have 1 to 3 entries");
  if (static_cast<int64_t>(length->size()) > in.rank())
    return invalidArgument(name +
                           ": fft_length has more entries than the operand's rank");
  for (int64_t n : *length)
    if (n < 0) return invalidArgument(name + ": fft_length has a negative entry");

  // The element types: the complex side must be the real side's complex type.
  const bool rfft = *type == ir::FftType::RFFT;
  const bool complexToComplex = *type == ir::FftType::FFT || *type == ir::FftType::IFFT;
  const ir::Type& real = rfft ? in : out;
  const ir::Type& complex = rfft ? out : in;
  if (!ir::isComplex(complex.element))
    return invalidArgument(name + ": " + (rfft ? "the result" : "the operand") +
                           " must be complex");
  if (complexToComplex) {
    if (out != in)
      return invalidArgument(name + ": the result type must be the operand's");
  } else if (!ir::isFloat(real.element) ||
             ir::complexComponent(complex.element) != real.element) {
    return invalidArgument(name + ": " + (rfft ? "the operand" : "the result") +
                           " must be the float type of the complex side");
  }
  // complex64 and complex128 are the only complex types: f32 or f64 here.
  const ir::ElementType component = ir::complexComponent(complex.element);

  // Shapes (C4, C5): the real side ends in fft_length, the complex side is
  // the same but for its last dim; FFT/IFFT's operand ends in fft_length.
  const ir::Type& full = complexToComplex ? in : real;
  if (innermost(full.dims, length->size()) != *length)
    return invalidArgument(name + ": " + full.str() + " must end in fft_length " +
                           listText(*length));
  if (!complexToComplex) {
    std::vector<int64_t> expected = real.dims;
    expected.back() = halfSpectrum(real.dims.back());
    const std::string half = std::to_string(expected.back());
    if (complex.dims != expected)
      return invalidArgument(name + ": the complex side " + complex.str() +
                             " must have the real side's shape with its last dim " +
                             "n / 2 + 1 = " + half);
  }

  runtime::FftDesc desc;
  desc.kind = kindOf(*type);
  desc.f64 = component == ir::ElementType::F64;
  desc.lengths = *length;
  desc.batch = 1;
  for (size_t d = 0; d + length->size() < in.dims.size(); ++d) desc.batch *= in.dims[d];

  LibraryOpCall call;
  call.inputs = {fft.operands[0]};
  call.outputs = {fft.results[0]};
  call.workspace_bytes = runtime::fftWorkspaceBytes(desc);
  call.op = std::move(desc);
  return call;
}

}  // namespace jft::codegen::library
