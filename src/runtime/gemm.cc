// GemmDesc validation and text. The type table mirrors the combinations the
// GEMM libraries run (cuBLASLt's cublasLtMatmul table, hipBLASLt's subset).
#include "runtime/gemm.h"

#include <cmath>
#include <string>

#include "support/enum_table.h"
#include "support/text.h"

namespace jft::runtime {
namespace {

bool isFloatResult(GemmType t) {
  return t == GemmType::kF16 || t == GemmType::kBF16 || t == GemmType::kF32;
}

bool typesSupported(const GemmDesc& d) {
  if (d.a.type != d.b.type) return false;
  const GemmType in = d.a.type, out = d.d_type;
  switch (d.compute) {
    case GemmCompute::kTf32:
      return (in == GemmType::kF32 && out == GemmType::kF32) ||
             (in == GemmType::kC64 && out == GemmType::kC64);
    case GemmCompute::kF32:
      if (in == GemmType::kBF16 || in == GemmType::kF16)
        return out == in || out == GemmType::kF32;
      return (in == GemmType::kF32 && out == GemmType::kF32) ||
             (in == GemmType::kC64 && out == GemmType::kC64);
    case GemmCompute::kF64:
      return (in == GemmType::kF64 && out == GemmType::kF64) ||
             (in == GemmType::kC128 && out == GemmType::kC128);
    case GemmCompute::kS32:
      return in == GemmType::kS8 && out == GemmType::kS32;
  }
  return false;
}

// Rows and columns of an operand as stored (after its transpose).
struct Stored {
  int64_t rows, cols;
};

Stored storedA(const GemmDesc& d) {
  return d.a.transpose ? Stored{d.k, d.m} : Stored{d.m, d.k};
}
Stored storedB(const GemmDesc& d) {
  return d.b.transpose ? Stored{d.n, d.k} : Stored{d.k, d.n};
}

int64_t extent(Stored s, int64_t ld) {
  return (s.rows - 1) * ld + s.cols;
}

int64_t elements(Stored s, int64_t ld, int64_t batch, int64_t stride) {
  return (batch - 1) * stride + extent(s, ld);
}

Status checkOperand(const char* name, const GemmOperand& op, Stored s) {
  if (op.ld < s.cols)
    return invalidArgument(std::string(name) + ": leading dimension " + intText(op.ld) +
                           " is below its row length " + intText(s.cols));
  if (op.batch_stride < 0)
    return invalidArgument(std::string(name) + ": negative batch stride " +
                           intText(op.batch_stride));
  return Status::ok();
}

// clang-format off
constexpr ElementTypeRow<GemmType> kGemmTypes[] = {
    {GemmType::kF16, "f16", 2}, {GemmType::kBF16, "bf16", 2}, {GemmType::kF32, "f32", 4},
    {GemmType::kF64, "f64", 8}, {GemmType::kC64, "c64", 8}, {GemmType::kC128, "c128", 16},
    {GemmType::kS8, "s8", 1}, {GemmType::kS32, "s32", 4},
};
constexpr EnumName<GemmCompute> kComputes[] = {
    {GemmCompute::kF32, "f32"}, {GemmCompute::kTf32, "tf32"}, {GemmCompute::kF64, "f64"},
    {GemmCompute::kS32, "s32"},
};
// clang-format on

bool integral32(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 2147483647.0;
}

}  // namespace

int64_t gemmTypeBytes(GemmType type) {
  return bytesOf(kGemmTypes, type, 0);
}

std::string_view gemmTypeName(GemmType type) {
  return nameOf(kGemmTypes, type, "?");
}

std::string_view gemmComputeName(GemmCompute compute) {
  return nameOf(kComputes, compute, "?");
}

std::string gemmText(const GemmDesc& d) {
  auto operand = [](const char* name, const GemmOperand& op) {
    return std::string(name) + (op.transpose ? "^T" : "") + " ld " + intText(op.ld) +
           " stride " + intText(op.batch_stride);
  };
  std::string text = "batch " + intText(d.batch) + " x [" + intText(d.m) + "x" +
                     intText(d.k) + "] * [" + intText(d.k) + "x" + intText(d.n) + "], " +
                     std::string(gemmTypeName(d.a.type)) + " x " +
                     std::string(gemmTypeName(d.b.type)) + " -> " +
                     std::string(gemmTypeName(d.d_type)) + " (" +
                     std::string(gemmComputeName(d.compute)) + "), " + operand("A", d.a) +
                     ", " + operand("B", d.b) + ", D ld " + intText(d.d_ld) + " stride " +
                     intText(d.d_batch_stride);
  if (d.alpha != 1) text += ", alpha " + std::to_string(d.alpha);
  if (d.beta != 0) text += ", beta " + std::to_string(d.beta);
  if (d.bias) text += ", bias";
  if (d.epilogue == GemmEpilogue::kRelu) text += ", relu";
  if (d.epilogue == GemmEpilogue::kGelu) text += ", gelu";
  return text;
}

Status validateGemm(const GemmDesc& d) {
  auto fail = [&](const std::string& what) {
    return invalidArgument("gemm (" + gemmText(d) + "): " + what);
  };
  if (d.batch < 1 || d.m < 1 || d.n < 1 || d.k < 1)
    return fail("batch, m, n and k must be at least 1");
  if (!typesSupported(d))
    return fail("no library computes " + std::string(gemmTypeName(d.a.type)) + " x " +
                std::string(gemmTypeName(d.b.type)) + " -> " +
                std::string(gemmTypeName(d.d_type)) + " with " +
                std::string(gemmComputeName(d.compute)) + " arithmetic");
  for (Status s :
       {checkOperand("A", d.a, storedA(d)), checkOperand("B", d.b, storedB(d))})
    if (!s.isOk()) return fail(s.message());
  if (d.d_ld < d.n)
    return fail("D's leading dimension " + intText(d.d_ld) +
                " is below n = " + intText(d.n));
  // Batch items of D must not overlap: the library writes them in parallel.
  if (d.batch > 1 && d.d_batch_stride < extent({d.m, d.n}, d.d_ld))
    return fail("D's batch stride " + intText(d.d_batch_stride) +
                " makes batch items overlap (one spans " +
                intText(extent({d.m, d.n}, d.d_ld)) + " elements)");
  if (d.compute == GemmCompute::kS32) {
    if (!integral32(d.alpha) || !integral32(d.beta))
      return fail("an integer product needs integral alpha and beta");
  } else if (!std::isfinite(d.alpha) || !std::isfinite(d.beta)) {
    return fail("alpha and beta must be finite");
  }
  if ((d.bias || d.epilogue != GemmEpilogue::kNone) && !isFloatResult(d.d_type))
    return fail("bias and activation are fused only for f16, bf16 and f32 results");
  return Status::ok();
}

int64_t gemmElementsA(const GemmDesc& d) {
  return elements(storedA(d), d.a.ld, d.batch, d.a.batch_stride);
}
int64_t gemmElementsB(const GemmDesc& d) {
  return elements(storedB(d), d.b.ld, d.batch, d.b.batch_stride);
}
int64_t gemmElementsD(const GemmDesc& d) {
  return elements({d.m, d.n}, d.d_ld, d.batch, d.d_batch_stride);
}

}  // namespace jft::runtime
