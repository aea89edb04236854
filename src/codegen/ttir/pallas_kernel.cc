#include "codegen/ttir/pallas_kernel.h"

#include "fusion/pallas_call.h"

namespace jft::codegen::ttir {
namespace {

constexpr uint64_t kCopyBlock = 1024;

}  // namespace

uint32_t byteCopyPrograms(uint64_t bytes) {
  return static_cast<uint32_t>((bytes + kCopyBlock - 1) / kCopyBlock);
}

// i64 offsets: a buffer may pass 2^31 bytes.
std::string byteCopyKernel(const std::string& name, uint64_t bytes) {
  const std::string block = std::to_string(kCopyBlock);
  const std::string t64 = "tensor<" + block + "xi64>";
  const std::string ptrs = "tensor<" + block + "x!tt.ptr<i8>>";
  std::string s;
  s += "module {\n";
  s += "  tt.func public @" + name +
       "(%src: !tt.ptr<i8> {tt.divisibility = 16 : i32}, "
       "%dst: !tt.ptr<i8> {tt.divisibility = 16 : i32}) {\n";
  s += "    %pid = tt.get_program_id x : i32\n";
  s += "    %pid64 = arith.extsi %pid : i32 to i64\n";
  s += "    %block = arith.constant " + block + " : i64\n";
  s += "    %base = arith.muli %pid64, %block : i64\n";
  s += "    %base_t = tt.splat %base : i64 -> " + t64 + "\n";
  s += "    %range = tt.make_range {end = " + block +
       " : i32, start = 0 : i32} : tensor<" + block + "xi32>\n";
  s += "    %range64 = arith.extsi %range : tensor<" + block + "xi32> to " + t64 + "\n";
  s += "    %offs = arith.addi %base_t, %range64 : " + t64 + "\n";
  s += "    %size = arith.constant dense<" + std::to_string(bytes) + "> : " + t64 + "\n";
  s += "    %mask = arith.cmpi slt, %offs, %size : " + t64 + "\n";
  s += "    %src_t = tt.splat %src : !tt.ptr<i8> -> " + ptrs + "\n";
  s += "    %src_p = tt.addptr %src_t, %offs : " + ptrs + ", " + t64 + "\n";
  s += "    %v = tt.load %src_p, %mask : " + ptrs + "\n";
  s += "    %dst_t = tt.splat %dst : !tt.ptr<i8> -> " + ptrs + "\n";
  s += "    %dst_p = tt.addptr %dst_t, %offs : " + ptrs + ", " + t64 + "\n";
  s += "    tt.store %dst_p, %v, %mask : " + ptrs + "\n";
  s += "    tt.return\n  }\n}\n";
  return s;
}

StatusOr<std::vector<TtirKernel>> emitPallasKernels(const ir::Module& module,
                                                    const ir::Function& function,
                                                    const fusion::Fusion& fusion) {
  if (fusion.ops.size() != 1 || fusion.ops[0] >= function.body.ops.size())
    return internalError(fusion.name + ": a Pallas group holds exactly its custom call");
  const ir::Op& op = function.body.ops[fusion.ops[0]];
  JFT_ASSIGN_OR_RETURN(fusion::PallasCall call, fusion::pallasCallOf(module, op));
  if (fusion.outputs != op.results)
    return internalError(fusion.name +
                         ": a Pallas group writes every result of its call");

  std::vector<TtirKernel> kernels;
  std::vector<ir::ValueId> params = op.operands;
  for (const fusion::PallasAlias& alias : call.aliases) {
    const ir::ValueId from = op.operands[static_cast<size_t>(alias.operand)];
    const ir::ValueId to = op.results[static_cast<size_t>(alias.output)];
    params[static_cast<size_t>(alias.operand)] = to;
    const auto bytes = static_cast<uint64_t>(module.typeOf(to).byteSize());
    TtirKernel copy;
    copy.name = fusion.name + "_alias" + std::to_string(alias.output);
    copy.ttir = byteCopyKernel(copy.name, bytes);
    copy.inputs = {from};
    copy.outputs = {to};
    copy.grid = {byteCopyPrograms(bytes), 1, 1};
    copy.num_warps = 4;
    copy.num_stages = 1;
    copy.tile = "copy " + std::to_string(bytes) + " bytes";
    copy.stage = static_cast<int>(kernels.size());
    kernels.push_back(std::move(copy));
  }
  TtirKernel kernel;
  kernel.name = call.name;
  kernel.ttir = call.module;
  kernel.inputs = std::move(params);
  kernel.outputs = op.results;
  kernel.grid = call.grid;
  kernel.num_warps = call.num_warps;
  kernel.num_stages = call.num_stages;
  kernel.tile = "pallas " + std::to_string(call.grid[0]) + "x" +
                std::to_string(call.grid[1]) + "x" + std::to_string(call.grid[2]);
  kernel.stage = static_cast<int>(kernels.size());
  kernels.push_back(std::move(kernel));
  return kernels;
}

}  // namespace jft::codegen::ttir
