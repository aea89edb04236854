// The scaling kernels: PTX for sm_52 and later (the driver compiles it for the
// device at load time), one thread per element in a grid-stride loop.
#include "runtime/gpu/fft_scale.h"

#include <algorithm>
#include <string>

namespace jft::runtime::gpu {
namespace {

constexpr uint32_t kThreads = 256;
constexpr uint64_t kMaxBlocks = 65536;  // the loop covers the rest

// One entry per type $T (f32, f64): (u64 data, u64 count, $T factor). i runs
// from the global thread index by the grid's thread count; element i is at
// data + (i << $S), $S = log2 of the type's size.
constexpr const char* kEntry = R"(
.visible .entry jft_fft_scale_$T(.param .u64 data, .param .u64 count, .param .$T factor)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<8>;
  .reg .$T %v<3>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [count];
  ld.param.$T %v1, [factor];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %nctaid.x;
  mul.wide.u32 %rd3, %r1, %r2;
  cvt.u64.u32 %rd4, %r3;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r4, %r2;
LOOP_$T:
  setp.ge.u64 %p, %rd3, %rd2;
  @%p bra DONE_$T;
  shl.b64 %rd6, %rd3, $S;
  add.u64 %rd7, %rd1, %rd6;
  ld.global.$T %v2, [%rd7];
  mul.rn.$T %v2, %v2, %v1;
  st.global.$T [%rd7], %v2;
  add.u64 %rd3, %rd3, %rd5;
  bra.uni LOOP_$T;
DONE_$T:
  ret;
}
)";

// kEntry for one type.
std::string entry(const std::string& type, const std::string& shift) {
  std::string out;
  for (const char* c = kEntry; *c != '\0'; ++c) {
    if (c[0] == '$' && c[1] == 'T') {
      out += type;
      ++c;
    } else if (c[0] == '$' && c[1] == 'S') {
      out += shift;
      ++c;
    } else {
      out += *c;
    }
  }
  return out;
}

const std::string& ptxText() {
  static const std::string text = ".version 7.0\n.target sm_52\n.address_size 64\n" +
                                  entry("f32", "2") + entry("f64", "3");
  return text;
}

KernelImage image(const char* name) {
  KernelImage k;
  k.binary = ptxText();
  k.name = name;
  return k;
}

}  // namespace

const char* FftScaleKernels::ptx() {
  return ptxText().c_str();
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
  dims.block_threads = kThreads;
  dims.grid[0] =
      static_cast<uint32_t>(std::min((count + kThreads - 1) / kThreads, kMaxBlocks));
  float single = static_cast<float>(factor);
  void* params[] = {&data, &count, f64 ? static_cast<void*>(&factor) : &single};
  return device_.launchKernel(f64 ? f64_ : f32_, dims, params);
}

}  // namespace jft::runtime::gpu
