"""Runs the committed conv kernels (tests/codegen/conv_ttir/EmitConv_*.ttir,
all but the benchmark-sized one) on the CPU through the TTIR interpreter of
run_matmul_ttir.py, on random inputs, and compares every output with the
convolution computed here by the StableHLO definition (then the epilogue's
ops, each rounded to its result type).

    python3 tests/codegen/run_conv_ttir.py [DIR]

Inputs are multiples of 1/4 in [-2, 2]: exact in bf16, f16 and f32, so the
products and sums here are exact in f32 and the comparison is exact up to
the roundings the program asks for. One line per kernel (PASS/FAIL); exit
status 1 when any failed. Every program of the launch grid runs; loads or
stores outside a buffer, or an element stored by two programs, fail."""

import itertools
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_matmul_ttir import Kernel, rand, round_bf16, round_f16, round_f32, strides  # noqa: E402


def layout_dims(layout):
  """Letters to (batch-or-in-feature dim, feature-or-out-feature dim, spatial
  dims in order): lhs "b"/"f", rhs "i"/"o", out "b"/"f", digits spatial."""
  spatial = sorted((c, d) for d, c in enumerate(layout) if c.isdigit())
  first = next(d for d, c in enumerate(layout) if c in "bi")
  second = next(d for d, c in enumerate(layout) if c in "fo")
  return first, second, [d for _, d in spatial]


def conv(lhs, ls, rhs, rs, layouts, st=None, pad=None, ld=None, rd=None, rev=None):
  """The convolution by its definition, one group: out[b, o..., f] = sum over
  window positions w and input features c of lhs at the input coordinate
  p = o * stride + w' * rhs_dilation - pad_lo (w' = W - 1 - w reversed), when p
  is a real element (p >= 0, p % lhs_dilation == 0, p / lhs_dilation < size),
  times rhs[w, c, f]. Returns (out shape, row-major values)."""
  lb, lf, lsp = layout_dims(layouts[0])
  ri, ro, rsp = layout_dims(layouts[1])
  ob, of, osp = layout_dims(layouts[2])
  s = len(lsp)
  st = st or [1] * s
  pad = pad or [0] * (2 * s)
  ld = ld or [1] * s
  rd = rd or [1] * s
  rev = rev or [False] * s
  win = [rs[d] for d in rsp]
  out_sp = []
  for i in range(s):
    dilated = (ls[lsp[i]] - 1) * ld[i] + 1 + pad[2 * i] + pad[2 * i + 1]
    out_sp.append((dilated - ((win[i] - 1) * rd[i] + 1)) // st[i] + 1)
  out_shape = [0] * len(ls)
  out_shape[ob], out_shape[of] = ls[lb], rs[ro]
  for i in range(s):
    out_shape[osp[i]] = out_sp[i]
  lst, rst = strides(ls), strides(rs)
  out = [0.0] * (math.prod(out_shape))
  ost = strides(out_shape)
  for b in range(ls[lb]):
    for o in itertools.product(*[range(x) for x in out_sp]):
      for f in range(rs[ro]):
        total = 0.0
        for w in itertools.product(*[range(x) for x in win]):
          lo = b * lst[lb]
          ok = True
          for i in range(s):
            wr = win[i] - 1 - w[i] if rev[i] else w[i]
            p = o[i] * st[i] + wr * rd[i] - pad[2 * i]
            if p < 0 or p % ld[i] or p // ld[i] >= ls[lsp[i]]:
              ok = False
              break
            lo += (p // ld[i]) * lst[lsp[i]]
          if not ok:
            continue
          ro_ = f * rst[ro] + sum(w[i] * rst[rsp[i]] for i in range(s))
          for c in range(ls[lf]):
            total += lhs[lo + c * lst[lf]] * rhs[ro_ + c * rst[ri]]
        at = b * ost[ob] + f * ost[of] + sum(o[i] * ost[osp[i]] for i in range(s))
        out[at] = total
  return out_shape, out


def case_nhwc_same_bf16_relu(rng):
  x, w = rand(2 * 6 * 5 * 16, rng), rand(3 * 3 * 16 * 8, rng)
  _, d = conv(x, [2, 6, 5, 16], w, [3, 3, 16, 8], ("b01f", "01io", "b01f"),
              pad=[1, 1, 1, 1])
  return {"%in0": x, "%in1": w}, {"%out0": [max(round_bf16(v), 0.0) for v in d]}


def case_nchw_strided_dilated(rng):
  x, w = rand(2 * 3 * 9 * 8, rng), rand(4 * 3 * 3 * 3, rng)
  _, d = conv(x, [2, 3, 9, 8], w, [4, 3, 3, 3], ("bf01", "oi01", "bf01"), st=[2, 1],
              pad=[1, 0, 0, 2], rd=[1, 2])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f32(v) for v in d]}


def case_lhs_dilation_reversal(rng):
  x, w = rand(1 * 4 * 3 * 8, rng), rand(3 * 2 * 8 * 5, rng)
  _, d = conv(x, [1, 4, 3, 8], w, [3, 2, 8, 5], ("b01f", "01io", "b01f"),
              pad=[2, 2, 1, 1], ld=[2, 2], rev=[True, True])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f32(v) for v in d]}


def case_weight_gradient(rng):
  x, g = rand(2 * 6 * 5 * 3, rng), rand(2 * 6 * 5 * 4, rng)
  _, d = conv(x, [2, 6, 5, 3], g, [2, 6, 5, 4], ("f01b", "i01o", "01bf"),
              pad=[1, 1, 1, 1])
  return {"%in0": x, "%in1": g}, {"%out0": [round_f32(v) for v in d]}


def case_conv3d(rng):
  x, w = rand(1 * 5 * 4 * 6 * 16, rng), rand(2 * 2 * 3 * 16 * 8, rng)
  _, d = conv(x, [1, 5, 4, 6, 16], w, [2, 2, 3, 16, 8], ("b012f", "012io", "b012f"),
              st=[2, 1, 1])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f16(v) for v in d]}


def case_multi_tile(rng):
  x, w = rand(2 * 9 * 11 * 20, rng), rand(3 * 3 * 20 * 40, rng)
  _, d = conv(x, [2, 9, 11, 20], w, [3, 3, 20, 40], ("b01f", "01io", "b01f"),
              pad=[1, 1, 1, 1])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f16(v) for v in d]}


CASES = {
    "EmitConv_NhwcSameBf16Relu": case_nhwc_same_bf16_relu,
    "EmitConv_NchwOihwStridedDilatedF32": case_nchw_strided_dilated,
    "EmitConv_LhsDilationWithReversalF16": case_lhs_dilation_reversal,
    "EmitConv_WeightGradientFormIeee": case_weight_gradient,
    "EmitConv_Conv3dNoPadding": case_conv3d,
    "EmitConv_MultiTileUnalignedF16": case_multi_tile,
}


def main():
  here = os.path.dirname(os.path.abspath(__file__))
  directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "conv_ttir")
  failed = 0
  for name, make in CASES.items():
    rng = random.Random(name)
    try:
      text = open(os.path.join(directory, name + ".ttir")).read()
      grid = json.load(open(os.path.join(directory, name + ".json")))["grid"]
      inputs, want = make(rng)
      buffers = dict(inputs)
      for out, values in want.items():
        buffers[out] = [math.nan] * len(values)
      Kernel(text).run(buffers, grid, {})
      for out, values in want.items():
        got = buffers[out]
        bad = [i for i, (g, w) in enumerate(zip(got, values)) if not g == w]
        if bad:
          i = bad[0]
          raise AssertionError(f"{out}: {len(bad)} of {len(values)} elements differ; "
                               f"[{i}] = {got[i]}, want {values[i]}")
      print(f"PASS {name} (grid {grid[0]})", flush=True)
    except Exception as e:  # one line per kernel; the script goes on
      failed += 1
      print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
  print(f"{len(CASES) - failed} passed, {failed} failed")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
