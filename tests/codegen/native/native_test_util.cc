#include "native_test_util.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "codegen/native/elemental.h"
#include "ir/parser.h"
#include "ir/verifier.h"

namespace jft::codegen::native::testing {

ir::Module parseIr(const std::string& text) {
  StatusOr<ir::Module> module = ir::parseModule(text);
  EXPECT_TRUE(module.isOk()) << module.status().toString();
  if (!module.isOk()) return {};
  Status verified = ir::verifyModule(*module);
  EXPECT_TRUE(verified.isOk()) << verified.toString();
  return std::move(module).value();
}

fusion::Fusion wholeFunction(const ir::Module& module, fusion::Family family) {
  fusion::Fusion fusion;
  const ir::Function* f = module.entry();
  if (f == nullptr) return fusion;
  fusion.name = "fusion_0_test";
  fusion.family = family;
  std::set<ir::ValueId> args(f->body.args.begin(), f->body.args.end()), seen;
  for (size_t i = 0; i + 1 < f->body.ops.size(); ++i) {
    const ir::Op& op = f->body.ops[i];
    fusion.ops.push_back(i);
    for (ir::ValueId v : op.operands)
      if (args.count(v) && seen.insert(v).second) fusion.inputs.push_back(v);
    if (op.kind == ir::OpKind::Reduce && fusion.reduce_shape.empty()) {
      fusion.reduce_shape = module.typeOf(op.operands.at(0)).dims;
      fusion.reduced_dims = intsAttr(op, "dimensions");
    }
  }
  for (ir::ValueId v : f->body.ops.back().operands)
    if (std::find(fusion.outputs.begin(), fusion.outputs.end(), v) ==
        fusion.outputs.end())
      fusion.outputs.push_back(v);
  return fusion;
}

NativeKernel emitWhole(const ir::Module& module, fusion::Family family) {
  if (module.entry() == nullptr) return {};
  StatusOr<NativeKernel> kernel =
      emitNativeKernel(module, *module.entry(), wholeFunction(module, family));
  EXPECT_TRUE(kernel.isOk()) << kernel.status().toString();
  return kernel.isOk() ? std::move(kernel).value() : NativeKernel{};
}

std::string emitError(const ir::Module& module, fusion::Family family) {
  if (module.entry() == nullptr) return "no entry";
  StatusOr<NativeKernel> kernel =
      emitNativeKernel(module, *module.entry(), wholeFunction(module, family));
  return kernel.isOk() ? "" : kernel.status().toString();
}

namespace {

// CUDA's names for a host build. Loop kernels run on one thread; reduction
// kernels (which synchronise) on one std::thread per CUDA thread.
constexpr const char* kShim = R"(
struct jft_dim3 { unsigned x = 0, y = 0, z = 0; };
static thread_local jft_dim3 threadIdx;
static jft_dim3 blockIdx, blockDim, gridDim;
#define __global__
#define __launch_bounds__(n)
#define __shared__ static
)";

constexpr const char* kThreadShim = R"(
#include <barrier>
#include <thread>
#include <vector>
static std::barrier<>* jft_block_barrier = nullptr;
#define __syncthreads() jft_block_barrier->arrive_and_wait()
)";

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string hostRunUnavailable() {
#ifndef JFT_HOST_CXX
  return "no host C++ compiler configured for the host-run tests";
#else
  if (!std::filesystem::exists(JFT_HOST_CXX))
    return "host C++ compiler " JFT_HOST_CXX " not found";
  return "";
#endif
}

std::vector<std::vector<uint8_t>> runOnHost(
    const NativeKernel& kernel, const std::vector<std::vector<uint8_t>>& inputs) {
#ifndef JFT_HOST_CXX
  ADD_FAILURE() << "no host compiler";
  return {};
#else
  EXPECT_EQ(inputs.size(), kernel.inputs.size());
  if (inputs.size() != kernel.inputs.size() || kernel.source.empty()) return {};
  static std::atomic<int> counter{0};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("jft_native_test_" + std::to_string(getpid()) + "_" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  std::string call;
  for (size_t i = 0; i < kernel.params.size(); ++i)
    call += (i ? ", " : "") + std::string("(") + kernel.params[i].c_type + ")args[" +
            std::to_string(i) + "]";
  // Only the loop family never synchronises or shares memory.
  const bool threads = kernel.family != "loop";
  std::vector<NativeEntry> entries{{kernel.name, kernel.grid, kernel.num_warps}};
  entries.insert(entries.end(), kernel.later.begin(), kernel.later.end());
  std::string cases;
  for (size_t e = 0; e < entries.size(); ++e)
    cases += "    if (entry == " + std::to_string(e) + ") " + entries[e].name + "(" +
             call + ");\n";
  const std::string run_one = "threadIdx.x = t; jft_run(entry, args);";
  const std::string launcher =
      "static void jft_run(int entry, void** args) {\n" + cases +
      "}\n"
      "extern \"C\" void jft_host_launch(int entry, void** args, unsigned grid,\n"
      "                                  unsigned block) {\n"
      "  gridDim.x = grid; blockDim.x = block;\n"
      "  for (unsigned b = 0; b < grid; ++b) {\n"
      "    blockIdx.x = b;\n" +
      (threads ? "    std::barrier<> bar(block);\n"
                 "    jft_block_barrier = &bar;\n"
                 "    std::vector<std::thread> threads;\n"
                 "    for (unsigned t = 0; t < block; ++t)\n"
                 "      threads.emplace_back([=] { " +
                     run_one +
                     " });\n"
                     "    for (std::thread& th : threads) th.join();\n"
               : "    for (unsigned t = 0; t < block; ++t) { " + run_one + " }\n") +
      "  }\n"
      "}\n";
  const std::filesystem::path source = dir / "kernel.cc", library = dir / "kernel.so";
  std::ofstream(source) << kShim << (threads ? kThreadShim : "") << kernel.source
                        << launcher;
  const std::string command =
      shellQuote(JFT_HOST_CXX) + " -std=c++20 -O0 -shared -fPIC -pthread -w -o " +
      shellQuote(library.string()) + " " + shellQuote(source.string()) + " 2>" +
      shellQuote((dir / "log.txt").string());
  if (std::system(command.c_str()) != 0) {
    std::ifstream log(dir / "log.txt");
    std::string text((std::istreambuf_iterator<char>(log)), {});
    ADD_FAILURE() << "host compile failed:\n"
                  << text.substr(0, 4000) << "\nsource:\n"
                  << kernel.source.substr(kernel.source.find("extern \"C\""));
    return {};
  }
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    ADD_FAILURE() << dlerror();
    return {};
  }
  using Launch = void (*)(int, void**, unsigned, unsigned);
  auto launch = reinterpret_cast<Launch>(dlsym(handle, "jft_host_launch"));
  std::vector<std::vector<uint8_t>> buffers = inputs;
  for (const NativeParam& p : kernel.params) {
    if (!p.is_output) continue;
    int64_t n = 1;
    for (int64_t d : p.dims) n *= d;
    const size_t bytes =
        p.element == ir::ElementType::PRED ? 1 : ir::storageBytes(p.element);
    buffers.emplace_back(static_cast<size_t>(n) * bytes, uint8_t{0xAB});
  }
  std::vector<void*> args;
  for (auto& b : buffers) args.push_back(b.data());
  // One block: the kernels loop over rows and elements the grid leaves out
  // (each entry in turn, as the runtime launches them).
  for (size_t e = 0; e < entries.size(); ++e) {
    const unsigned block =
        threads ? static_cast<unsigned>(entries[e].num_warps * 32) : 1u;
    if (entries[e].grid[0] != 0) launch(static_cast<int>(e), args.data(), 1, block);
  }
  dlclose(handle);
  std::filesystem::remove_all(dir);
  return {buffers.begin() + static_cast<std::ptrdiff_t>(inputs.size()), buffers.end()};
#endif
}

std::vector<std::vector<uint8_t>> runIr(const std::string& ir, fusion::Family family,
                                        const std::vector<std::vector<uint8_t>>& inputs) {
  const ir::Module module = parseIr(ir);
  const NativeKernel kernel = emitWhole(module, family);
  if (kernel.source.empty()) return {};
  return runOnHost(kernel, inputs);
}

}  // namespace jft::codegen::native::testing
