"""Runs the kernels codegen_emit_test dumps (JFT_TTIR_DUMP_DIR=DIR) with real
Triton on a GPU and compares them with numpy: flat elementwise, transpose,
row-vector broadcast, pad/concatenate/iota, clamped dynamic slice, ragged
softmax, a looped long row, a column reduction, argmax, a full reduction,
and the split reductions (partials into scratch, then their reduction: a
16384 x 4096 column sum, a 10^7-element sum, a long-column argmax), and the
conv family's implicit GEMM (the benchmark's [64,56,56,64] x [3,3,64,64] bf16
SAME conv + relu, the NCHW x OIHW strided dilated f32 one, several ragged
tiles in f16) against numpy's convolution by definition.

    python3 tests/codegen/emit_run_check.py DIR

One "NUMERIC name maxerr PASS|FAIL" line per check.
"""
import glob, os, sys
import numpy as np
import torch, triton
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget
d = sys.argv[1]
K = {}
for f in sorted(glob.glob(d + "/*.ttir")):
    n = os.path.basename(f)[:-5]
    try:
        K[n] = tcompile(f, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    except Exception as e:
        print("FAIL compile", n, [l for l in str(e).splitlines() if "error" in l.lower()][:3] or str(e)[-300:])
print("compiled", len(K))
rng = np.random.default_rng(0)
def run(name, grid, ins, outs):
    ti = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in ins]
    to = [torch.zeros(s, dtype=t, device="cuda") for s, t in outs]
    K[name][(grid, 1, 1)](*ti, *to)
    torch.cuda.synchronize()
    return [o.cpu().numpy() for o in to]
import json
def run_stages(name, ins, outs):
    # NAME__s0.ttir, NAME__s1.ttir, ... with their launches in .json beside them.
    stages = sorted(glob.glob(d + "/" + name + "__s*.ttir"))
    if not stages:
        print("MISSING", name)
        return [np.zeros(s, dtype=np.float32) for s, _ in outs]
    ti = [torch.from_numpy(np.ascontiguousarray(a)).cuda() for a in ins]
    to = [torch.zeros(s, dtype=t, device="cuda") for s, t in outs]
    launches = [json.load(open(f[:-5] + ".json")) for f in stages]
    scratch = [torch.full((max(1, b),), 0x7f, dtype=torch.uint8, device="cuda")
               for b in launches[0]["scratch"]]
    for f, launch in zip(stages, launches):
        k = tcompile(f, target=GPUTarget("cuda", 90, 32), options={"num_warps": launch["num_warps"]})
        k[tuple(launch["grid"])](*ti, *to, *scratch)
    torch.cuda.synchronize()
    return [o.cpu().numpy() for o in to]
def check(name, got, exp, tol=1e-4):
    err = float(np.max(np.abs(got.astype(np.float64) - exp.astype(np.float64)))) if got.size else 0.0
    print("NUMERIC", name, err, "PASS" if err <= tol * max(1.0, float(np.max(np.abs(exp))) if exp.size else 1.0) else "FAIL")
f32 = torch.float32
x = rng.standard_normal(1000).astype(np.float32); y = rng.standard_normal(1000).astype(np.float32)
check("flat", run("EmitLoop_FlatElementwiseSignatureGridAndMask", 1, [x, y], [((1000,), f32)])[0], np.exp(x) + y)
x = rng.standard_normal((64, 96)).astype(np.float32)
check("transpose", run("EmitLoop_TransposeUsesMakeRangeOnBothAxesWithoutDivRem", 2, [x], [((96, 64), f32)])[0], x.T)
x = rng.standard_normal((32, 128)).astype(np.float32); b = rng.standard_normal(128).astype(np.float32)
check("bias", run("EmitLoop_BroadcastOfARowVectorLoadsPerColumn", 2, [x, b], [((32, 128), f32)])[0], x + b)
a = rng.standard_normal((24, 4)).astype(np.float32); c = rng.standard_normal((24, 4)).astype(np.float32)
cat = np.concatenate([a, c]); p = np.pad(cat, ((1, 1), (0, 2))); exp = p + np.arange(6, dtype=np.float32)[None, :]
check("pad_concat_iota", run("EmitLoop_PadSliceConcatenateIotaAreMaskedAndSelected", 1, [a, c], [((50, 6), f32)])[0], exp)
x = rng.standard_normal((26, 6)).astype(np.float32)
for s in (30, 5, -3):
    got = run("EmitLoop_DynamicSliceClampsStartIndices", 1, [x, np.array(s, dtype=np.int32)], [((8, 3), f32)])[0]
    st = min(max(s, 0), 18)
    check("dynamic_slice_%d" % s, got, x[st:st + 8, 1:4])
def sm(x):
    e = np.exp(x - x.max(1, keepdims=True)); return e / e.sum(1, keepdims=True)
x = rng.standard_normal((10, 100)).astype(np.float32)
check("softmax_ragged", run("EmitReduction_RaggedRowsAreMaskedAndFilledWithInit", 1, [x], [((10, 100), f32)])[0], sm(x), 1e-5)
x = rng.standard_normal((8, 100000)).astype(np.float32)
check("long_row", run("EmitReduction_LongRowLoopsInChunks", 8, [x], [((8,), f32)])[0], (x.astype(np.float64) ** 2).sum(1), 1e-5)
x = rng.standard_normal((1000, 64)).astype(np.float32)
check("column", run("EmitReduction_ColumnReductionReadsAlongTheKeptAxis", 1, [x], [((64,), f32)])[0], x.astype(np.float64).sum(0), 1e-5)
x = rng.standard_normal((16, 256)).astype(np.float32)
check("argmax", run("EmitReduction_ArgmaxIsOneTwoOperandReduce", 2, [x], [((16,), torch.int32)])[0], np.argmax(x, 1), 0)
x = rng.standard_normal(3000).astype(np.float32)
check("full", run("EmitReduction_FullReductionToAScalar", 1, [x], [((), f32)])[0], np.array(x.astype(np.float64).sum()), 1e-5)
x = rng.standard_normal((16384, 4096)).astype(np.float32)
check("split_column_sum", run_stages("EmitReduction_LongColumnSumSplitsIntoPartialsAndTheirReduction", [x], [((4096,), f32)])[0], x.astype(np.float64).sum(0), 1e-5)
x = rng.standard_normal(10000000).astype(np.float32)
check("split_full_sum", run_stages("EmitReduction_HugeFullReductionSplitsWithARaggedLastChunk", [x], [((), f32)])[0], np.array(x.astype(np.float64).sum()), 1e-4)
x = rng.standard_normal((65536, 64)).astype(np.float32)
check("split_argmax", run_stages("EmitReduction_SplitArgmaxKeepsBothAccumulators", [x], [((64,), torch.int32)])[0], np.argmax(x, 0), 0)

# The conv family (EmitConv_*): inputs rounded to the kernel's type first, the
# reference in float64 from those, by definition: pad, then a sum over window
# positions of strided (dilated) slices times the kernel's [I, O] matrix.
def conv2d_nhwc(x, w, stride=(1, 1), pad=(0, 0, 0, 0), rd=(1, 1)):
    xp = np.pad(x.astype(np.float64), ((0, 0), pad[0:2], pad[2:4], (0, 0)))
    kh, kw = w.shape[:2]
    oh = (xp.shape[1] - ((kh - 1) * rd[0] + 1)) // stride[0] + 1
    ow = (xp.shape[2] - ((kw - 1) * rd[1] + 1)) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, w.shape[3]))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * rd[0]:i * rd[0] + (oh - 1) * stride[0] + 1:stride[0],
                       j * rd[1]:j * rd[1] + (ow - 1) * stride[1] + 1:stride[1], :]
            out += patch @ w[i, j].astype(np.float64)
    return out
def run_conv(name, grid, ins, out_shape, out_dtype):
    to = torch.zeros(out_shape, dtype=out_dtype, device="cuda")
    K[name][(grid, 1, 1)](*[t.cuda() for t in ins], to)
    torch.cuda.synchronize()
    return to.float().cpu().numpy()
def as_torch(a, dtype):
    t = torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(dtype)
    return t, t.float().numpy()
bf16, f16 = torch.bfloat16, torch.float16
x, xr = as_torch(rng.standard_normal((64, 56, 56, 64)), bf16)
w, wr = as_torch(rng.standard_normal((3, 3, 64, 64)) / 24, bf16)
check("conv_benchmark_bf16_relu",
      run_conv("EmitConv_BenchmarkResnetBlock", 1568, [x, w], (64, 56, 56, 64), bf16),
      np.maximum(conv2d_nhwc(xr, wr, pad=(1, 1, 1, 1)), 0), 1e-2)
x, xr = as_torch(rng.standard_normal((2, 3, 9, 8)), torch.float32)   # NCHW
w, wr = as_torch(rng.standard_normal((4, 3, 3, 3)), torch.float32)   # OIHW
want = conv2d_nhwc(xr.transpose(0, 2, 3, 1), wr.transpose(2, 3, 1, 0), (2, 1),
                   (1, 0, 0, 2), (1, 2)).transpose(0, 3, 1, 2)
check("conv_nchw_strided_dilated_f32",
      run_conv("EmitConv_NchwOihwStridedDilatedF32", 1, [x, w], want.shape, torch.float32),
      want, 5e-3)
x, xr = as_torch(rng.standard_normal((2, 9, 11, 20)), f16)
w, wr = as_torch(rng.standard_normal((3, 3, 20, 40)) / 12, f16)
check("conv_multi_tile_f16",
      run_conv("EmitConv_MultiTileUnalignedF16", 4, [x, w], (2, 9, 11, 40), f16),
      conv2d_nhwc(xr, wr, pad=(1, 1, 1, 1)), 1e-2)
