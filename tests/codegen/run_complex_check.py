"""Runs the kernels the EmitComplex tests of codegen_emit_test dump
(JFT_TTIR_DUMP_DIR=DIR; <suite>_<test>.ttir with its launch in .json) with
real Triton on a GPU and compares them with numpy's complex arithmetic:
complex64 multiply, abs, complex(real(z) * 2, imag(z)) on complex128,
z + (1 + 2i), sqrt (with sqrt(-1 - 0i) = -i exactly; complex128 near
1e308), log (inf + NaN i = inf + NaN i), tanh and power at edges, the complex reductions (row sum, mean, complex128 product, a full
complex128 sum) and scans (cumsum, a long complex128 cumprod). Complex buffers are passed as their interleaved
(re, im) parts.

    JFT_TTIR_DUMP_DIR=DIR build/tests/codegen/codegen_emit_test --gtest_filter='EmitComplex*'
    python3 tests/codegen/run_complex_check.py DIR

One "NUMERIC name maxerr PASS|FAIL" line per check.
"""
import glob, json, os, sys
import numpy as np
import torch
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget

d = sys.argv[1]
K, L = {}, {}
failures = 0
for f in sorted(glob.glob(d + "/EmitComplex_*.ttir")):
    n = os.path.basename(f)[:-5]
    if not os.path.exists(f[:-5] + ".json"):  # emitWhole writes both
        print("FAIL launch", n, "has no .json beside its .ttir")
        failures += 1
        continue
    launch = json.load(open(f[:-5] + ".json"))
    try:
        K[n] = tcompile(f, target=GPUTarget("cuda", 90, 32),
                        options={"num_warps": launch["num_warps"]})
        L[n] = launch["grid"]
    except Exception as e:
        print("FAIL compile", n, str(e)[-400:])
print("compiled", len(K))
rng = np.random.default_rng(0)


def parts(z):
    """A complex array as the float array of its (re, im) pairs."""
    return np.ascontiguousarray(z).view(z.real.dtype)


def run(name, ins, outs):
    name = "EmitComplex_" + name
    if name not in K:
        print("MISSING", name)
        return [np.zeros(s, dtype=t) for s, t in outs]
    ti = [torch.from_numpy(parts(a) if np.iscomplexobj(a) else np.ascontiguousarray(a)).cuda()
          for a in ins]
    to = [torch.zeros(int(np.prod(s)) * (2 if np.dtype(t).kind == "c" else 1),
                      dtype=torch.float64 if np.dtype(t) in (np.complex128, np.float64)
                      else torch.float32, device="cuda") for s, t in outs]
    K[name][tuple(L[name])](*ti, *to)
    torch.cuda.synchronize()
    return [o.cpu().numpy().view(t).reshape(s) for o, (s, t) in zip(to, outs)]


def check(name, got, exp, tol):
    global failures
    got = np.asarray(got, dtype=np.complex128)
    exp = np.asarray(exp, dtype=np.complex128)
    err = float(np.max(np.abs(got - exp))) if got.size else 0.0
    scale = max(1.0, float(np.max(np.abs(exp)))) if exp.size else 1.0
    ok = got.shape == exp.shape and err <= tol * scale
    failures += not ok
    print("NUMERIC", name, err, "PASS" if ok else "FAIL")
    if not ok and got.shape == exp.shape and got.size:
        i = int(np.argmax(np.abs(got - exp)))
        print("  worst at flat index", i, "got", got.flat[i], "want", exp.flat[i])


def c64(shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


a, b = c64((8, 32)), c64((8, 32))
check("multiply", run("MultiplyReadsEachPartOnceAndWritesBoth", [a, b],
                      [((8, 32), np.complex64)])[0],
      a.astype(np.complex128) * b, 1e-6)
z = c64((100,))
z[:3] = [0, 3 + 4j, 1e30 + 1e30j]
check("abs", run("AbsIsHypotOfThePartsAndStoresARealValue", [z], [((100,), np.float32)])[0],
      np.abs(z.astype(np.complex128)), 1e-6)
w = (rng.standard_normal(16) + 1j * rng.standard_normal(16)).astype(np.complex128)
check("parts_c128", run("PartsOfADoubleComplexRoundTripThroughComplex", [w],
                        [((16,), np.complex128)])[0], w.real * 2 + 1j * w.imag, 1e-15)
z = c64((64,))
check("add_constant", run("SplatComplexConstantGivesEachPartItsHalf", [z],
                          [((64,), np.complex64)])[0], z + (1 + 2j), 1e-6)

# complex_math.h's functions, one kernel each (complex64 [64]), with edges.
z = c64((64,))
z[:8] = np.array([complex(-1, -0.0), complex(-1, 0), 0, complex(0, np.inf),
                  complex(-4, -0.0), 1e30 + 1e30j, 3 - 4j, complex(1e38, 1e38)])
got = run("SqrtKeepsTheSignOfAZeroImaginaryPart", [z], [((64,), np.complex64)])[0]
with np.errstate(all="ignore"):
    want = np.sqrt(z.astype(np.complex128))
finite = np.isfinite(want)
check("sqrt", got[finite], want[finite], 1e-6)
check("sqrt(-1-0i) = -i", got[:1], np.array([-1j]), 0)
edges_ok = bool(got[0].imag == -1 and not np.signbit(got[0].real) and
                got[3].real == np.inf and got[3].imag == np.inf)
failures += not edges_ok
print("NUMERIC sqrt_edges", got[0], got[3], "PASS" if edges_ok else "FAIL")
# complex128 sqrt: f64 throughout, the scaled form at 1e308 + 1e308i.
z = rng.standard_normal(64) + 1j * rng.standard_normal(64)
z[:4] = [complex(-1, -0.0), complex(1e308, 1e308), complex(-4, -0.0), 3 - 4j]
got = run("SqrtOfComplex128ScalesNearTheTopOfTheRange", [z], [((64,), np.complex128)])[0]
check("sqrt_c128", got, np.sqrt(z), 1e-15)
edges_ok = bool(got[0].imag == -1 and got[2].imag == -2)
failures += not edges_ok
print("NUMERIC sqrt_c128_signed_zero", got[0], got[2], "PASS" if edges_ok else "FAIL")
# log: an infinite part with a NaN one is inf + NaN i (C99, numpy); the sign
# of a zero imaginary part picks -pi.
z = c64((64,))
z[:4] = [complex(np.inf, np.nan), complex(np.nan, -np.inf), complex(-1, -0.0), 0.6 + 0.8j]
got = run("LogOfAnInfinitePartIsInfinite", [z], [((64,), np.complex64)])[0]
with np.errstate(all="ignore"):
    want = np.log(z.astype(np.complex128))
check("log", got[4:], want[4:], 1e-6)
edges_ok = bool(got[0].real == np.inf and got[1].real == np.inf and
                np.isnan(got[0].imag) and abs(got[2].imag + np.pi) < 1e-6)
failures += not edges_ok
print("NUMERIC log_edges", got[:3], "PASS" if edges_ok else "FAIL")
t = c64((64,))
t[:3] = [30 + 1j, -400 + 1j, 0.5 + 1.5707963j]
with np.errstate(all="ignore"):
    check("tanh", run("TanhIsKahansFormulaWithItsLargeArgumentForm", [t],
                      [((64,), np.complex64)])[0], np.tanh(t.astype(np.complex128)), 1e-5)
p, q = c64((64,)), (rng.uniform(-1, 1, 64) + 0.3j * rng.uniform(-1, 1, 64)).astype(np.complex64)
check("power", run("PowerOfComplexValues", [p, q], [((64,), np.complex64)])[0],
      np.power(p.astype(np.complex128), q.astype(np.complex128)), 1e-5)

# Reductions of complex values: two real lanes per accumulator.
r = c64((8, 32))
check("sum_rows", run("SumOfRowsIsOneTwoLaneReduce", [r], [((8,), np.complex64)])[0],
      r.astype(np.complex128).sum(axis=1), 1e-5)
check("mean_rows", run("MeanDividesTheComplexSumInTheEpilogue", [r],
                       [((8,), np.complex64)])[0], r.astype(np.complex128).mean(axis=1), 1e-5)
u = np.exp(1j * rng.uniform(-3, 3, (8, 32)))
check("prod_rows_c128", run("ProductCombinesTheLanesAsAComplexMultiply", [u],
                            [((8,), np.complex128)])[0], u.prod(axis=1), 1e-13)
v = rng.standard_normal(1000) + 1j * rng.standard_normal(1000)
check("full_sum_c128", run("FullSumStoresAComplexScalar", [v], [((), np.complex128)])[0],
      np.array(v.sum()), 1e-13)

# Cumulative sums and products: the scan carries (re, im).
c = c64((8, 100))
check("cumsum_rows", run("CumsumIsOneTwoOperandScan", [c], [((8, 100), np.complex64)])[0],
      np.cumsum(c.astype(np.complex128), axis=1), 1e-5)
g = np.exp(1j * rng.uniform(-3, 3, (4, 5000)))
check("cumprod_long_c128", run("LongCumprodCarriesBothParts", [g],
                               [((4, 5000), np.complex128)])[0], np.cumprod(g, axis=1), 1e-11)
print("complex checks:", "all passed" if failures == 0 else f"{failures} failed")
sys.exit(1 if failures else 0)
