"""Runs the attention kernels codegen_indexing_test dumps
(JFT_TTIR_DUMP_DIR=DIR, EmitAttention.BenchmarkShapeLaunch: attention_<case>.ttir
and its launch and program in attention_<case>.json) with real Triton on a GPU:
compared with the program's ops computed by PyTorch one after another in the
program's types, and timed against those same ops run unfused by PyTorch
(cuBLAS GEMMs and elementwise/softmax kernels with the scores in memory, close
to today's plan of GEMM + softmax kernel + GEMM) and PyTorch's fused attention.

    python3 tests/codegen/run_attention_check.py DIR

One "NUMERIC case relerr PASS|FAIL" line per kernel, then "TIME case ..." lines.
"""
import glob, json, os, sys
import torch
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget
from triton.testing import do_bench

TYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def reference(p, q, k, v):
    """The program's StableHLO ops, each in its own type."""
    s = torch.matmul(q, k.transpose(-1, -2))  # the dot's result type
    x = s.float() * torch.tensor(p["scale"], dtype=torch.float32)
    if p["causal"]:
        keep = torch.tril(torch.ones(p["tq"], p["tk"], dtype=torch.bool, device="cuda"))
        x = torch.where(keep, x, torch.tensor(p["fill"], dtype=torch.float32))
    e = torch.exp(x - x.amax(-1, keepdim=True))
    probs = (e / e.sum(-1, keepdim=True)).to(q.dtype)
    return torch.matmul(probs, v)


def main(d):
    failed = False
    for f in sorted(glob.glob(os.path.join(d, "attention_*.ttir"))):
        name = os.path.basename(f)[len("attention_"):-5]
        p = json.load(open(f[:-5] + ".json"))
        dtype = TYPES[p["type"]]
        if dtype == torch.float32:
            # Under tf32 the kernel rounds its tiles as cuBLAS does.
            torch.backends.cuda.matmul.allow_tf32 = True
        kern = tcompile(f, target=GPUTarget("cuda", 90, 32),
                        options={"num_warps": p["num_warps"], "num_stages": p["num_stages"]})
        g = torch.Generator(device="cuda").manual_seed(0)
        shape = lambda t, dd: (p["batch"], p["heads"], t, dd)
        q = torch.randn(shape(p["tq"], p["d"]), generator=g, device="cuda").to(dtype)
        k = torch.randn(shape(p["tk"], p["d"]), generator=g, device="cuda").to(dtype)
        v = torch.randn(shape(p["tk"], p["dv"]), generator=g, device="cuda").to(dtype)
        out = torch.empty(shape(p["tq"], p["dv"]), dtype=dtype, device="cuda")
        grid = tuple(p["grid"])
        launch = lambda: kern[grid](q, k, v, out)
        launch()
        torch.cuda.synchronize()
        want = reference(p, q, k, v).float()
        err = ((out.float() - want).norm() / want.norm()).item()
        tol = 1e-2
        ok = err < tol
        failed = failed or not ok
        print("NUMERIC", name, "%.3g" % err, "PASS" if ok else "FAIL", flush=True)
        flops = 4.0 * p["batch"] * p["heads"] * p["tq"] * p["tk"] * p["d"]
        if p["causal"]:
            flops /= 2
        ours = do_bench(launch, warmup=25, rep=200)
        today = do_bench(lambda: reference(p, q, k, v), warmup=25, rep=200)
        line = "TIME %s ours %.3f ms (%.0f TFLOP/s) unfused %.3f ms" % (
            name, ours, flops / ours / 1e9, today)
        if dtype != torch.float32:
            sdpa = do_bench(lambda: torch.nn.functional.scaled_dot_product_attention(
                q, k, v, is_causal=p["causal"], scale=p["scale"]), warmup=25, rep=200)
            line += " torch sdpa %.3f ms" % sdpa
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
