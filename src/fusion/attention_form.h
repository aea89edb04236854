// Scaled dot-product attention as the TTIR attention family computes it: one
// flash-attention kernel for the chain JAX lowers plain attention to,
//
//   s = dot_general(Q, K)          batch dims, one contracting dim (d), one
//                                  free dim each side (q, k); any layout
//   x = f(s, positions)            elementwise ops, each reading the chain
//                                  once and otherwise only values computed
//                                  from iota and splat constants (convert,
//                                  scale, causal or other positional mask,
//                                  positional bias)
//   m = reduce_max(x) along k      init -inf, optionally max(-inf, m)
//   e = exp(x - broadcast(m))
//   l = reduce_sum(e) along k      init 0
//   p = e / broadcast(l)           (x, m, e, l, p f32: jax.nn.softmax)
//   p' = convert(p)                optional, to V's type
//   out = dot_general(p', V)       batch dims as s's, contracting s's k dim
//
// which the kernel evaluates block by block with an online softmax, never
// writing the [batch, Tq, Tk] scores. Matched only when nothing outside the
// chain reads s, x, m, e, l or p (a training step saves p for its backward
// pass: there the plan stays GEMM + softmax + GEMM). Values computed from
// positions may be read elsewhere only when the plan may copy them (cheap ops
// and splat constants, fusion.h); a mask read from a tensor is not matched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fusion/matmul_form.h"
#include "fusion/use_graph.h"
#include "ir/module.h"

namespace jft::fusion {

struct AttentionForm {
  size_t qk_dot = 0;  // op indices in the region
  size_t pv_dot = 0;
  // Ops the kernel computes that nothing outside the pattern reads (the pv
  // dot's result aside): its home ops.
  std::vector<size_t> own;
  // Position-only ops (iota, constants and what is computed from them) that
  // other groups read too: copied into the kernel, never stored by it.
  std::vector<size_t> copied;
  // The elementwise ops from s to x, in program order (the kernel evaluates
  // them on each score tile through the elemental emitter).
  std::vector<size_t> score_ops;
  ir::ValueId scores = 0;  // s, the qk dot's result
  ir::ValueId logits = 0;  // x, what the softmax reads
  MatmulForm qk, pv;       // qk: m = Tq, n = Tk, k = D; pv: m = Tq, n = Dv, k = Tk
  // Rows whose keys past q + causal_offset are all masked by a fill so low
  // (<= kSkippableFill) that exp gives exactly 0 there: the kernel does not
  // visit K blocks past it. Set only when every row keeps a key (offset >= 0).
  std::optional<int64_t> causal_offset;
};

// A masked score at or below this is exactly 0 after exp(x - m) for any row
// maximum m a real score reaches (|m| < 1e8 - 104), so its K block can be
// skipped without changing the softmax.
inline constexpr double kSkippableFill = -1e8;

// The largest head dim (D of Q and K, Dv of V) the kernel takes: it holds a
// [BLOCK_M, D] Q tile and a [BLOCK_M, Dv] accumulator in registers.
inline constexpr int64_t kMaxHeadDim = 256;
// Batch items (the product of the batch dims) run along grid y.
inline constexpr int64_t kMaxGridY = 65535;

// The form of the pattern ending at dot_general `pv_dot` of `region`, or
// nothing with the reason in `why` (which may be null).
std::optional<AttentionForm> attentionFormOf(const ir::Module& module,
                                             const ir::Region& region,
                                             const UseGraph& uses, size_t pv_dot,
                                             std::string* why = nullptr);

}  // namespace jft::fusion
