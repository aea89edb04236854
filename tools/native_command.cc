#include "native_command.h"

#include <charconv>
#include <functional>
#include <ostream>

#include "codegen/native/native_kernel.h"
#include "codegen/ttir/capability.h"
#include "codegen/ttir/kernel.h"
#include "command.h"
#include "frontend/vhlo/import.h"
#include "fusion/fusion.h"
#include "kernel_compiler/json.h"
#include "passes/pipeline.h"
#include "read_file.h"
#include "runtime/gpu/nvrtc.h"

namespace jft::tools {
namespace {

constexpr std::string_view kNativeHelp =
    "usage: jft native [options] FILE.mlirbc\n"
    "\n"
    "Imports FILE, runs the IR passes and the fusion plan, and prints the native\n"
    "route's CUDA C for every loop and reduction group (those of while, case and if\n"
    "bodies too): the kernel's entry name,\n"
    "parameters (inputs, then outputs, one pointer each), grid and block, then its\n"
    "source. Groups the native emitter refuses are listed with the reason.\n"
    "\n"
    "options:\n"
    "  --json       one JSON object: {\"kernels\": [...], \"refused\": [...]}; each\n"
    "               kernel also carries the TTIR route's kernel of its group\n"
    "               (\"ttir\", \"ttir_name\", \"ttir_grid\", \"ttir_num_warps\") when\n"
    "               that route makes exactly one\n"
    "  --compile    compile each kernel with NVRTC (libnvrtc: JFT_NVRTC_LIBRARY,\n"
    "               JFT_NVRTC_DIR) and print its cubin size\n"
    "  --arch CC    compute capability for --compile (default 90)\n"
    "  --help       print this help\n"
    "\n"
    "Exit status: 0 on success, 1 if FILE cannot be read or imported or a kernel\n"
    "does not compile, 2 on a wrong command line.\n";

// A JSON string literal, written by the kernel compiler's JSON (its escapes).
std::string jsonString(const std::string& s) {
  return kernel_compiler::Json(s).dump();
}

std::string shapeText(const std::vector<int64_t>& dims, bool json) {
  std::string s = json ? "[" : "";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? (json ? ", " : "x") : "") + std::to_string(dims[i]);
  return json ? s + "]" : s;
}

std::string kernelJson(const codegen::native::NativeKernel& k, const std::string& fusion,
                       const std::vector<codegen::ttir::TtirKernel>* ttir) {
  std::string params;
  for (const codegen::native::NativeParam& p : k.params)
    params += std::string(params.empty() ? "" : ", ") +
              "{\"name\": " + jsonString(p.name) +
              ", \"dtype\": " + jsonString(std::string(ir::elementTypeName(p.element))) +
              ", \"shape\": " + shapeText(p.dims, true) +
              ", \"output\": " + (p.is_output ? "true" : "false") + "}";
  std::string text =
      "{\"fusion\": " + jsonString(fusion) + ", \"name\": " + jsonString(k.name) +
      ", \"family\": " + jsonString(k.family) + ", \"grid\": [" +
      std::to_string(k.grid[0]) + ", " + std::to_string(k.grid[1]) + ", " +
      std::to_string(k.grid[2]) + "], \"num_warps\": " + std::to_string(k.num_warps) +
      ", \"params\": [" + params + "], \"source\": " + jsonString(k.source);
  if (ttir != nullptr && ttir->size() == 1) {
    const codegen::ttir::TtirKernel& t = ttir->front();
    text += ", \"ttir_name\": " + jsonString(t.name) +
            ", \"ttir\": " + jsonString(t.ttir) + ", \"ttir_grid\": [" +
            std::to_string(t.grid[0]) + ", " + std::to_string(t.grid[1]) + ", " +
            std::to_string(t.grid[2]) +
            "], \"ttir_num_warps\": " + std::to_string(t.num_warps);
  }
  return text + "}";
}

}  // namespace

int runNative(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  bool json = false, compile = false;
  int arch = 90;
  std::string path;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") {
      out << kNativeHelp;
      return kExitOk;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--compile") {
      compile = true;
    } else if (arg == "--arch") {
      const std::string text = i + 1 < args.size() ? args[++i] : "";
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), arch);
      if (error != std::errc() || end != text.data() + text.size() || arch <= 0) {
        err << "jft native: --arch takes a compute capability such as 90\n"
            << kNativeHelp;
        return kExitUsage;
      }
    } else if (arg.starts_with("-") && arg != "-") {
      err << "jft native: unknown option '" << arg << "'\n" << kNativeHelp;
      return kExitUsage;
    } else if (path.empty()) {
      path = arg;
    } else {
      err << "jft native: one file at a time\n" << kNativeHelp;
      return kExitUsage;
    }
  }
  if (path.empty()) {
    err << "jft native: missing FILE\n" << kNativeHelp;
    return kExitUsage;
  }
  StatusOr<std::vector<uint8_t>> bytes = readFileBytes(path);
  if (!bytes.isOk()) {
    err << "jft native: " << bytes.status().toString() << "\n";
    return kExitFailure;
  }
  StatusOr<ir::Module> imported = frontend::importStableHlo(bytes->data(), bytes->size());
  if (!imported.isOk()) {
    err << "jft native: " << path << ": " << imported.status().toString() << "\n";
    return kExitFailure;
  }
  ir::Module module = std::move(imported).value();
  StatusOr<passes::PipelineReport> passed = passes::runPasses(module);
  if (!passed.isOk()) {
    err << "jft native: " << path << ": " << passed.status().toString() << "\n";
    return kExitFailure;
  }
  const ir::Function* main = module.entry();
  if (main == nullptr) {
    err << "jft native: " << path << ": no entry function\n";
    return kExitFailure;
  }
  // The routes the plugin has, so groups form as they do there.
  fusion::PlanOptions plan_options = codegen::ttir::withTtir();
  plan_options.library_route = true;
  plan_options.control_route = true;
  plan_options.collective_route = true;
  plan_options.custom_call_route = true;
  std::string kernels_json, refused_json;
  int failures = 0;
  // The function's groups, then those of its control ops' regions (while,
  // case, if bodies), planned as the compiler plans them: each region alone.
  std::function<void(const ir::Function&)> emitScope = [&](const ir::Function& scope) {
    const fusion::Plan plan = fusion::planFusions(module, scope, plan_options);
    for (const fusion::Fusion& group : plan.fusions) {
      if (group.route == fusion::Route::kControl) {
        for (size_t at : group.ops) {
          const ir::Op& op = scope.body.ops.at(at);
          for (const ir::Region& region : op.regions) {
            ir::Function inner;
            inner.name = scope.name;
            inner.body = region;
            emitScope(inner);
          }
        }
        continue;
      }
      if (group.route != fusion::Route::kTtir ||
          (group.family != fusion::Family::kLoop &&
           group.family != fusion::Family::kReduction))
        continue;
      StatusOr<codegen::native::NativeKernel> kernel =
          codegen::native::emitNativeKernel(module, scope, group);
      if (!kernel.isOk()) {
        if (json) {
          refused_json += std::string(refused_json.empty() ? "" : ", ") +
                          "{\"fusion\": " + jsonString(group.name) +
                          ", \"error\": " + jsonString(kernel.status().toString()) + "}";
        } else {
          out << "// refused " << group.name << ": " << kernel.status().toString()
              << "\n";
        }
        continue;
      }
      std::string compiled;
      if (compile) {
        StatusOr<std::string> cubin =
            runtime::gpu::compileToCubin(kernel->source, kernel->name, arch);
        if (!cubin.isOk()) {
          err << "jft native: " << group.name << ": " << cubin.status().toString()
              << "\n";
          ++failures;
          continue;
        }
        compiled = ", cubin " + std::to_string(cubin->size()) + " bytes";
      }
      if (json) {
        StatusOr<std::vector<codegen::ttir::TtirKernel>> ttir =
            codegen::ttir::emitKernels(module, scope, group);
        kernels_json += std::string(kernels_json.empty() ? "" : ",\n ") +
                        kernelJson(*kernel, group.name, ttir.isOk() ? &*ttir : nullptr);
        continue;
      }
      out << "// kernel " << kernel->name << " (" << kernel->family << ", " << group.name
          << "): grid " << kernel->grid[0] << ", " << kernel->num_warps << " warps"
          << compiled << "\n";
      for (const codegen::native::NativeParam& p : kernel->params)
        out << "//   " << p.c_type << " " << p.name << ": "
            << ir::elementTypeName(p.element) << "[" << shapeText(p.dims, false) << "]\n";
      out << kernel->source << "\n";
    }
  };
  emitScope(*main);
  if (json)
    out << "{\"kernels\": [" << kernels_json << "],\n \"refused\": [" << refused_json
        << "]}\n";
  return failures == 0 ? kExitOk : kExitFailure;
}

}  // namespace jft::tools
