// Seeds of the executable targets: hand-built programs that pass
// program_check, so mutants start from bytes the decoder reads to the end.
#include "pjrt/executable_blob.h"
#include "targets.h"

namespace jft::fuzz {
namespace {

using runtime::BufferSlot;

BufferSlot slot(BufferSlot::Kind kind, uint64_t bytes, int index, uint64_t offset = 0,
                std::string data = "") {
  return BufferSlot{kind, bytes, index, offset, std::move(data)};
}

// f32[2,3] x f32[3,4] -> f32[2,4] by a kernel, a GEMM, an FFT, a loop and a
// branch, a custom call; constants and temps.
pjrt::ExecutableInfo richInfo() {
  pjrt::ExecutableInfo info;
  info.name = "jit_seed";
  info.fingerprint = "seed";
  info.target = "cuda 90 warp 32";
  info.parameters = {{PJRT_Buffer_Type_F32, {2, 3}, 24},
                     {PJRT_Buffer_Type_F32, {3, 4}, 48}};
  info.outputs = {{PJRT_Buffer_Type_F32, {2, 4}, 32}, {PJRT_Buffer_Type_C64, {8}, 64}};
  info.optimized_program = "ML\xEFR";
  runtime::Program& p = info.program;
  p.name = info.name;
  runtime::KernelImage kernel;
  kernel.binary =
      "\x7f"
      "ELF";
  kernel.name = "fusion";
  kernel.params = {runtime::KernelImage::Param::kBuffer,
                   runtime::KernelImage::Param::kBuffer,
                   runtime::KernelImage::Param::kGlobalScratch,
                   runtime::KernelImage::Param::kProfileScratch};
  kernel.global_scratch_size = 64;
  kernel.global_scratch_align = 16;
  p.kernels.push_back(kernel);
  p.slots = {slot(BufferSlot::Kind::kParameter, 24, 0),
             slot(BufferSlot::Kind::kParameter, 48, 1),
             slot(BufferSlot::Kind::kOutput, 32, 0),
             slot(BufferSlot::Kind::kOutput, 64, 1),
             slot(BufferSlot::Kind::kTemp, 64, -1, 0),
             slot(BufferSlot::Kind::kConstant, 1, -1, 0, std::string(1, '\1')),
             slot(BufferSlot::Kind::kConstant, 4, -1, 0, std::string("\2\0\0\0", 4))};
  runtime::LaunchThunk launch;
  launch.kernel = 0;
  launch.grid = {4, 1, 1};
  launch.buffers = {0, 4};
  p.thunks.push_back(launch);
  runtime::GemmThunk gemm;
  gemm.gemm.a = {runtime::GemmType::kF32, false, 3, 0};
  gemm.gemm.b = {runtime::GemmType::kF32, false, 4, 0};
  gemm.gemm.d_ld = 4;
  gemm.gemm.m = 2;
  gemm.gemm.n = 4;
  gemm.gemm.k = 3;
  gemm.a = 0;
  gemm.b = 1;
  gemm.d = 2;
  p.thunks.push_back(gemm);
  runtime::LibraryThunk fft;
  fft.op = runtime::FftDesc{runtime::FftKind::kFft, false, {8}, 1};
  fft.buffers = {4, 3};
  p.thunks.push_back(fft);
  p.thunks.push_back(runtime::MemsetThunk{4, 0, 16});
  p.thunks.push_back(runtime::WhileThunk{3, -1, 0, 3});
  runtime::ConditionalThunk branch;
  branch.index = 5;
  branch.predicate = true;
  branch.branches = {1, 2};
  p.thunks.push_back(branch);
  runtime::FfiThunk ffi;
  ffi.target = "handler";
  ffi.argument_shapes = {{XLA_FFI_DataType_F32, {2, 4}}};
  ffi.arguments = {2};
  ffi.result_shapes = {{XLA_FFI_DataType_F32, {2, 4}}};
  ffi.results = {4};
  int64_t n = 3;
  int32_t dims[2] = {2, 4};
  ffi.attributes = ffi::Attribute::dictionary(
      {"config", "n"},
      {ffi::Attribute::dictionary(
           {"dims", "mode"},
           {ffi::Attribute::array(XLA_FFI_DataType_S32, dims, 2, sizeof(int32_t)),
            ffi::Attribute::string("fast")}),
       ffi::Attribute::scalar(XLA_FFI_DataType_S64, &n, sizeof(n))});
  ffi.location = "seed.py:1";
  p.thunks.push_back(ffi);
  p.lists = {{runtime::CopyThunk{4, 2, 32}}, {runtime::MemsetThunk{2, 7, 32}}, {}, {}};
  p.temp_bytes = 256;
  p.parameter_bytes = {24, 48};
  p.output_slots = {2, 3};
  p.output_aliases = {-1, -1};
  p.donated_parameters = {false, true};
  (void)info.finish();
  return info;
}

// Collectives and participant ids, as a program for 2 replicas carries them.
pjrt::ExecutableInfo collectiveInfo() {
  pjrt::ExecutableInfo info;
  info.name = "jit_collective";
  info.target = "cuda 90 warp 32";
  info.num_replicas = 2;
  info.parameters = {{PJRT_Buffer_Type_F32, {4}, 16}};
  info.outputs = {{PJRT_Buffer_Type_F32, {4}, 16}, {PJRT_Buffer_Type_U32, {}, 4}};
  runtime::Program& p = info.program;
  p.name = info.name;
  p.slots = {slot(BufferSlot::Kind::kParameter, 16, 0),
             slot(BufferSlot::Kind::kOutput, 16, 0),
             slot(BufferSlot::Kind::kOutput, 4, 1)};
  runtime::CollectiveThunk all_reduce;
  all_reduce.desc.count = 4;
  all_reduce.desc.ranks = 2;
  all_reduce.groups.groups = {{0, 1}};
  all_reduce.input = 0;
  all_reduce.output = 1;
  p.thunks.push_back(all_reduce);
  p.thunks.push_back(runtime::ParticipantIdThunk{false, 2});
  p.parameter_bytes = {16};
  p.output_slots = {1, 2};
  (void)info.finish();
  return info;
}

Bytes toBytes(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

}  // namespace

std::vector<Bytes> executableSeeds(const std::string&) {
  return {toBytes(pjrt::serializeExecutable(richInfo(), "fuzz build")),
          toBytes(pjrt::serializeExecutable(collectiveInfo(), "fuzz build"))};
}

std::vector<Bytes> executablePayloadSeeds(const std::string&) {
  return {toBytes(pjrt::executablePayload(richInfo())),
          toBytes(pjrt::executablePayload(collectiveInfo()))};
}

}  // namespace jft::fuzz
