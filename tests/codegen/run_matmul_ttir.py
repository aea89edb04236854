"""Runs the committed matmul kernels (tests/codegen/matmul_ttir/EmitMatmul_*.ttir)
on the CPU through a small interpreter of the TTIR subset they use, on random
inputs, and compares every output with the product computed here by
dot_general's definition (and the epilogue's ops, each rounded to its result
type as StableHLO says). Pure Python, no numpy, so ctest can run it anywhere.

    python3 tests/codegen/run_matmul_ttir.py [DIR]

Inputs are multiples of 1/4 in [-2, 2]: exact in bf16, f16 and f32, so
products and sums of the small contractions here are exact in f32 and the
comparison is exact up to the roundings the program asks for. One line per
kernel (PASS/FAIL); exit status 1 when any failed.

The interpreter executes every program of the launch grid (from the .json
beside the kernel) in turn; loads and stores outside a buffer, or a store
that two programs both write, fail the kernel. tt.dot is computed exactly
as ieee would for ieee; for tf32 the interpreter models the MMA as the
hardware reads f32 registers, dropping each finite operand's low 13 mantissa
bits (truncation), so a kernel that does not round its tiles to TF32 itself
fails the tf32 rounding case. The other cases' inputs are exact in TF32.
Tf32RoundingBits also runs the tf32 kernel's rounding ops alone on bit
patterns a dot cannot carry (-0, signalling NaNs) against a hand-worked
table."""

import itertools
import json
import math
import os
import random
import re
import struct
import sys

# ---------------------------------------------------------------- numerics


def round_f32(x):
  return struct.unpack("f", struct.pack("f", x))[0]


def round_bf16(x):
  bits = struct.unpack("I", struct.pack("f", round_f32(x)))[0]
  if (bits & 0x7F800000) == 0x7F800000:
    return struct.unpack("f", struct.pack("I", bits & 0xFFFF0000))[0]
  bits += 0x7FFF + ((bits >> 16) & 1)  # to nearest, ties to even
  return struct.unpack("f", struct.pack("I", bits & 0xFFFF0000))[0]


def f32_bits(x):
  return struct.unpack("<I", struct.pack("<f", x))[0]


def from_f32_bits(bits):
  return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


def to_i32(v):
  v &= 0xFFFFFFFF
  return v - (1 << 32) if v & 0x80000000 else v


def tf32_mma_read(x):
  """What the tf32 MMA reads of an f32 register: the low 13 bits dropped."""
  if math.isnan(x) or math.isinf(x):
    return x
  return from_f32_bits(f32_bits(x) & ~0x1FFF)


def round_f16(x):
  return struct.unpack("e", struct.pack("e", x))[0]


ROUND = {"f32": round_f32, "bf16": round_bf16, "f16": round_f16, "f64": float}

# ---------------------------------------------------------------- tensors


class T:
  """A tensor: shape and row-major flat values (ints, floats, bools or
  pointers (buffer, offset))."""

  def __init__(self, shape, values):
    self.shape = list(shape)
    self.v = values

  def size(self):
    return len(self.v)


def parse_type(text):
  text = text.strip()
  m = re.fullmatch(r"tensor<(.*)>", text)
  if not m:
    return [], text
  body = m.group(1)
  if "!tt.ptr" in body:
    dims, elem = body.split("x!tt.ptr", 1)
    return [int(d) for d in dims.split("x")], "!tt.ptr" + elem
  parts = body.split("x")
  return [int(d) for d in parts[:-1]], parts[-1]


def elementwise(fn, *args):
  shapes = [a.shape for a in args if isinstance(a, T)]
  if not shapes:
    return fn(*args)
  shape = shapes[0]
  for s in shapes:
    if s != shape:
      raise ValueError(f"shapes {shapes} differ")
  n = len(args[0].v) if isinstance(args[0], T) else len(
      next(a for a in args if isinstance(a, T)).v)
  cols = [a.v if isinstance(a, T) else [a] * n for a in args]
  return T(shape, [fn(*xs) for xs in zip(*cols)])


def c_div(a, b):
  q = abs(a) // abs(b)
  return q if (a >= 0) == (b >= 0) else -q


def c_rem(a, b):
  return a - b * c_div(a, b)


INT_OPS = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": c_div,
    "arith.remsi": c_rem,
    "arith.minsi": min,
    "arith.maxsi": max,
    "arith.andi": lambda a, b: a and b,
    "arith.ori": lambda a, b: a or b,
}
# On integers of more than one bit (on i1 the logical forms above).
BITWISE = {
    "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b,
    "arith.xori": lambda a, b: a ^ b,
}
FLOAT_OPS = {
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
    "arith.maximumf": lambda a, b: math.nan if math.isnan(a) or math.isnan(b) else max(a, b),
    "arith.minimumf": lambda a, b: math.nan if math.isnan(a) or math.isnan(b) else min(a, b),
}
CMP = {"slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b,
       "sge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}


def broadcast(x, shape):
  if x.shape == shape:
    return x
  out = []
  rank = len(shape)
  strides = [1] * rank
  for d in range(rank - 2, -1, -1):
    strides[d] = strides[d + 1] * x.shape[d + 1]
  total = 1
  for s in shape:
    total *= s
  for i in range(total):
    rem, src = i, 0
    for d in range(rank):
      block = 1
      for e in shape[d + 1:]:
        block *= e
      idx = rem // block
      rem %= block
      if x.shape[d] != 1:
        src += idx * strides[d]
    out.append(x.v[src])
  return T(shape, out)


def literal(text, elem):
  text = text.strip()
  if text.startswith("0x"):
    bits = int(text, 16)
    if elem == "bf16":
      return struct.unpack("f", struct.pack("I", bits << 16))[0]
    if elem == "f16":
      return struct.unpack("e", struct.pack("H", bits))[0]
    if elem == "f32":
      return struct.unpack("f", struct.pack("I", bits))[0]
  if text in ("true", "false"):
    return text == "true"
  if elem.startswith("i"):
    return int(text)
  return float(text)

# ---------------------------------------------------------------- interpreter


class Kernel:

  def __init__(self, text):
    lines = [l.strip() for l in text.splitlines()]
    header = next(l for l in lines if l.startswith("tt.func"))
    self.params = re.findall(r"(%\w+): !tt.ptr<(\w+)>", header)
    start = lines.index(header) + 1
    self.body = []
    depth = 0
    for l in lines[start:]:
      if l == "}" and depth == 0:
        break
      if l.endswith("{"):
        depth += 1
      elif l == "}":
        depth -= 1
      self.body.append(l)

  def run(self, buffers, grid, writes):
    for pid in range(grid[0]):
      env = {name: ("ptr", name) for name, _ in self.params}
      self.pid = pid
      self.buffers = buffers
      self.writes = writes
      self.block(self.body, env)

  def block(self, lines, env):
    i = 0
    while i < len(lines):
      line = lines[i]
      if line.startswith("tt.return") or not line:
        i += 1
        continue
      m = re.match(r"(%\w+) = scf.for (%\w+) = (%\w+) to (%\w+) step (%\w+) "
                   r"iter_args\((%\w+) = (%\w+)\)", line)
      if m:
        depth, j = 1, i + 1
        while depth:
          if lines[j].endswith("{"):
            depth += 1
          elif lines[j] == "}":
            depth -= 1
          j += 1
        inner = lines[i + 1:j - 1]
        result, iv, lo, hi, step, arg, init = m.groups()
        acc = env[init]
        k = env[lo]
        while k < env[hi]:
          local = dict(env)
          local[iv] = k
          local[arg] = acc
          acc = self.block(inner, local)
          k += env[step]
        env[result] = acc
        i = j
        continue
      if line.startswith("scf.yield"):
        return env[line.split()[1]]
      self.op(line, env)
      i += 1
    return None

  def op(self, line, env):
    if line.startswith("tt.store"):
      head, ty = line[len("tt.store "):].rsplit(" : ", 1)
      names = [n.strip() for n in head.split(",")]
      ptrs, vals = env[names[0]], env[names[1]]
      mask = env[names[2]].v if len(names) > 2 else [True] * ptrs.size()
      for p, v, keep in zip(ptrs.v, vals.v, mask):
        if not keep:
          continue
        buf, off = p
        if not 0 <= off < len(self.buffers[buf]):
          raise IndexError(f"store to {buf}[{off}] outside {len(self.buffers[buf])}")
        if (buf, off) in self.writes and self.writes[(buf, off)] != self.pid:
          raise ValueError(f"{buf}[{off}] stored by programs {self.writes[(buf, off)]} "
                           f"and {self.pid}")
        self.writes[(buf, off)] = self.pid
        self.buffers[buf][off] = v
      return
    name, rhs = line.split(" = ", 1)
    opname = rhs.split()[0]
    rest = rhs[len(opname):].strip()
    if opname == "arith.constant":
      text, ty = rest.rsplit(" : ", 1)
      shape, elem = parse_type(ty)
      if text.startswith("dense<"):
        value = literal(text[len("dense<"):-1], elem)
        n = 1
        for s in shape:
          n *= s
        env[name] = T(shape, [value] * n)
      else:
        env[name] = literal(text, elem)
      return
    if opname == "tt.get_program_id":
      env[name] = self.pid
      return
    if opname == "tt.make_range":
      end = int(re.search(r"end = (\d+)", rest).group(1))
      env[name] = T([end], list(range(end)))
      return
    if opname == "tt.expand_dims":
      src = env[rest.split()[0]]
      axis = int(re.search(r"axis = (\d+)", rest).group(1))
      shape = list(src.shape)
      shape.insert(axis, 1)
      env[name] = T(shape, list(src.v))
      return
    args, ty = rest.rsplit(" : ", 1)
    names = [a.strip() for a in args.split(",")]
    if opname == "tt.splat":
      shape, _ = parse_type(ty.split(" -> ")[1])
      src = env[names[0]]
      n = 1
      for s in shape:
        n *= s
      if isinstance(src, tuple):  # a pointer parameter
        env[name] = T(shape, [(src[1], 0)] * n)
      else:
        env[name] = T(shape, [src] * n)
      return
    if opname == "tt.broadcast":
      shape, _ = parse_type(ty.split(" -> ")[1])
      env[name] = broadcast(env[names[0]], shape)
      return
    if opname == "tt.addptr":
      env[name] = elementwise(lambda p, o: (p[0], p[1] + o), env[names[0]], env[names[1]])
      return
    if opname == "tt.load":
      ptrs = env[names[0]]
      mask = env[names[1]].v if len(names) > 1 else [True] * ptrs.size()
      other = env[names[2]].v if len(names) > 2 else [None] * ptrs.size()
      out = []
      for p, keep, o in zip(ptrs.v, mask, other):
        if not keep:
          out.append(o if o is not None else math.nan)
          continue
        buf, off = p
        if not 0 <= off < len(self.buffers[buf]):
          raise IndexError(f"load of {buf}[{off}] outside {len(self.buffers[buf])}")
        out.append(self.buffers[buf][off])
      env[name] = T(ptrs.shape, out)
      return
    if opname == "tt.dot":
      a, b, c = env[names[0]], env[names[1]], env[names[2]]
      if "inputPrecision = tf32" in line and a.shape and "xf32>" in ty.split(" * ")[0]:
        a = T(a.shape, [tf32_mma_read(x) for x in a.v])
        b = T(b.shape, [tf32_mma_read(x) for x in b.v])
      m, k = a.shape
      n = b.shape[1]
      out = list(c.v)
      for i in range(m):
        row = a.v[i * k:(i + 1) * k]
        for j in range(n):
          s = 0.0
          for t in range(k):
            s += row[t] * b.v[t * n + j]
          out[i * n + j] = round_f32(out[i * n + j] + s)
      env[name] = T([m, n], out)
      return
    if opname in INT_OPS:
      _, elem = parse_type(ty)
      f = INT_OPS[opname]
      if elem != "i1" and opname in BITWISE:
        f = BITWISE[opname]
      if elem == "i32":
        g = f
        f = lambda a, b: to_i32(g(a, b))
      env[name] = elementwise(f, env[names[0]], env[names[1]])
      return
    if opname == "tt.bitcast":
      src_ty, dst_ty = ty.split(" -> ")
      _, src = parse_type(src_ty)
      _, dst = parse_type(dst_ty)
      if (src, dst) == ("f32", "i32"):
        env[name] = elementwise(lambda x: to_i32(f32_bits(x)), env[names[0]])
      elif (src, dst) == ("i32", "f32"):
        env[name] = elementwise(from_f32_bits, env[names[0]])
      else:
        raise NotImplementedError(f"bitcast {src} -> {dst}")
      return
    if opname in FLOAT_OPS:
      _, elem = parse_type(ty)
      r = ROUND[elem]
      f = FLOAT_OPS[opname]
      env[name] = elementwise(lambda x, y: r(f(x, y)), env[names[0]], env[names[1]])
      return
    if opname == "arith.cmpi":
      pred, a, b = [x.strip() for x in args.split(",")]
      env[name] = elementwise(CMP[pred], env[a], env[b])
      return
    if opname == "arith.select":
      env[name] = elementwise(lambda c, x, y: x if c else y, env[names[0]], env[names[1]],
                              env[names[2]])
      return
    if opname in ("arith.truncf", "arith.extf"):
      _, elem = parse_type(ty.split(" to ")[1])
      env[name] = elementwise(ROUND[elem], env[names[0]])
      return
    raise NotImplementedError(f"op {opname} in: {line}")

# ---------------------------------------------------------------- references


def rand(n, rng):
  return [rng.randint(-8, 8) / 4 for _ in range(n)]


def strides(shape):
  out = [1] * len(shape)
  for d in range(len(shape) - 2, -1, -1):
    out[d] = out[d + 1] * shape[d + 1]
  return out


def dot_general(lhs, ls, rhs, rs, lb, rb, lc, rc):
  """The StableHLO definition, by index, in float64: result dims are batch,
  lhs free, rhs free."""
  lfree = [d for d in range(len(ls)) if d not in lb and d not in lc]
  rfree = [d for d in range(len(rs)) if d not in rb and d not in rc]
  out_shape = [ls[d] for d in lb] + [ls[d] for d in lfree] + [rs[d] for d in rfree]
  lst, rst = strides(ls), strides(rs)
  csizes = [ls[d] for d in lc]
  out = []
  for idx in itertools.product(*[range(s) for s in out_shape]):
    bi = idx[:len(lb)]
    li = idx[len(lb):len(lb) + len(lfree)]
    ri = idx[len(lb) + len(lfree):]
    s = 0.0
    for ci in itertools.product(*[range(s) for s in csizes]):
      lo = sum(bi[j] * lst[lb[j]] for j in range(len(lb)))
      lo += sum(li[j] * lst[lfree[j]] for j in range(len(lfree)))
      lo += sum(ci[j] * lst[lc[j]] for j in range(len(lc)))
      ro = sum(bi[j] * rst[rb[j]] for j in range(len(rb)))
      ro += sum(ri[j] * rst[rfree[j]] for j in range(len(rfree)))
      ro += sum(ci[j] * rst[rc[j]] for j in range(len(rc)))
      s += lhs[lo] * rhs[ro]
    out.append(s)
  return out_shape, out


def n_of(shape):
  n = 1
  for s in shape:
    n *= s
  return n


def case_plain(rng):
  x, w = rand(64 * 32, rng), rand(32 * 48, rng)
  _, d = dot_general(x, [64, 32], w, [32, 48], [], [], [1], [0])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f32(v) for v in d]}


def case_highest(rng):
  x, w = rand(8 * 200, rng), rand(200 * 8, rng)
  _, d = dot_general(x, [8, 200], w, [200, 8], [], [], [1], [0])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f32(v) for v in d]}


def case_bf16_bias_relu(rng):
  x, w, b = rand(3 * 40 * 20, rng), rand(3 * 24 * 40, rng), rand(24, rng)
  shape, d = dot_general(x, [3, 40, 20], w, [3, 24, 40], [0], [0], [1], [2])
  out = []
  for i, v in enumerate(d):
    y = round_bf16(v)  # the dot's bf16 result
    s = round_bf16(y + b[i % 24])  # bias add, rounded to bf16
    out.append(max(s, 0.0))
  return {"%in0": x, "%in1": w, "%in2": b}, {"%out0": out}


def case_operand_convert(rng):
  # f32 inputs that bf16 must round: odd multiples of 1/64 beyond 8 bits.
  x = [rng.randint(-2000, 2000) / 256 for _ in range(33 * 17)]
  w = rand(17 * 5, rng)
  xb = [round_bf16(v) for v in x]
  _, d = dot_general(xb, [33, 17], w, [17, 5], [], [], [1], [0])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f32(v) for v in d]}


def case_noncontiguous(rng):
  x, w = rand(4 * 6 * 5, rng), rand(4 * 5 * 7, rng)
  _, d = dot_general(x, [4, 6, 5], w, [4, 5, 7], [], [], [0, 2], [0, 1])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f32(v) for v in d]}


def case_vector(rng):
  x, w = rand(100, rng), rand(100, rng)
  _, d = dot_general(x, [100], w, [100], [], [], [0], [0])
  return {"%in0": x, "%in1": w}, {"%out0": [round_f16(v) for v in d]}


def case_grouped(rng):
  x, w, r = rand(100 * 40, rng), rand(70 * 40, rng), rand(100 * 70, rng)
  _, d = dot_general(x, [100, 40], w, [70, 40], [], [], [1], [1])
  out = [round_f32(round_f32(round_f32(v) + r[i]) * 0.5) for i, v in enumerate(d)]
  return {"%in0": x, "%in1": w, "%in2": r}, {"%out0": out}


# f32 bit patterns and their TF32 roundings, worked by hand: round to
# nearest, ties away from zero (the tie is 0x1000 in the low 13 bits; the
# TF32 unit in the last place is bit 13, 0x2000), +-inf kept, NaN kept NaN.
TF32_TABLE = [
    (0x3F800000, 0x3F800000),  # 1.0: already TF32
    (0x3F800800, 0x3F800000),  # 1 + 2^-12: below half an ulp, down
    (0x3F800FFF, 0x3F800000),  # just below the tie, down
    (0x3F801000, 0x3F802000),  # 1 + 2^-11: the tie, away (even would stay 1.0)
    (0x3F801800, 0x3F802000),  # 1 + 3 * 2^-12: above half, up (truncation: 1.0)
    (0x3F805000, 0x3F806000),  # a tie above an even last bit: away
    (0x3F803000, 0x3F804000),  # a tie above an odd last bit: up
    (0x3FFFF000, 0x40000000),  # carry out of the mantissa: 2 - 2^-11 -> 2.0
    (0xBF801000, 0xBF802000),  # -(1 + 2^-11): away from zero
    (0xBF800FFF, 0xBF800000),  # negative, below the tie
    (0x7F7FFFFF, 0x7F800000),  # largest finite f32: rounds to +inf (correct)
    (0x7F7FF000, 0x7F800000),  # the tie above TF32's largest finite: +inf
    (0x7F7FEFFF, 0x7F7FE000),  # below it: TF32's largest finite
    (0xFF7FFFFF, 0xFF800000),  # negative largest finite: -inf
    (0x00000FFF, 0x00000000),  # subnormal below half a TF32 subnormal step
    (0x00001000, 0x00002000),  # subnormal tie: away
    (0x007FF000, 0x00800000),  # largest subnormals round into the smallest normal
    (0x80001800, 0x80002000),  # negative subnormal, up in magnitude
    (0x7F800000, 0x7F800000),  # +inf
    (0xFF800000, 0xFF800000),  # -inf
    (0x7FC00001, None),        # quiet NaN with a low payload: NaN
    (0xFFC00000, None),        # negative NaN: NaN
    (0x00000000, 0x00000000),  # +0
    (0x40490FDB, 0x40490000),  # pi: low bits 0x0FDB below the tie, down
]


def case_tf32_rounding(rng):
  x = [from_f32_bits(bits) for bits, _ in TF32_TABLE]
  w = [1.0, -1.0] * 50
  out = []
  for _, rounded in TF32_TABLE:
    v = math.nan if rounded is None else from_f32_bits(rounded)
    out += [v, -v] * 50
  return {"%in0": x, "%in1": w}, {"%out0": out}


CASES = {
    "EmitMatmul_Tf32RoundsOperands": case_tf32_rounding,
    "EmitMatmul_PlainF32": case_plain,
    "EmitMatmul_HighestPrecisionIsIeee": case_highest,
    "EmitMatmul_BatchedTransposedBf16BiasRelu": case_bf16_bias_relu,
    "EmitMatmul_OperandConvertIsFused": case_operand_convert,
    "EmitMatmul_NonContiguousContractingDims": case_noncontiguous,
    "EmitMatmul_VectorDotIsOneMaskedLane": case_vector,
    "EmitMatmul_GroupedTilesWithResidual": case_grouped,
}


# Bit patterns the dot cannot show (a product with 1.0 added to a +0
# accumulator loses -0; Python floats cannot hold a signalling NaN), worked by
# hand for the rounding ops alone: -0 stays -0; a NaN gets its quiet bit
# (0x00400000), keeping sign and payload, so that the MMA, which drops the
# low 13 bits, still reads a NaN of that sign.
TF32_BITS_TABLE = [(bits, rounded) for bits, rounded in TF32_TABLE if rounded is not None] + [
    (0x80000000, 0x80000000),  # -0
    (0x80000FFF, 0x80000000),  # negative subnormal below the tie: -0
    (0x7F800001, 0x7FC00001),  # signalling NaN, payload only in the low bits
    (0xFF800FFF, 0xFFC00FFF),  # negative signalling NaN
    (0x7FC00001, 0x7FC00001),  # quiet NaN: unchanged
    (0xFFFFFFFF, 0xFFFFFFFF),  # all ones: a quiet negative NaN, unchanged
    (0x7FBFE000, 0x7FFFE000),  # signalling NaN with payload in the kept bits
]


def check_tf32_rounding_bits(directory):
  """Runs the ops between the first f32 -> i32 bitcast of the kernel's loop
  and the i32 -> f32 bitcast that ends them on a tile of table bit patterns."""
  text = open(os.path.join(directory, "EmitMatmul_Tf32RoundsOperands.ttir")).read()
  kernel = Kernel(text)
  lines = kernel.body
  start = next(i for i, l in enumerate(lines)
               if re.search(r"= tt.bitcast .*xf32> -> tensor<.*xi32>$", l))
  end = next(i for i in range(start, len(lines))
             if re.search(r"= tt.bitcast .*xi32> -> tensor<.*xf32>$", lines[i]))
  result = lines[start].split(" = ")[0]
  shape, _ = parse_type(lines[start].rsplit(" -> ", 1)[1])
  n = n_of(shape)
  table = [TF32_BITS_TABLE[i % len(TF32_BITS_TABLE)] for i in range(n)]
  env = {result: T(shape, [to_i32(bits) for bits, _ in table])}
  kernel.pid = 0
  for line in lines[start + 1:end]:
    kernel.op(line, env)
  final = env[lines[end].split("tt.bitcast ", 1)[1].split(" ", 1)[0]]
  for (bits, want), got in zip(table, final.v):
    got &= 0xFFFFFFFF
    if got != want:
      raise AssertionError(f"0x{bits:08X} rounded to 0x{got:08X}, want 0x{want:08X}")
    if (want & 0x7F800000) == 0x7F800000 and (want & 0x7FFFFF):
      read = want & ~0x1FFF & 0xFFFFFFFF  # what the tf32 MMA reads
      if not ((read & 0x7FFFFF) and (read >> 31) == (bits >> 31)):
        raise AssertionError(f"NaN 0x{bits:08X} reads as 0x{read:08X} in the MMA")


def main():
  here = os.path.dirname(os.path.abspath(__file__))
  directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "matmul_ttir")
  failed = 0
  try:
    check_tf32_rounding_bits(directory)
    print(f"PASS Tf32RoundingBits ({len(TF32_BITS_TABLE)} patterns)", flush=True)
  except Exception as e:
    failed += 1
    print(f"FAIL Tf32RoundingBits: {type(e).__name__}: {e}", flush=True)
  for name, make in CASES.items():
    rng = random.Random(name)
    try:
      text = open(os.path.join(directory, name + ".ttir")).read()
      grid = json.load(open(os.path.join(directory, name + ".json")))["grid"]
      inputs, want = make(rng)
      kernel = Kernel(text)
      buffers = dict(inputs)
      for out, values in want.items():
        buffers[out] = [math.nan] * len(values)
      writes = {}
      kernel.run(buffers, grid, writes)
      for out, values in want.items():
        got = buffers[out]
        bad = [i for i, (g, w) in enumerate(zip(got, values))
               if not (g == w or (math.isnan(g) and math.isnan(w)))]
        if bad:
          i = bad[0]
          raise AssertionError(f"{out}: {len(bad)} of {len(values)} elements differ; "
                               f"[{i}] = {got[i]}, want {values[i]}")
      print(f"PASS {name} (grid {grid[0]})", flush=True)
    except Exception as e:  # one line per kernel; the script goes on
      failed += 1
      print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
  print(f"{len(CASES) + 1 - failed} passed, {failed} failed")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main())
