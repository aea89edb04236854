// The scaling kernels: PTX for sm_52 and later (the driver compiles it for the
// device at load time), one thread per element in a grid-stride loop.
#include "runtime/gpu/fft_scale.h"

#include <algorithm>

namespace jft::runtime::gpu {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint64_t kMaxBlocks = 65536;  // the loop covers the rest

// Both entries: (u64 data, u64 count, factor). i runs from the global thread
// index by the grid's thread count; element i is at data + i * size.
constexpr const char* kPtx = R"(.version 7.0
.target sm_52
.address_size 64

.visible .entry jft_fft_scale_f32(.param .u64 data, .param .u64 count, .param .f32 factor)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [count];
  ld.param.f32 %f1, [factor];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r4, %r2;
LOOP_F32:
  setp.ge.u64 %p, %rd3, %rd2;
  @%p bra DONE_F32;
  shl.b64 %rd6, %rd3, 2;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.f32 %f2, [%rd7];
  mul.rn.f32 %f2, %f2, %f1;
  st.global.f32 [%rd7], %f2;
  add.u64 %rd3, %rd3, %rd5;
  bra.uni LOOP_F32;
DONE_F32:
  ret;
}

.visible .entry jft_fft_scale_f64(.param .u64 data, .param .u64 count, .param .f64 factor)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .reg .f64 %fd<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [count];
  ld.param.f64 %fd1, [factor];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r4, %r2;
LOOP_F64:
  setp.ge.u64 %p, %rd3, %rd2;
  @%p bra DONE_F64;
  shl.b64 %rd6, %rd3, 3;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.f64 %fd2, [%rd7];
  mul.rn.f64 %fd2, %fd2, %fd1;
  st.global.f64 [%rd7], %fd2;
  add.u64 %rd3, %rd3, %rd5;
  bra.uni LOOP_F64;
DONE_F64:
  ret;
}
)";

KernelImage image(const char* name) {
  KernelImage k;
  k.binary = kPtx;
  k.name = name;
  return k;
}

}  // namespace

const char* FftScaleKernels::ptx() {
  return kPtx;
}

StatusOr<std::unique_ptr<FftScaleKernels>> FftScaleKernels::load(Device& device) {
  std::unique_ptr<FftScaleKernels> kernels(new FftScaleKernels(device));
  JFT_ASSIGN_OR_RETURN(kernels->f32_, device.loadKernel(image("jft_fft_scale_f32")));
  JFT_ASSIGN_OR_RETURN(kernels->f64_, device.loadKernel(image("jft_fft_scale_f64")));
  return kernels;
}

FftScaleKernels::~FftScaleKernels() {
  device_.unloadKernel(f64_);
  device_.unloadKernel(f32_);
}

Status FftScaleKernels::scale(uint64_t data, uint64_t count, double factor, bool f64) {
  if (count == 0) return Status::ok();
  LaunchDims dims;
  dims.blockThreads = kThreads;
  dims.grid[0] =
      static_cast<uint32_t>(std::min((count + kThreads - 1) / kThreads, kMaxBlocks));
  float single = static_cast<float>(factor);
  void* params[] = {&data, &count, f64 ? static_cast<void*>(&factor) : &single};
  return device_.launchKernel(f64 ? f64_ : f32_, dims, params);
}

}  // namespace jft::runtime::gpu
