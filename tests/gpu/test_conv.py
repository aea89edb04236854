"""jax.lax.conv_general_dilated under our plugin (XLA_MODE=fl_only) against a
numpy float64 reference computed here by the StableHLO definition of
convolution: layouts, shapes that are not multiples of 16, batch 1, size-1
dims, strides, padding (negative included), lhs and rhs dilation, feature
and batch groups, float32 and bfloat16, and jax.grad of a conv (both
backward convolutions JAX emits: input gradient and weight gradient).

XLA_FLAGTREE_CONV picks the route (unset: auto). Under
XLA_FLAGTREE_CONV=ttir every case also checks, in the route report that
--xla_dump_to writes (set here), that its convolutions ran as TTIR conv
kernels (the implicit GEMM) with none on the library route, except the
grouped cases, which stay on the library; under =library, that no TTIR conv
kernel ran. Under XLA_FLAGTREE_CONV=cudnn (cuDNN forced: the plugin finds
the nvidia-cudnn wheel, or JFT_CUDNN_LIBRARY names libcudnn.so.9): no TTIR
conv kernel, the plain forward cases (CUDNN_FORWARD below) ran as cuDNN
calls ("cudnn conv" in the route report), negative padding (no exact cuDNN
form) fell back to patches + cuBLASLt, and every case prints which cuDNN
operations (fwd, bwd_data, bwd_filter) ran and which convolutions fell back. A benchmark-shaped case (NHWC
[2,56,56,64] x HWIO [3,3,64,64] bf16, SAME, relu) runs under every setting.

    XLA_FLAGTREE_CONV=ttir python3 tests/gpu/test_conv.py
    XLA_FLAGTREE_CONV=cudnn python3 tests/gpu/test_conv.py

Tolerances (relative error norm |ours - ref| / |ref|): float32 2e-3 (the
product runs as TF32 under precision DEFAULT, as XLA's does, on every route:
the TTIR kernel, cuBLASLt after the patches kernel, or cuDNN, the library
route where it is installed, whose engines may be Winograd or FFT ones),
bfloat16 1e-2. Skips without a GPU or JAX. CONV_ONLY=a,b runs only the named
cases."""

import os
import tempfile

os.environ["XLA_MODE"] = "fl_only"
ROUTE = os.environ.get("XLA_FLAGTREE_CONV", "auto").strip().lower() or "auto"
DUMP = tempfile.mkdtemp(prefix="jft-conv-")
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_dump_to=" + DUMP).strip()

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import glob  # noqa: E402
import itertools  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

rng = np.random.default_rng(0)
TOL = {"float32": 2e-3, "bfloat16": 1e-2}
# Plain forward convolutions that cuDNN must take under XLA_FLAGTREE_CONV=cudnn
# (NCHW/OIHW f32, and NHWC/HWIO bf16 with channel counts its tensor-core
# engines take); the other cases print which cuDNN operations ran (odd channel
# counts in NHWC may have no engine: they then run as patches + cuBLASLt).
# NO_CUDNN has no exact cuDNN form and must fall back.
CUDNN_FORWARD = {"nchw_oihw", "nchw_batch1", "resnet_bf16_relu", "nchw_bf16_relu"}
NO_CUDNN = {"negative_padding"}


def require_ours():
  if not h.ours_is_active():
    raise AssertionError("the gpu backend is not jax-flagtree: "
                         + jax.devices()[0].client.platform_version)


def check_routes(name, grouped):
  """The route report of jit_<name>: under ttir, TTIR conv kernels and no
  convolution on the library (grouped convolutions: the reverse); under
  library, no TTIR conv kernel; under cudnn, no TTIR conv kernel and the
  cuDNN rows CUDNN_FORWARD / NO_CUDNN promise."""
  if ROUTE == "auto":
    return
  reports = glob.glob(os.path.join(DUMP, "**", f"jit_{name}_*", "route_report.txt"),
                      recursive=True)
  if not reports:
    raise AssertionError(f"no route report for jit_{name} under {DUMP}")
  for path in reports:
    text = open(path).read()
    rows = [line for line in text.splitlines()[1:] if line.startswith("fusion_")]
    ttir = [r.split()[0] for r in rows if r.split()[1:3] == ["ttir", "conv"]]
    library = [r.split()[0] for r in rows
               if r.split()[1] == "library" and "convolution" in r]
    if ROUTE == "cudnn":
      if ttir:
        raise AssertionError(f"ttir conv kernels {ttir} under cudnn in {path}:\n{text}")
      kinds = [r.split("cudnn conv ")[1].split()[0] for r in rows if "cudnn conv " in r]
      fallbacks = [r.split()[0] for r in rows
                   if r.split()[1] == "library" and "convolution" in r
                   and "cudnn conv" not in r]
      print(f"  cudnn: {kinds or 'none'}; patches + cuBLASLt: {fallbacks or 'none'}")
      case = name.split("_", 1)[1]
      if case in CUDNN_FORWARD and "fwd" not in kinds:
        raise AssertionError(f"no cuDNN forward convolution in {path}:\n{text}")
      if case in NO_CUDNN and kinds:
        raise AssertionError(f"cuDNN ran a convolution it has no exact form for in "
                             f"{path}:\n{text}")
      return
    if ROUTE == "library" or grouped:
      if ttir:
        raise AssertionError(f"ttir conv kernels {ttir} in {path}:\n{text}")
      if grouped and ROUTE == "ttir" and not library:
        raise AssertionError(f"no library convolution in {path}:\n{text}")
    else:
      if not ttir:
        raise AssertionError(f"no ttir/conv kernel in {path}:\n{text}")
      if library:
        raise AssertionError(f"library convolutions {library} in {path}:\n{text}")


def reference(lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fgc, bgc):
  """The convolution by definition, in float64. `dn` is a
  jax.lax.ConvDimensionNumbers (lhs_spec, rhs_spec, out_spec), each spec
  (batch|out feature, feature|in feature, spatial...)."""
  lhs = np.asarray(lhs, np.float64)
  rhs = np.asarray(rhs, np.float64)
  ls, rs, os_ = dn
  # To canonical N C spatial... / O I spatial...
  x = np.transpose(lhs, ls)
  w = np.transpose(rhs, rs)
  n, c = x.shape[:2]
  o, ci = w.shape[:2]
  sp = x.shape[2:]
  win = w.shape[2:]
  s = len(sp)
  # lhs dilation and padding (negative padding crops).
  dil_shape = [(d - 1) * ld + 1 for d, ld in zip(sp, lhs_dil)]
  xd = np.zeros((n, c, *dil_shape))
  xd[(slice(None), slice(None)) + tuple(slice(None, None, ld) for ld in lhs_dil)] = x
  pads = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
  xp = np.pad(xd, [(0, 0), (0, 0)] + pads)
  crop = tuple(slice(max(-lo, 0), xp.shape[2 + i] - max(-hi, 0))
               for i, (lo, hi) in enumerate(padding))
  xp = xp[(slice(None), slice(None)) + crop]
  wd = [(k - 1) * rd + 1 for k, rd in zip(win, rhs_dil)]
  out_sp = [(xp.shape[2 + i] - wd[i]) // strides[i] + 1 for i in range(s)]
  groups = fgc * bgc
  nb = n // bgc
  out = np.zeros((nb, o, *out_sp))
  per = o // groups
  for g in range(groups):
    ws = w[g * per:(g + 1) * per]  # [per, ci, win...]
    if bgc > 1:
      xs = xp[g * nb:(g + 1) * nb]
    else:
      xs = xp[:, g * ci:(g + 1) * ci]
    for kidx in itertools.product(*[range(k) for k in win]):
      sl = tuple(slice(kidx[i] * rhs_dil[i],
                       kidx[i] * rhs_dil[i] + (out_sp[i] - 1) * strides[i] + 1, strides[i])
                 for i in range(s))
      patch = xs[(slice(None), slice(None)) + sl]  # [nb, ci, out_sp...]
      out[:, g * per:(g + 1) * per] += np.einsum("nc...,oc->no...", patch,
                                                 ws[(slice(None), slice(None)) + kidx])
  inverse = np.argsort(os_)
  return np.transpose(out, inverse)


def compare(got, want, dtype):
  got = np.asarray(got, np.float64)
  if got.shape != want.shape:
    raise AssertionError(f"shape {got.shape} != {want.shape}")
  err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-30)
  if not err <= TOL[dtype]:
    raise AssertionError(f"relative error {err:.3g} > {TOL[dtype]}")
  print(f"  rel_err={err:.2e} {list(got.shape)} {dtype}")


def conv_case(name, lhs_shape, rhs_shape, *, strides=None, padding=None, lhs_dil=None,
              rhs_dil=None, layouts=("NHWC", "HWIO", "NHWC"), fgc=1, bgc=1,
              dtype="float32", relu=False):
  def run():
    require_ours()
    s = len(lhs_shape) - 2
    st = strides or (1,) * s
    pad = padding or [(0, 0)] * s
    ld = lhs_dil or (1,) * s
    rd = rhs_dil or (1,) * s
    dn = jax.lax.conv_dimension_numbers(lhs_shape, rhs_shape, layouts)
    lhs = rng.standard_normal(lhs_shape).astype(np.float32)
    rhs = rng.standard_normal(rhs_shape).astype(np.float32)
    jdt = jnp.bfloat16 if dtype == "bfloat16" else jnp.float32
    x, w = jnp.asarray(lhs, jdt), jnp.asarray(rhs, jdt)
    def fn(a, b):
      y = jax.lax.conv_general_dilated(a, b, st, pad, ld, rd, dn, feature_group_count=fgc,
                                       batch_group_count=bgc)
      return jax.nn.relu(y) if relu else y
    fn.__name__ = f"conv_{name}"  # names the module (jit_conv_<name>) and its dump folder
    got = jax.jit(fn)(x, w).block_until_ready()
    want = reference(np.asarray(x.astype(jnp.float32)), np.asarray(w.astype(jnp.float32)),
                     st, pad, ld, rd, dn, fgc, bgc)
    if relu:
      want = np.maximum(want, 0)
    compare(got.astype(jnp.float32), want, dtype)
    check_routes(fn.__name__, fgc * bgc > 1)
  return run


def grad_case(name, x_shape, w_shape, strides, padding, dtype="float32", fgc=1):
  """jax.grad of sum(conv(x, w) * t) with respect to x and w (JAX emits the
  input-gradient and weight-gradient convolutions) against the gradients by
  definition: the loss is bilinear, so d/dx_i = sum(conv(e_i, w) * t) with e_i
  a unit tensor, each through the forward reference (small shapes only)."""
  def run():
    require_ours()
    dn = jax.lax.conv_dimension_numbers(x_shape, w_shape, ("NHWC", "HWIO", "NHWC"))
    x = rng.standard_normal(x_shape).astype(np.float32)
    w = rng.standard_normal(w_shape).astype(np.float32)
    jdt = jnp.bfloat16 if dtype == "bfloat16" else jnp.float32

    def forward(a, b):
      return jax.lax.conv_general_dilated(a, b, strides, padding, (1, 1), (1, 1), dn,
                                          feature_group_count=fgc)
    out_shape = jax.eval_shape(forward, jnp.asarray(x, jdt), jnp.asarray(w, jdt)).shape
    t = rng.standard_normal(out_shape).astype(np.float32)

    def loss(a, b):
      return jnp.sum(forward(a, b).astype(jnp.float32) * t)
    gradient = jax.grad(loss, argnums=(0, 1))
    gradient.__name__ = f"grad_{name}"  # names the module jit_grad_<name>
    gx, gw = jax.jit(gradient)(jnp.asarray(x, jdt), jnp.asarray(w, jdt))
    xq = np.asarray(jnp.asarray(x, jdt).astype(jnp.float32), np.float64)
    wq = np.asarray(jnp.asarray(w, jdt).astype(jnp.float32), np.float64)
    # The gradients of a bilinear form, by definition: d/dx_i = <conv(e_i, w), t>.
    # Computed column by column through the reference (small shapes only).
    def fwd(a, b):
      return reference(a, b, strides, padding, (1, 1), (1, 1), dn, fgc, 1)
    want_gx = np.zeros(x_shape)
    for i in np.ndindex(*x_shape):
      e = np.zeros(x_shape)
      e[i] = 1
      want_gx[i] = np.sum(fwd(e, wq) * t)
    want_gw = np.zeros(w_shape)
    for i in np.ndindex(*w_shape):
      e = np.zeros(w_shape)
      e[i] = 1
      want_gw[i] = np.sum(fwd(xq, e) * t)
    compare(np.asarray(gx.astype(jnp.float32)), want_gx, dtype)
    compare(np.asarray(gw.astype(jnp.float32)), want_gw, dtype)
    check_routes(gradient.__name__, fgc > 1)
  return run


CASES = {
    "nhwc_same_3x3": conv_case("nhwc_same_3x3", (2, 9, 11, 5), (3, 3, 5, 7), padding=[(1, 1), (1, 1)]),
    "batch1_odd": conv_case("batch1_odd", (1, 13, 7, 3), (2, 3, 3, 17)),
    "size1_dims": conv_case("size1_dims", (1, 1, 9, 1), (1, 3, 1, 1)),
    "strided_asym": conv_case("strided_asym", (3, 17, 15, 6), (3, 2, 6, 10), strides=(2, 3),
                              padding=[(0, 2), (1, 0)]),
    "negative_padding": conv_case("negative_padding", (2, 10, 9, 4), (3, 3, 4, 5), padding=[(-1, 2), (2, -2)]),
    "lhs_dilation": conv_case("lhs_dilation", (2, 6, 5, 3), (3, 2, 3, 4), lhs_dil=(2, 3),
                              padding=[(1, 1), (0, 2)]),
    "rhs_dilation": conv_case("rhs_dilation", (2, 14, 12, 3), (3, 3, 3, 8), rhs_dil=(2, 3)),
    "nchw_oihw": conv_case("nchw_oihw", (2, 5, 11, 9), (6, 5, 3, 3), layouts=("NCHW", "OIHW", "NCHW"),
                           padding=[(1, 1), (1, 1)]),
    "nchw_batch1": conv_case("nchw_batch1", (1, 5, 11, 9), (6, 5, 3, 3), layouts=("NCHW", "OIHW", "NCHW")),
    "feature_groups": conv_case("feature_groups", (2, 8, 8, 6), (3, 3, 2, 9), fgc=3, padding=[(1, 1), (1, 1)]),
    "depthwise": conv_case("depthwise", (2, 10, 10, 8), (3, 3, 1, 8), fgc=8, padding=[(1, 1), (1, 1)]),
    "batch_groups": conv_case("batch_groups", (4, 7, 7, 3), (3, 3, 3, 6), bgc=2),
    "conv1d": conv_case("conv1d", (3, 31, 5), (4, 5, 7), strides=(3,), layouts=("NWC", "WIO", "NWC")),
    "conv3d": conv_case("conv3d", (1, 5, 6, 7, 3), (2, 3, 2, 3, 4), layouts=("NDHWC", "DHWIO", "NDHWC")),
    "large_window": conv_case("large_window", (2, 20, 20, 3), (20, 20, 3, 4), padding=[(1, 1), (1, 1)]),
    "bf16_same": conv_case("bf16_same", (2, 9, 11, 5), (3, 3, 5, 7), padding=[(1, 1), (1, 1)],
                           dtype="bfloat16"),
    "bf16_groups": conv_case("bf16_groups", (2, 8, 8, 6), (3, 3, 3, 4), fgc=2, dtype="bfloat16"),
    "grad_same": grad_case("grad_same", (2, 6, 5, 3), (3, 3, 3, 4), (1, 1), [(1, 1), (1, 1)]),
    "grad_strided": grad_case("grad_strided", (2, 7, 7, 3), (3, 3, 3, 4), (2, 2), [(1, 1), (1, 1)]),
    "grad_grouped": grad_case("grad_grouped", (1, 5, 5, 4), (3, 3, 2, 4), (1, 1), [(1, 1), (1, 1)], fgc=2),
    "resnet_bf16_relu": conv_case("resnet_bf16_relu", (2, 56, 56, 64), (3, 3, 64, 64),
                                  padding=[(1, 1), (1, 1)], dtype="bfloat16", relu=True),
    "nchw_bf16_relu": conv_case("nchw_bf16_relu", (2, 16, 12, 10), (24, 16, 3, 3),
                                layouts=("NCHW", "OIHW", "NCHW"), padding=[(1, 1), (1, 1)],
                                dtype="bfloat16", relu=True),
    "grad_bf16": grad_case("grad_bf16", (2, 6, 5, 3), (3, 3, 3, 4), (1, 1), [(1, 1), (1, 1)],
                           dtype="bfloat16"),
}


def main():
  only = set(filter(None, os.environ.get("CONV_ONLY", "").split(",")))
  print(f"XLA_FLAGTREE_CONV={ROUTE} dumps under {DUMP}", flush=True)
  for name, fn in CASES.items():
    if only and name not in only:
      continue
    h.check(f"conv_{name}", fn)
  h.finish()


if __name__ == "__main__":
  main()
