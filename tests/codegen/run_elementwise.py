"""Runs the elementwise kernels codegen_core_test dumps (JFT_TTIR_DUMP_DIR)
on the GPU and compares each result with the same StableHLO op run by JAX's
own CUDA backend (XLA). Needs triton, torch, jax, ml_dtypes; one line per
kernel ("SAME", "CLOSE", "DIFF n/128 ...", "COMPILE-FAIL", "SKIP") and a
summary.

    python3 run_elementwise.py DIR [--only SUBSTRING]
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from jax import lax
import ml_dtypes
import torch
from triton.compiler import compile as tcompile
from triton.backends.compiler import GPUTarget

DT = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
      "f8E4M3FN": ml_dtypes.float8_e4m3fn, "f8E5M2": ml_dtypes.float8_e5m2,
      "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64, "i1": np.bool_}
EXACT = {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "abs",
         "negate", "sign", "ceil", "floor", "sqrt", "round_nearest_afz", "round_nearest_even",
         "is_finite", "not", "and", "or", "xor", "shift_left", "shift_right_arithmetic",
         "shift_right_logical", "popcnt", "count_leading_zeros", "compare", "select", "clamp",
         "convert", "bitcast_convert"}


def values(t, n, rng, role):
    if t == "i1":
        return rng.integers(0, 2, n).astype(np.bool_)
    d = np.dtype(DT[t])
    if d.kind in "iu":
        info = np.iinfo(d)
        if role == "shift":
            bits = info.bits
            v = np.array([0, 1, bits - 1, bits, bits + 1, 2 * bits, -1 if d.kind == "i" else info.max])
            return np.resize(np.concatenate([v, rng.integers(0, bits + 2, n)]), n).astype(d)
        if role == "exponent":
            lo = -3 if d.kind == "i" else 0
            return rng.integers(lo, 12, n).astype(d)
        special = [0, 1, info.max, info.min, 2, 3, 7, 8, 100]
        if d.kind == "i":
            special += [-1, -2, -7, -100, info.min + 1]
        r = rng.integers(info.min, info.max, n, dtype=np.int64 if d.kind == "i" else np.uint64,
                         endpoint=True)
        small = rng.integers(-20 if d.kind == "i" else 0, 20, n)
        mix = np.where(rng.random(n) < 0.5, small, r.astype(np.float64)).astype(d) \
            if info.bits < 64 else np.where(rng.random(n) < 0.5, small.astype(d), r.astype(d))
        return np.resize(np.concatenate([np.array(special).astype(d), mix]), n).astype(d)
    special = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, np.inf, -np.inf, np.nan,
               1e30, -1e30, 1e-30, 1e-40, 65504.0, 70000.0, 448.0, 470.0, 57344.0, 62000.0,
               100.0, -100.0, 2.0 ** 31, -2.0 ** 31, 2.0 ** 63, 300.0, -300.0, 1e-3]
    r = rng.standard_normal(n) * np.where(rng.random(n) < 0.5, 3.0, 1000.0)
    return np.resize(np.concatenate([np.array(special), r]), n).astype(d)


def reference(meta, xs):
    op = meta["op"]
    res = DT[meta["result"]]
    f = {"add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "divide": lax.div,
         "remainder": lax.rem, "maximum": lax.max, "minimum": lax.min, "power": lax.pow,
         "atan2": lax.atan2, "abs": lax.abs, "negate": lax.neg, "sign": lax.sign,
         "cbrt": lax.cbrt, "ceil": lax.ceil, "cosine": lax.cos, "exponential": lax.exp,
         "exponential_minus_one": lax.expm1, "floor": lax.floor, "log": lax.log,
         "log_plus_one": lax.log1p, "logistic": lax.logistic, "rsqrt": lax.rsqrt,
         "sine": lax.sin, "sqrt": lax.sqrt, "tan": lax.tan, "tanh": lax.tanh,
         "is_finite": lax.is_finite, "not": lax.bitwise_not, "and": lax.bitwise_and,
         "or": lax.bitwise_or, "xor": lax.bitwise_xor, "shift_left": lax.shift_left,
         "shift_right_arithmetic": lax.shift_right_arithmetic,
         "shift_right_logical": lax.shift_right_logical, "popcnt": lax.population_count,
         "count_leading_zeros": lax.clz, "select": lax.select,
         "clamp": lambda x, lo, hi: lax.clamp(x, lo, hi),
         "round_nearest_afz": lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
         "round_nearest_even": lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
         "convert": lambda x: lax.convert_element_type(x, res),
         "bitcast_convert": lambda x: lax.bitcast_convert_type(x, res),
         "reduce_precision": lambda x: lax.reduce_precision(
             x, meta.get("exponent_bits"), meta.get("mantissa_bits"))}.get(op)
    if op == "compare":
        if meta.get("compare_type") == "TOTALORDER":
            return None
        f = {"EQ": lax.eq, "NE": lax.ne, "GE": lax.ge, "GT": lax.gt, "LE": lax.le,
             "LT": lax.lt}[meta["direction"]]
    if f is None:
        return None
    return np.asarray(jax.jit(f)(*[jnp.asarray(x) for x in xs]))


def run(path, meta, rng):
    n = meta["lanes"]
    roles = ["data"] * len(meta["operands"])
    if meta["op"].startswith("shift"):
        roles[1] = "shift"
    if meta["op"] == "power" and meta["result"] != "f32":
        roles[1] = "exponent"
    xs = []
    for o, role in zip(meta["operands"], roles):
        v = values(o["type"], n, rng, role)
        xs.append(v[:1].reshape(()) if o["scalar"] else v)
    try:
        k = tcompile(path, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    except Exception as e:  # noqa: BLE001
        return "COMPILE-FAIL " + str(e).strip().splitlines()[-1][:200]
    args = []
    for x in xs:
        b = np.ascontiguousarray(x).view(np.uint8) if x.ndim else np.frombuffer(x.tobytes(), np.uint8)
        args.append(torch.from_numpy(b.copy()).cuda())
    rd = np.dtype(DT[meta["result"]])
    out = torch.zeros(n * rd.itemsize, dtype=torch.uint8, device="cuda")
    k[(1, 1, 1)](*args, out)
    torch.cuda.synchronize()
    got = out.cpu().numpy().view(rd)
    try:
        want = reference(meta, xs)
    except Exception as e:  # noqa: BLE001
        return "SKIP reference: " + str(e).strip().splitlines()[0][:150]
    if want is None:
        return "RAN (no reference)"
    want = want.astype(rd).reshape(-1)
    if np.array_equal(got.view(np.uint8), want.view(np.uint8)):
        return "SAME"
    if rd.kind == "f" or rd.kind == "V" or meta["result"] in ("bf16", "f8E4M3FN", "f8E5M2"):
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        both_nan = np.isnan(g) & np.isnan(w)
        eq = (g == w) | both_nan
        tol = {"f64": 1e-14, "f32": 2e-6, "f16": 1e-3, "bf16": 8e-3}.get(meta["result"], 0.13)
        close = eq | (np.abs(g - w) <= tol * np.maximum(np.abs(w), 1e-30))
        if meta["op"] not in EXACT and close.all():
            return "CLOSE"
        bad = np.nonzero(~eq)[0]
    else:
        bad = np.nonzero(got != want)[0]
    i = bad[0]
    ins = ", ".join(repr(x.reshape(-1)[i] if x.ndim else x) for x in xs)
    return "DIFF %d/%d e.g. lane %d (%s): got %r want %r" % (len(bad), n, i, ins, got[i], want[i])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--only", default="")
    ap.add_argument("--compile-json", help="compile_ttir.py --json output: skip what failed")
    a = ap.parse_args()
    failed = {}
    if a.compile_json:
        for r in json.load(open(a.compile_json)):
            if not r["ok"]:
                failed[r["file"][:-5]] = r["error"]
    rng = np.random.default_rng(0)
    tally = {}
    for jpath in sorted(glob.glob(os.path.join(a.dir, "*.json"))):
        meta = json.load(open(jpath))
        if a.only not in meta["name"]:
            continue
        try:
            if meta["name"] in failed:
                verdict = "COMPILE-FAIL " + failed[meta["name"]][:200]
            else:
                verdict = run(jpath[:-5] + ".ttir", meta, rng)
        except Exception as e:  # noqa: BLE001
            verdict = "ERROR " + str(e).strip().splitlines()[-1][:200]
        word = verdict.split()[0]
        tally[word] = tally.get(word, 0) + 1
        print(f"{word}: {meta['name']} {verdict[len(word):]}".rstrip(), flush=True)
    print("SUMMARY:", json.dumps(tally))


if __name__ == "__main__":
    main()
