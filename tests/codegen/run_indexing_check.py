"""Runs the kernels codegen_indexing_test dumps (JFT_TTIR_DUMP_DIR=DIR; each
<suite>_<test>.ttir with its launch in <suite>_<test>.json, or the stages
<suite>_<test>__s<k>.ttir of a several-kernel group) with real Triton on a
GPU and compares them with numpy: gathers (embedding lookup with jnp's
negative wrap and StableHLO's clamp, take along a minor axis, batched),
scans (cumsum, reverse cumprod along a major dim, a looped cummax, chlo.scan
with its final carry), scatters (add dropping out-of-range rows, an
embedding gradient, set, f32 max, i32 min; each a copy kernel then an
update kernel) and sorts (NaN and -0.0, top-k's stable indices, a major dim, long rows
merged through scratch: 1024 x 8192, ragged 3 x 20000 with ties).

    python3 tests/codegen/run_indexing_check.py DIR

One "NUMERIC name maxerr PASS|FAIL" line per check.
"""
import glob, json, os, sys
import numpy as np
import torch
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget

d = sys.argv[1]
# A group of several kernels is dumped as NAME__s0.ttir, NAME__s1.ttir, ...
# (launched in that order on the same buffers plus the group's scratch).
K = {}
for f in sorted(glob.glob(d + "/Emit*.ttir")):
    n = os.path.basename(f)[:-5]
    name, _, stage = n.partition("__s")
    launch = json.load(open(f[:-5] + ".json"))
    try:
        k = tcompile(f, target=GPUTarget("cuda", 90, 32),
                     options={"num_warps": launch["num_warps"]})
        K.setdefault(name, []).append((int(stage or 0), k, launch))
    except Exception as e:
        print("FAIL compile", n, str(e)[-400:])
for v in K.values():
    v.sort(key=lambda s: s[0])
print("compiled", sum(len(v) for v in K.values()))
rng = np.random.default_rng(0)


def run(name, ins, outs):
    if name not in K:
        print("MISSING", name)
        return [np.zeros(s, dtype=np.float32) for s, _ in outs]
    ti = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in ins]
    to = [torch.zeros(s, dtype=t, device="cuda") for s, t in outs]
    # Scratch starts as garbage, as in the runtime's arena.
    scratch = [torch.full((max(1, b),), 0x7f, dtype=torch.uint8, device="cuda")
               for b in K[name][0][2].get("scratch", [])]
    for _, k, launch in K[name]:
        k[tuple(launch["grid"])](*ti, *to, *scratch)
    torch.cuda.synchronize()
    return [o.float().cpu().numpy() if o.dtype == torch.bfloat16 else o.cpu().numpy()
            for o in to]


def check(name, got, exp, tol=1e-5):
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    same_nan = np.array_equal(np.isnan(got), np.isnan(exp))
    g, e = np.nan_to_num(got), np.nan_to_num(exp)
    err = float(np.max(np.abs(g - e))) if g.size else 0.0
    scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
    print("NUMERIC", name, err, "PASS" if same_nan and err <= tol * scale else "FAIL")


f32, i32 = torch.float32, torch.int32
# Gathers.
t = rng.standard_normal((100, 16)).astype(np.float32)
i = rng.integers(-120, 130, 32).astype(np.int32)
ref = t[np.clip(np.where(i < 0, i + 100, i), 0, 99)]
check("gather_embedding",
      run("EmitGather_EmbeddingLookupClampsRowsAndFusesTheIndexArithmetic", [t, i],
          [((32, 16), f32)])[0], ref, 0)
x = rng.standard_normal((8, 50)).astype(np.float32)
i = np.array([0, 49, 60, -3, 7, 2**40], dtype=np.int64)
check("gather_take_i64",
      run("EmitGather_TakeAlongMinorAxisWithI64IndicesClampsBeforeTruncating", [x, i],
          [((8, 6), f32)])[0], x[:, np.clip(i, 0, 49)], 0)
x = rng.standard_normal((4, 10, 3)).astype(np.float32)
i = rng.integers(-2, 12, (4, 5, 1)).astype(np.int32)
ref = np.stack([x[b, np.clip(i[b, :, 0], 0, 9), :] for b in range(4)])
check("gather_batched", run("EmitGather_BatchingDimsFollowTheBatchIndex", [x, i],
                            [((4, 5, 3), f32)])[0], ref, 0)
# Scans.
x = rng.standard_normal((8, 100)).astype(np.float32)
check("cumsum", run("EmitScan_CumsumAlongTheLastDimIsOneTtScanPerTile", [x],
                    [((8, 100), f32)])[0], np.cumsum(x.astype(np.float64), 1), 1e-5)
x = (1 + 0.01 * rng.standard_normal((50, 3))).astype(np.float32)
ref = np.flip(np.cumprod(np.flip(x.astype(np.float64), 0), 0), 0)
check("reverse_cumprod", run("EmitScan_ReverseScanAlongAMajorDimReadsRowsBackToFront",
                             [x], [((50, 3), f32)])[0], ref, 1e-5)
x = rng.standard_normal((4, 5000)).astype(np.float32)
check("looped_cummax", run("EmitScan_LongRowsLoopCarryingTheRunningTotal", [x],
                           [((4, 5000), f32)])[0], np.maximum.accumulate(x, 1), 0)
x = rng.standard_normal((8, 100)).astype(np.float32)
c = rng.standard_normal(8).astype(np.float32)
out, carry = run("EmitScan_ChloScanCompositeStoresTheScanAndTheFinalCarry", [x, c],
                 [((8, 100), f32), ((8,), f32)])
ref = c[:, None].astype(np.float64) + np.cumsum(x.astype(np.float64), 1)
check("chlo_scan", out, ref, 1e-5)
check("chlo_scan_carry", carry, ref[:, -1], 1e-5)
# Scatters.
t = rng.standard_normal((100, 16)).astype(np.float32)
i = rng.integers(-5, 105, (32, 1)).astype(np.int32)
u = rng.standard_normal((32, 16)).astype(np.float32)
ref = t.astype(np.float64).copy()
for j in range(32):
    if 0 <= i[j, 0] <= 99:
        ref[i[j, 0]] += u[j]
check("scatter_add", run("EmitScatter_AddCopiesThenWaitsThenAddsAtomicallyInsideTheTable",
                         [t, i, u], [((100, 16), f32)])[0], ref, 1e-5)
i = rng.integers(0, 50000, (65536, 1)).astype(np.int32)
g = rng.standard_normal((65536, 512)).astype(np.float32)
ref = np.zeros((50000, 512), dtype=np.float64)
np.add.at(ref, i[:, 0], g.astype(np.float64))
check("scatter_embedding_grad",
      run("EmitScatter_EmbeddingGradientIsGridParallelWithTheZerosFused", [i, g],
          [((50000, 512), f32)])[0], ref, 1e-5)
t = rng.standard_normal((10, 4)).astype(np.float32)
i = np.array([[7], [2], [11]], dtype=np.int32)
u = rng.standard_normal((3, 4)).astype(np.float32)
ref = t.copy(); ref[7] = u[0]; ref[2] = u[1]
tb = torch.from_numpy(t).to(torch.bfloat16)
ub = torch.from_numpy(u).to(torch.bfloat16)
got = run("EmitScatter_SetIsAMaskedStore", [tb.view(torch.int16).numpy(), i,
                                            ub.view(torch.int16).numpy()],
          [((10, 4), torch.bfloat16)])[0]
refb = torch.from_numpy(ref).to(torch.bfloat16).float().numpy()
check("scatter_set_bf16", got, refb, 0)
i = np.array([[3], [3], [9]], dtype=np.int32)
u = rng.standard_normal((3, 4)).astype(np.float32)
ref = t.copy(); np.maximum.at(ref, i[:, 0], u)
check("scatter_max_f32", run("EmitScatter_FloatMaxGoesThroughTheBits", [t, i, u],
                             [((10, 4), f32)])[0], ref, 0)
ti = rng.integers(-50, 50, (10, 4)).astype(np.int32)
ui = rng.integers(-50, 50, (3, 4)).astype(np.int32)
ref = ti.copy(); np.minimum.at(ref, i[:, 0], ui)
check("scatter_min_i32", run("EmitScatter_IntMinIsDirect", [ti, i, ui],
                             [((10, 4), i32)])[0], ref, 0)
# Sorts.
x = rng.standard_normal((8, 100)).astype(np.float32)
x[0, 3] = np.nan; x[1, 5] = -0.0; x[1, 6] = 0.0; x[2, :50] = x[2, 50:]
check("sort", run("EmitSort_RowSortIsABitonicNetworkOfSplitsAndJoins", [x],
                  [((8, 100), f32)])[0], np.sort(x, 1), 0)
x = np.round(rng.standard_normal((8, 100)), 1).astype(np.float32)  # ties
v, ix = run("EmitSort_TopKSortsValuesWithIndicesFollowing", [x],
            [((8, 100), f32), ((8, 100), i32)])
order = np.argsort(-x, axis=1, kind="stable")
check("topk_values", v, np.take_along_axis(x, order, 1), 0)
check("topk_indices_stable", ix, order, 0)
x = rng.standard_normal((16, 3)).astype(np.float32)
check("sort_major", run("EmitSort_MajorDimSortStridesByTheInnerExtent", [x],
                        [((16, 3), f32)])[0], np.sort(x, 0), 0)
# Long rows: tiles of 4096 sorted in registers, merged through scratch.
x = rng.standard_normal((1024, 8192)).astype(np.float32)
x[0, 3] = np.nan; x[1, 5] = -0.0; x[1, 6] = 0.0; x[2, :4096] = x[2, 4096:]
check("sort_long", run("EmitSort_LongRowsMergeSortedTilesThroughScratch", [x],
                       [((1024, 8192), f32)])[0], np.sort(x, 1), 0)
x = np.round(rng.standard_normal((3, 20000)), 1).astype(np.float32)  # ties
v, ix = run("EmitSort_RaggedLongRowsSkipPairsPastTheRow", [x],
            [((3, 20000), f32), ((3, 20000), i32)])
order = np.argsort(-x, axis=1, kind="stable")
check("topk_long_values", v, np.take_along_axis(x, order, 1), 0)
check("topk_long_indices_stable", ix, order, 0)
