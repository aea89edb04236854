// One (batched) matrix product as the runtime hands it to a GEMM library
// (cuBLASLt on CUDA; hipBLASLt would read the same description). Nothing here
// knows CUDA or our IR: the compiler fills it in, a library runner executes it.
//
// For each batch item b < batch:
//   D[b] = epilogue(alpha * A[b] x B[b] + beta * D[b] + bias)
// with A logically m x k, B logically k x n, D m x n, all row-major in memory.
// An operand with `transpose` is stored as its transpose (A as k x m, B as
// n x k). `ld` is the distance in elements between consecutive stored rows;
// `batch_stride` the distance between consecutive batch items (0 reuses one
// matrix for every item, A and B only). beta != 0 reads D before writing it
// (C and D are one buffer). The bias is a vector of n elements of D's type,
// added to every row before the activation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/status.h"

namespace jft::runtime {

enum class GemmType : uint8_t { kF16, kBF16, kF32, kF64, kC64, kC128, kS8, kS32 };

// How the library may compute. kF32 is exact IEEE f32 arithmetic; kTf32
// lets f32 (and complex<f32>) inputs be rounded to TF32 inside the product,
// as XLA does for precision DEFAULT/HIGH. bf16/f16 inputs accumulate in kF32.
enum class GemmCompute : uint8_t { kF32, kTf32, kF64, kS32 };

// Activation applied after the bias. kGelu is the tanh approximation
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), the form the libraries fuse.
enum class GemmEpilogue : uint8_t { kNone, kRelu, kGelu };

struct GemmOperand {
  GemmType type = GemmType::kF32;
  bool transpose = false;
  int64_t ld = 0;            // elements between stored rows
  int64_t batch_stride = 0;  // elements between batch items; 0 broadcasts
  friend bool operator==(const GemmOperand&, const GemmOperand&) = default;
};

struct GemmDesc {
  GemmOperand a, b;
  GemmType d_type = GemmType::kF32;
  int64_t d_ld = 0;
  int64_t d_batch_stride = 0;
  GemmCompute compute = GemmCompute::kF32;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  double alpha = 1, beta = 0;  // integral for kS32
  bool bias = false;
  GemmEpilogue epilogue = GemmEpilogue::kNone;
  friend bool operator==(const GemmDesc&, const GemmDesc&) = default;
};

int64_t gemmTypeBytes(GemmType type);
std::string_view gemmTypeName(GemmType type);
std::string_view gemmComputeName(GemmCompute compute);
// "batch 4 x [33x17] * [17x9], f32 x f32 -> f32 (tf32), A^T ld 33, ..." for
// errors and logs.
std::string gemmText(const GemmDesc& desc);

// OK when the description is one a library can run: sizes >= 1, leading
// dimensions and strides that keep rows and batch items of D apart, a
// supported type combination (a = b type; f32|tf32: f32 -> f32, c64 -> c64;
// f32: bf16 -> bf16|f32, f16 -> f16|f32; f64: f64 -> f64, c128 -> c128;
// s32: s8 -> s32), bias and activation only on f16/bf16/f32 results, and
// alpha/beta integral for integer products. INVALID_ARGUMENT naming the
// first inconsistency otherwise.
Status validateGemm(const GemmDesc& desc);

// Elements each buffer must hold for the description (its furthest element
// plus one), so callers can check buffer sizes.
int64_t gemmElementsA(const GemmDesc& desc);
int64_t gemmElementsB(const GemmDesc& desc);
int64_t gemmElementsD(const GemmDesc& desc);

}  // namespace jft::runtime
