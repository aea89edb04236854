#include "codegen/native/prelude.h"

namespace jft::codegen::native {
namespace {

// Integer division and remainder follow XLA's elemental IR emitter
// (xla/service/elemental_ir_emitter.cc, EmitIntegerDivide/EmitIntegerRemainder),
// which StableHLO leaves to the implementation: x / 0 = -1 (all ones for
// unsigned types), INT_MIN / -1 = INT_MIN, x % 0 = x, INT_MIN % -1 = 0.
// Shifts follow EmitIntegerBinaryOp: a count >= the bit width (read as
// unsigned, so negative counts too) gives 0 for shift_left and
// shift_right_logical and the sign fill for shift_right_arithmetic.
// f32 -> f16/bf16 rounds to nearest even; a NaN keeps its sign and the top
// bits of its payload (so a f16/bf16 NaN copied through a float register
// keeps its bits), made quiet only where those bits would all be zero.
// Wider values reach f16/bf16 through f32 rounded to odd (jft_*_odd), which
// makes the second rounding exact: one rounding overall, as XLA converts.
constexpr std::string_view kPrelude = R"JFT(
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define JFT_FN static __device__ __forceinline__
#else
#include <math.h>
#define JFT_FN static inline
#endif
typedef signed char jft_i8;
typedef short jft_i16;
typedef int jft_i32;
typedef long long jft_i64;
typedef unsigned char jft_u8;
typedef unsigned short jft_u16;
typedef unsigned int jft_u32;
typedef unsigned long long jft_u64;

// Complex values: the layout of the interleaved (re, im) pairs in memory.
struct jft_c64 { float re, im; };
struct jft_c128 { double re, im; };
JFT_FN jft_c64 jft_complex(float re, float im) { jft_c64 c; c.re = re; c.im = im; return c; }
JFT_FN jft_c128 jft_complex(double re, double im) { jft_c128 c; c.re = re; c.im = im; return c; }

JFT_FN jft_u32 jft_f32_bits(float x) { union { float f; jft_u32 u; } v; v.f = x; return v.u; }
JFT_FN float jft_f32_from_bits(jft_u32 u) { union { float f; jft_u32 u; } v; v.u = u; return v.f; }
JFT_FN jft_u64 jft_f64_bits(double x) { union { double f; jft_u64 u; } v; v.f = x; return v.u; }
JFT_FN double jft_f64_from_bits(jft_u64 u) { union { double f; jft_u64 u; } v; v.u = u; return v.f; }

JFT_FN jft_u16 jft_f32_to_bf16(float x) {
  jft_u32 u = jft_f32_bits(x);
  if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: its top payload bits, kept a NaN
    return (jft_u16)((u >> 16) | (((u >> 16) & 0x7fu) ? 0u : 0x40u));
  u += 0x7fffu + ((u >> 16) & 1u);
  return (jft_u16)(u >> 16);
}
JFT_FN float jft_bf16_to_f32(jft_u16 b) { return jft_f32_from_bits((jft_u32)b << 16); }
JFT_FN float jft_round_bf16(float x) { return jft_bf16_to_f32(jft_f32_to_bf16(x)); }

JFT_FN jft_u16 jft_f32_to_f16(float x) {
  const jft_u32 u = jft_f32_bits(x);
  const jft_u32 sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u)  // NaN: its top payload bits, kept a NaN
    return (jft_u16)(sign | 0x7c00u | (((a >> 13) & 0x3ffu) ? (a >> 13) & 0x3ffu : 0x200u));
  if (a >= 0x477ff000u) return (jft_u16)(sign | 0x7c00u);  // >= 65520: inf
  if (a < 0x38800000u) {  // below 2^-14: a subnormal of 2^-24 units, or zero
    if (a <= 0x33000000u) return (jft_u16)sign;  // <= 2^-25 ties to even zero
    const jft_u32 m = (a & 0x7fffffu) | 0x800000u, shift = 126u - (a >> 23);
    jft_u32 r = m >> shift;
    const jft_u32 rest = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (r & 1u))) ++r;
    return (jft_u16)(sign | r);
  }
  jft_u32 r = a - 0x38000000u;
  r = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;
  return (jft_u16)(sign | r);
}
JFT_FN float jft_f16_to_f32(jft_u16 h) {
  const jft_u32 sign = (jft_u32)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return jft_f32_from_bits(sign | 0x7f800000u | (m << 13));
  if (e == 0u) {
    const float v = (float)m * 5.9604644775390625e-8f;
    return sign ? -v : v;
  }
  return jft_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}
JFT_FN float jft_round_f16(float x) { return jft_f16_to_f32(jft_f32_to_f16(x)); }

// f64 -> f32 rounded to odd (truncated, sticky bit in the last place).
JFT_FN float jft_f64_to_f32_odd(double d) {
  const float f = (float)d;
  if (f != f || (double)f == d) return f;
  jft_u32 u = jft_f32_bits(f);
  if ((u & 0x7fffffffu) == 0x7f800000u) return jft_f32_from_bits((u & 0x80000000u) | 0x7f7fffffu);
  if (d > 0 ? (double)f > d : (double)f < d) u -= 1u;
  return jft_f32_from_bits(u | 1u);
}
// |integer| -> f32 rounded to odd.
JFT_FN float jft_u64_to_f32_odd(jft_u64 u) {
  int shift = 0;
  jft_u64 sticky = 0;
  while (u >= (1ull << 24)) { sticky |= u & 1u; u >>= 1; ++shift; }
  return ldexpf((float)(u | sticky), shift);
}
JFT_FN float jft_i64_to_f32_odd(jft_i64 x) {
  return x < 0 ? -jft_u64_to_f32_odd((jft_u64)0 - (jft_u64)x) : jft_u64_to_f32_odd((jft_u64)x);
}

// maximum/minimum: NaN propagates, -0 orders below +0.
JFT_FN float jft_max(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return (jft_f32_bits(a) >> 31) ? b : a;
  return a > b ? a : b;
}
JFT_FN float jft_min(float a, float b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return (jft_f32_bits(a) >> 31) ? a : b;
  return a < b ? a : b;
}
JFT_FN double jft_max(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return (jft_f64_bits(a) >> 63) ? b : a;
  return a > b ? a : b;
}
JFT_FN double jft_min(double a, double b) {
  if (a != a) return a;
  if (b != b) return b;
  if (a == b) return (jft_f64_bits(a) >> 63) ? a : b;
  return a < b ? a : b;
}
JFT_FN bool jft_isfinite(float x) { return (jft_f32_bits(x) & 0x7f800000u) != 0x7f800000u; }
JFT_FN bool jft_isfinite(double x) {
  return (jft_f64_bits(x) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}
JFT_FN float jft_sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }
JFT_FN double jft_sign(double x) { return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x); }
JFT_FN float jft_logistic(float x) { return 1.0f / (1.0f + expf(-x)); }
JFT_FN double jft_logistic(double x) { return 1.0 / (1.0 + exp(-x)); }
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
JFT_FN float jft_rsqrt(float x) { return rsqrtf(x); }
JFT_FN double jft_rsqrt(double x) { return rsqrt(x); }
JFT_FN int jft_popc32(jft_u32 x) { return __popc(x); }
JFT_FN int jft_popc64(jft_u64 x) { return __popcll(x); }
JFT_FN int jft_clz32(jft_u32 x) { return __clz((int)x); }
JFT_FN int jft_clz64(jft_u64 x) { return __clzll((long long)x); }
#else
JFT_FN float jft_rsqrt(float x) { return 1.0f / sqrtf(x); }
JFT_FN double jft_rsqrt(double x) { return 1.0 / sqrt(x); }
JFT_FN int jft_popc32(jft_u32 x) { return __builtin_popcount(x); }
JFT_FN int jft_popc64(jft_u64 x) { return __builtin_popcountll(x); }
JFT_FN int jft_clz32(jft_u32 x) { return x ? __builtin_clz(x) : 32; }
JFT_FN int jft_clz64(jft_u64 x) { return x ? __builtin_clzll(x) : 64; }
#endif

// Atomics (the scatter family): compare-and-swap of 32/64-bit words, the
// word read before a swap loop, and add where the hardware has it. The host
// versions let the tests run the same source on threads.
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
JFT_FN jft_u32 jft_cas(jft_u32* p, jft_u32 expected, jft_u32 desired) {
  return atomicCAS((unsigned int*)p, expected, desired);
}
JFT_FN jft_u64 jft_cas(jft_u64* p, jft_u64 expected, jft_u64 desired) {
  return atomicCAS((unsigned long long*)p, expected, desired);
}
JFT_FN jft_u32 jft_atomic_load(jft_u32* p) { return *(volatile jft_u32*)p; }
JFT_FN jft_u64 jft_atomic_load(jft_u64* p) { return *(volatile jft_u64*)p; }
JFT_FN void jft_atomic_add(float* p, float v) { atomicAdd(p, v); }
JFT_FN void jft_atomic_add(double* p, double v) { atomicAdd(p, v); }
JFT_FN void jft_atomic_add(jft_u32* p, jft_u32 v) { atomicAdd((unsigned int*)p, v); }
JFT_FN void jft_atomic_add(jft_u64* p, jft_u64 v) { atomicAdd((unsigned long long*)p, v); }
#else
JFT_FN jft_u32 jft_cas(jft_u32* p, jft_u32 expected, jft_u32 desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
JFT_FN jft_u64 jft_cas(jft_u64* p, jft_u64 expected, jft_u64 desired) {
  __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  return expected;
}
JFT_FN jft_u32 jft_atomic_load(jft_u32* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
JFT_FN jft_u64 jft_atomic_load(jft_u64* p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
JFT_FN void jft_atomic_add(float* p, float v) {
  jft_u32* w = (jft_u32*)p;
  jft_u32 old = jft_atomic_load(w), seen;
  do { seen = old; old = jft_cas(w, seen, jft_f32_bits(jft_f32_from_bits(seen) + v)); } while (old != seen);
}
JFT_FN void jft_atomic_add(double* p, double v) {
  jft_u64* w = (jft_u64*)p;
  jft_u64 old = jft_atomic_load(w), seen;
  do { seen = old; old = jft_cas(w, seen, jft_f64_bits(jft_f64_from_bits(seen) + v)); } while (old != seen);
}
JFT_FN void jft_atomic_add(jft_u32* p, jft_u32 v) { __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
JFT_FN void jft_atomic_add(jft_u64* p, jft_u64 v) { __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
#endif

// Integer division and remainder as XLA defines them: x / 0 = -1 (all ones),
// INT_MIN / -1 = INT_MIN, x % 0 = x, INT_MIN % -1 = 0; T any integer type.
template <class T> JFT_FN T jft_div(T a, T b) {
  if (b == (T)0) return (T)~(T)0;
  if ((T)-1 < (T)0 && b == (T)-1) return (T)((jft_u64)0 - (jft_u64)a);
  return (T)(a / b);
}
template <class T> JFT_FN T jft_rem(T a, T b) {
  if (b == (T)0) return a;
  if ((T)-1 < (T)0 && b == (T)-1) return (T)0;
  return (T)(a % b);
}
// Shifts of a BITS-wide integer T whose unsigned twin is U: a count >= BITS
// (negative ones too) gives 0, or the sign fill for the arithmetic shift.
template <class T, class U, int BITS> JFT_FN T jft_shl(T a, T b) {
  return (jft_u64)(U)b >= (jft_u64)BITS ? (T)0 : (T)((jft_u64)(U)a << (U)b);
}
template <class T, class U, int BITS> JFT_FN T jft_shr_logical(T a, T b) {
  return (jft_u64)(U)b >= (jft_u64)BITS ? (T)0 : (T)((U)a >> (U)b);
}
// The arithmetic shift takes S, the signed twin of the operands' type.
template <class S, class U, int BITS> JFT_FN S jft_shr_arithmetic(S a, S b) {
  const int count = (jft_u64)(U)b >= (jft_u64)BITS ? BITS - 1 : (int)(U)b;
  return (S)((jft_i64)a >> count);
}
// x^y by squaring, wrapping; a negative exponent gives the integer 1 / x^-y:
// 1 for x = 1, +-1 for x = -1, 0 otherwise.
template <class T> JFT_FN T jft_ipow(T x, T y) {
  if ((T)-1 < (T)0 && y < (T)0) {
    if (x == (T)1) return (T)1;
    if (x == (T)-1) return (y & (T)1) ? x : (T)1;
    return (T)0;
  }
  jft_u64 acc = 1, base = (jft_u64)x, e = (jft_u64)y;
  while (e) {
    if (e & 1u) acc *= base;
    base *= base;
    e >>= 1;
  }
  return (T)acc;
}
)JFT";

}  // namespace

std::string_view kernelPrelude() {
  return kPrelude;
}

}  // namespace jft::codegen::native
