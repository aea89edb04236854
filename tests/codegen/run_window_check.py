"""Runs the kernels the EmitWindow tests of codegen_indexing_test dump
(JFT_TTIR_DUMP_DIR=DIR; <suite>_<test>.ttir with its launch in .json) with
real Triton on a GPU and compares them with numpy loops written from the
StableHLO spec: max pool 2x2/2, average pool 3x3 SAME, base and window
dilations, a looped 16x16 window, a (max, argmax) two-operand window, and
select_and_scatter (first maximum of each window gets the source) with
disjoint and with overlapping padded windows.

    JFT_TTIR_DUMP_DIR=DIR build/tests/codegen/codegen_indexing_test --gtest_filter='EmitWindow*'
    python3 tests/codegen/run_window_check.py DIR

One "NUMERIC name maxerr PASS|FAIL" line per check.
"""
import glob, json, os, sys
import numpy as np
import torch
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget

d = sys.argv[1]
K, L = {}, {}
for f in sorted(glob.glob(d + "/EmitWindow_*.ttir")):
    n = os.path.basename(f)[:-5]
    launch = json.load(open(f[:-5] + ".json"))
    try:
        K[n] = tcompile(f, target=GPUTarget("cuda", 90, 32),
                        options={"num_warps": launch["num_warps"]})
        L[n] = launch["grid"]
    except Exception as e:
        print("FAIL compile", n, str(e)[-400:])
print("compiled", len(K))
rng = np.random.default_rng(0)
failures = 0


def run(name, ins, outs):
    name = "EmitWindow_" + name
    if name not in K:
        print("MISSING", name)
        return [np.zeros(s, dtype=np.float32) for s, _ in outs]
    ti = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in ins]
    to = [torch.zeros(s, dtype=t, device="cuda") for s, t in outs]
    K[name][tuple(L[name])](*ti, *to)
    torch.cuda.synchronize()
    return [o.cpu().numpy() for o in to]


def check(name, got, exp, tol=1e-5):
    global failures
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    same_nan = np.array_equal(np.isnan(got), np.isnan(exp))
    g, e = np.nan_to_num(got), np.nan_to_num(exp)
    err = float(np.max(np.abs(g - e))) if g.size else 0.0
    scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
    ok = same_nan and got.shape == exp.shape and err <= tol * scale
    failures += not ok
    print("NUMERIC", name, err, "PASS" if ok else "FAIL")


def reduce_window(x, init, fn, window, strides, pad, base=None, wdil=None):
    """The spec's definition: pad (and base-dilate) with init, then reduce
    every window, init first."""
    rank = x.ndim
    base = base or [1] * rank
    wdil = wdil or [1] * rank
    dil_shape = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    padded_shape = [lo + n + hi for n, (lo, hi) in zip(dil_shape, pad)]
    p = np.full(padded_shape, init, dtype=np.float64)
    p[tuple(slice(lo, lo + n, b) for n, (lo, _), b in zip(dil_shape, pad, base))] = x
    out_shape = [(n - ((w - 1) * dl + 1)) // s + 1
                 for n, w, s, dl in zip(padded_shape, window, strides, wdil)]
    out = np.empty(out_shape)
    for o in np.ndindex(*out_shape):
        acc = init
        for e in np.ndindex(*window):
            acc = fn(acc, p[tuple(oi * s + ei * dl
                                  for oi, s, ei, dl in zip(o, strides, e, wdil))])
        out[o] = acc
    return out


f32, i32 = torch.float32, torch.int32
x = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
x[0, 0, 0, 0] = np.nan  # max propagates NaN
check("maxpool_2x2_s2",
      run("MaxPool2x2Stride2ReadsFourElementsWithoutMasks", [x], [((2, 4, 4, 3), f32)])[0],
      reduce_window(x, -np.inf, lambda a, b: np.nan if np.isnan(a) or np.isnan(b)
                    else max(a, b), [1, 2, 2, 1], [1, 2, 2, 1], [(0, 0)] * 4), 0)
x = rng.standard_normal((6, 10)).astype(np.float32)
check("avgpool_3x3_same",
      run("AvgPoolSamePaddingMasksThePaddingAndFusesTheDivide", [x], [((6, 10), f32)])[0],
      reduce_window(x, 0.0, lambda a, b: a + b, [3, 3], [1, 1], [(1, 1), (1, 1)]) / 9)
x = rng.standard_normal(5).astype(np.float32)
check("dilations",
      run("BaseAndWindowDilationsSkipTheHoles", [x], [((7,), f32)])[0],
      reduce_window(x, 0.0, lambda a, b: a + b, [3], [1], [(1, 1)], [2], [2]))
x = rng.standard_normal((4, 16, 16)).astype(np.float32)
check("looped_16x16",
      run("LargeWindowLoopsInsteadOfUnrolling", [x], [((4, 1, 1), f32)])[0],
      x.astype(np.float64).sum(axis=(1, 2), keepdims=True), 1e-5)
x = rng.integers(-3, 3, (3, 16)).astype(np.float32)  # ties: the first max wins
idx = np.tile(np.arange(16, dtype=np.int32), (3, 1))
v, i = run("TwoOperandWindowWalksOnceForBothResults", [x, idx],
           [((3, 4), f32), ((3, 4), i32)])
xr = x.reshape(3, 4, 4)
check("argmax_window_value", v, xr.max(-1), 0)
check("argmax_window_index", i, xr.argmax(-1) + 4 * np.arange(4), 0)


def select_and_scatter(op, src, window, strides, pad):
    """XLA's walk: per window, row-major over the non-padding elements, the
    candidate replaces the selection unless selected >= candidate."""
    out = np.zeros(op.shape)
    for j in np.ndindex(*src.shape):
        best = None
        for e in np.ndindex(*window):
            p = tuple(jj * s + ee - lo for jj, s, ee, (lo, _) in zip(j, strides, e, pad))
            if any(q < 0 or q >= n for q, n in zip(p, op.shape)):
                continue
            if best is None or not op[best] >= op[p]:
                best = p
        if best is not None:
            out[best] += src[j]
    return out


x = rng.integers(-2, 3, (4, 8)).astype(np.float32)  # ties: the first max
s = rng.standard_normal((2, 4)).astype(np.float32)
check("select_and_scatter_disjoint",
      run("SelectAndScatterDisjointWindowsVisitOneWindow", [x, s], [((4, 8), f32)])[0],
      select_and_scatter(x, s, [2, 2], [2, 2], [(0, 0), (0, 0)]))
x = rng.integers(-2, 3, (7, 9)).astype(np.float32)
s = rng.standard_normal((4, 5)).astype(np.float32)
check("select_and_scatter_overlapping",
      run("SelectAndScatterOverlappingPaddedWindows", [x, s], [((7, 9), f32)])[0],
      select_and_scatter(x, s, [3, 3], [2, 2], [(1, 1), (1, 1)]))
print("window checks:", "all passed" if failures == 0 else f"{failures} failed")
sys.exit(1 if failures else 0)
