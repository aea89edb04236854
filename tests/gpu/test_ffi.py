"""A user's XLA FFI handler under our plugin (XLA_MODE=fl_only): a small CUDA
library built with nvcc at test time (against the FFI headers jaxlib ships,
jax.ffi.include_dir()), registered with jax.ffi.register_ffi_target(...,
platform="CUDA") and called through jax.ffi.ffi_call with a float and an
integer-array attribute and two outputs, and one whose output aliases an
operand (updated in place); results against numpy. A handler error reaches
the caller with its message. Skips without a GPU, JAX or nvcc."""

import ctypes
import os
import shutil
import subprocess
import tempfile

os.environ.setdefault("XLA_MODE", "fl_only")

import pjrt_harness as h  # noqa: E402

h.require_gpu_and_jax()

import numpy as np  # noqa: E402

SOURCE = r"""
#include <cstdint>
#include "xla/ffi/api/ffi.h"
namespace ffi = xla::ffi;

__global__ void affine(const float* x, float* y, float* z, int64_t n, float scale,
                       int64_t shift) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) { y[i] = scale * x[i] + (float)shift; z[i] = x[i] * x[i]; }
}

ffi::Error AffineImpl(cudaStream_t stream, ffi::Buffer<ffi::F32> x, float scale,
                      ffi::Span<const int64_t> shifts, ffi::ResultBuffer<ffi::F32> y,
                      ffi::ResultBuffer<ffi::F32> z) {
  if (shifts.size() != 2) return ffi::Error::InvalidArgument("shifts must hold 2 values");
  if (scale < 0) return ffi::Error::InvalidArgument("scale must not be negative");
  int64_t n = x.element_count();
  int threads = 128;
  affine<<<(n + threads - 1) / threads, threads, 0, stream>>>(
      x.typed_data(), y->typed_data(), z->typed_data(), n, scale, shifts[0] + shifts[1]);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return ffi::Error::Internal(cudaGetErrorString(e));
  return ffi::Error::Success();
}

// Adds x into its result, which aliases its second operand: it reads the
// result buffer, so that buffer must already hold the operand's values.
__global__ void accumulate(const float* x, float* acc, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) acc[i] += x[i];
}

ffi::Error AccumulateImpl(cudaStream_t stream, ffi::Buffer<ffi::F32> x,
                          ffi::Buffer<ffi::F32> acc_in, ffi::ResultBuffer<ffi::F32> acc) {
  if (acc_in.typed_data() != acc->typed_data())
    return ffi::Error::InvalidArgument("the aliased operand and result differ");
  int64_t n = x.element_count();
  accumulate<<<(n + 127) / 128, 128, 0, stream>>>(x.typed_data(), acc->typed_data(), n);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return ffi::Error::Internal(cudaGetErrorString(e));
  return ffi::Error::Success();
}

XLA_FFI_DEFINE_HANDLER_SYMBOL(Accumulate, AccumulateImpl,
    ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()
        .Arg<ffi::Buffer<ffi::F32>>().Arg<ffi::Buffer<ffi::F32>>()
        .Ret<ffi::Buffer<ffi::F32>>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(Affine, AffineImpl,
    ffi::Ffi::Bind().Ctx<ffi::PlatformStream<cudaStream_t>>()
        .Arg<ffi::Buffer<ffi::F32>>().Attr<float>("scale")
        .Attr<ffi::Span<const int64_t>>("shifts")
        .Ret<ffi::Buffer<ffi::F32>>().Ret<ffi::Buffer<ffi::F32>>());
"""


def build_library(tmp: str) -> str:
  import jax
  nvcc = shutil.which("nvcc")
  if nvcc is None:
    h.skip("nvcc is not installed")
  src = os.path.join(tmp, "affine.cu")
  lib = os.path.join(tmp, "libaffine.so")
  with open(src, "w") as f:
    f.write(SOURCE)
  subprocess.run([nvcc, "-O2", "-std=c++17", "-shared", "-Xcompiler", "-fPIC",
                  "-I", jax.ffi.include_dir(), src, "-o", lib],
                 check=True, capture_output=True, text=True, timeout=300)
  return lib


def user_handler():
  import jax
  import jax.numpy as jnp
  with tempfile.TemporaryDirectory() as tmp:
    library = ctypes.cdll.LoadLibrary(build_library(tmp))
    jax.ffi.register_ffi_target("jft_test_affine", jax.ffi.pycapsule(library.Affine),
                                platform="CUDA")

    def call(x, scale):
      out = jax.ShapeDtypeStruct(x.shape, x.dtype)
      return jax.ffi.ffi_call("jft_test_affine", (out, out))(
          x, scale=np.float32(scale), shifts=np.array([3, 4], np.int64))

    x = np.linspace(-2, 2, 1000, dtype=np.float32)
    y, z = jax.jit(lambda x: call(x, 2.5))(x)
    np.testing.assert_allclose(np.asarray(y), 2.5 * x + 7.0, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(np.asarray(z), x * x, rtol=1e-6)
    # Inside a loop body: applied three times.
    looped = jax.jit(lambda x: jax.lax.fori_loop(0, 3, lambda i, v: call(v, 1.0)[0], x))(x)
    np.testing.assert_allclose(np.asarray(looped), x + 21.0, rtol=1e-5, atol=1e-5)
    # An output aliasing an operand (input_output_aliases, as jaxlib's cuDNN
    # RNN backward uses): the handler updates the operand's values in place,
    # and the caller's own array is left as it was.
    jax.ffi.register_ffi_target("jft_test_accumulate",
                                jax.ffi.pycapsule(library.Accumulate), platform="CUDA")
    acc = jnp.asarray(np.arange(1000, dtype=np.float32))
    accumulate = jax.jit(lambda x, a: jax.ffi.ffi_call(
        "jft_test_accumulate", jax.ShapeDtypeStruct(a.shape, a.dtype),
        input_output_aliases={1: 0})(x, a))
    np.testing.assert_allclose(np.asarray(accumulate(x, acc)),
                               np.arange(1000, dtype=np.float32) + x, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(acc), np.arange(1000, dtype=np.float32))
    try:
      jax.block_until_ready(jax.jit(lambda x: call(x, -1.0))(x))
    except Exception as e:
      assert "scale must not be negative" in str(e), str(e)
    else:
      raise AssertionError("the handler's error did not reach the caller")


def unregistered_target():
  import jax
  out = jax.ShapeDtypeStruct((4,), np.float32)
  try:
    jax.jit(lambda x: jax.ffi.ffi_call("jft_nobody_registered", out)(x))(
        np.zeros(4, np.float32))
  except Exception as e:
    assert "jft_nobody_registered" in str(e) and "register_ffi_target" in str(e), str(e)
    return
  raise AssertionError("an unregistered target ran")


if not h.ours_is_active():
  h.check("plugin", lambda: h.skip("our plugin is not the active cuda backend"))
else:
  h.check("user_ffi_handler", user_handler)
  h.check("unregistered_target_error", unregistered_target)
h.finish()
