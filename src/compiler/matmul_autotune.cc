#include "compiler/matmul_autotune.h"

#include <cstdio>
#include <iostream>
#include <set>
#include <thread>

#include "fusion/matmul_form.h"
#include "fusion/ttir_support.h"
#include "ir/builder.h"
#include "kernel_compiler/cache_dir.h"

namespace jft::compiler {
namespace {

void forEachOp(const ir::Region& region,
               const std::function<void(const ir::Op&)>& visit) {
  for (const ir::Op& op : region.ops) {
    visit(op);
    for (const ir::Region& nested : op.regions) forEachOp(nested, visit);
  }
}

// The dot alone over parameters of its operand types (layouts are the
// types': row-major dims, read through the same dimension numbers).
ir::Module dotModule(const ir::Module& module, const ir::Op& dot) {
  ir::Module out;
  out.name = "autotune_dot";
  ir::Builder b(out);
  const ir::Type result = module.typeOf(dot.results[0]);
  std::vector<ir::ValueId> args = b.beginFunction(
      "main", {module.typeOf(dot.operands[0]), module.typeOf(dot.operands[1])}, {result});
  b.ret({b.op1(ir::OpKind::DotGeneral, {args[0], args[1]}, result, dot.attrs)});
  b.endFunction();
  return out;
}

Options candidateOptions(const Options& options, const std::string& signature,
                         const MatmulCandidate& candidate) {
  Options o = options;
  o.autotune_level = 0;
  o.measurer = nullptr;
  o.log = false;
  o.dump_dir.clear();
  o.matmul_routes.clear();
  o.matmul_tiles.clear();
  o.matmul =
      candidate.library ? fusion::MatmulRoute::kLibrary : fusion::MatmulRoute::kTtir;
  if (!candidate.library) o.matmul_tiles[signature] = candidate.tile;
  return o;
}

std::string cacheDirOf(const Options& options) {
  if (!options.autotune_cache_dir.empty()) return options.autotune_cache_dir;
  StatusOr<std::string> dir = kernel_compiler::defaultCacheDir();
  return dir.isOk() ? *dir : std::string();
}

class Tuner {
 public:
  Tuner(const Options& options, kernel_compiler::KernelCompiler* kernel_compiler,
        Measurer& measurer)
      : options_(options),
        kernel_compiler_(kernel_compiler),
        measurer_(measurer),
        device_(measurer.deviceKey()),
        cache_dir_(cacheDirOf(options)) {}

  std::string takeTranscript() { return std::move(transcript_); }

  // Measures (or reads) the decision for one dot.
  std::optional<MatmulDecision> decide(const ir::Module& module, const ir::Op& dot,
                                       const std::string& signature) {
    const std::string key = autotuneKey(signature, device_);
    if (!cache_dir_.empty()) {
      std::string why;
      if (std::optional<MatmulDecision> cached = readDecision(cache_dir_, key, &why)) {
        log(signature + ": " + autotuneNote(*cached));
        return cached;
      }
      if (!why.empty()) log("ignoring a bad cache entry (" + why + ")");
    }
    std::optional<fusion::MatmulForm> form = fusion::matmulFormOf(module, dot);
    if (!form) return std::nullopt;
    const std::vector<MatmulCandidate> candidates = matmulCandidates(*form);
    log("measuring " + std::to_string(candidates.size()) + " candidates on " + device_ +
        " for " + signature);
    std::vector<std::optional<double>> micros =
        measure(module, dot, signature, candidates);
    std::optional<MatmulDecision> decision = pickWinner(candidates, micros);
    if (!decision) {
      log("nothing could be measured for " + signature + "; the cost model decides");
      return std::nullopt;
    }
    log(autotuneNote(*decision));
    if (!cache_dir_.empty()) {
      Status written = writeDecision(cache_dir_, key, *decision);
      if (!written.isOk()) log("the decision was not cached: " + written.message());
    }
    return decision;
  }

 private:
  std::vector<std::optional<double>> measure(
      const ir::Module& module, const ir::Op& dot, const std::string& signature,
      const std::vector<MatmulCandidate>& candidates) {
    // Compiled in parallel: the kernel compiler's pool serves every thread.
    std::vector<std::optional<StatusOr<Executable>>> built(candidates.size());
    {
      std::vector<std::thread> threads;
      for (size_t i = 0; i < candidates.size(); ++i)
        threads.emplace_back([&, i] {
          built[i] = compileModule(dotModule(module, dot),
                                   candidateOptions(options_, signature, candidates[i]),
                                   kernel_compiler_);
        });
      for (std::thread& t : threads) t.join();
    }
    // Timed one at a time: candidates sharing the device would disturb
    // each other's times.
    std::vector<std::optional<double>> micros(candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      const std::string name = candidateName(candidates[i]);
      if (!built[i]->isOk()) {
        log(name + " skipped: " + built[i]->status().message());
        continue;
      }
      StatusOr<double> time = measurer_.time((*built[i])->program, name);
      if (!time.isOk()) {
        log(name + " skipped: " + time.status().message());
        continue;
      }
      char text[64];
      std::snprintf(text, sizeof text, " %.1f us", *time);
      log(name + text);
      micros[i] = *time;
    }
    return micros;
  }

  // Each line goes to the transcript (the dump's autotune.txt) and, with
  // XLA_FLAGTREE_LOG=1, to stderr.
  void log(const std::string& line) {
    transcript_ += line + "\n";
    if (options_.log) std::cerr << "jax-flagtree: autotune: " << line << "\n";
  }

  const Options& options_;
  kernel_compiler::KernelCompiler* kernel_compiler_;
  Measurer& measurer_;
  std::string device_;
  std::string cache_dir_;
  std::string transcript_;
};

}  // namespace

bool autotunable(const ir::Module& module, const ir::Op& op, const Options& options) {
  if (options.matmul != fusion::MatmulRoute::kAuto || op.kind != ir::OpKind::DotGeneral)
    return false;
  // Every product the TTIR family takes: f32 under tf32 too, since its
  // kernels round operand tiles to TF32 as cuBLASLt does.
  return fusion::matmulFormOf(module, op).has_value();
}

std::optional<MatmulDecision> pickWinner(
    const std::vector<MatmulCandidate>& candidates,
    const std::vector<std::optional<double>>& micros) {
  std::optional<MatmulDecision> best;
  for (size_t i = 0; i < candidates.size() && i < micros.size(); ++i) {
    if (!micros[i] || (best && *micros[i] >= best->micros)) continue;
    best = MatmulDecision{candidates[i], *micros[i], 0, false};
  }
  if (best) best->candidates = static_cast<int>(candidates.size());
  return best;
}

std::string autotuneNote(const MatmulDecision& decision) {
  char time[32];
  std::snprintf(time, sizeof time, "%.1f", decision.micros);
  return std::string(decision.cached ? "autotuned (cached): " : "autotuned: ") +
         candidateName(decision.winner) + " (" + time + " us) over " +
         std::to_string(decision.candidates) + " candidates";
}

AutotuneResult autotuneMatmuls(const ir::Module& module, const ir::Function& function,
                               const Options& options,
                               kernel_compiler::KernelCompiler* kernel_compiler,
                               Measurer& measurer) {
  AutotuneResult result;
  std::vector<std::pair<std::string, const ir::Op*>> dots;
  // The planner keeps a dot reading a splat constant on the library (the
  // matmul kernel loads its operands from memory): nothing to measure.
  std::set<ir::ValueId> splats;
  forEachOp(function.body, [&](const ir::Op& op) {
    if (fusion::isSplatConstant(op)) splats.insert(op.results.begin(), op.results.end());
    if (!autotunable(module, op, options)) return;
    for (ir::ValueId operand : op.operands)
      if (splats.count(operand) != 0) return;
    std::string signature = fusion::matmulSignature(module, op);
    for (const auto& [seen, unused] : dots)
      if (seen == signature) return;
    dots.emplace_back(std::move(signature), &op);
  });
  if (dots.empty()) return result;
  Tuner tuner(options, kernel_compiler, measurer);
  for (const auto& [signature, dot] : dots) {
    std::optional<MatmulDecision> decision = tuner.decide(module, *dot, signature);
    if (!decision) continue;
    result.routes[signature] =
        decision->winner.library ? fusion::Route::kLibrary : fusion::Route::kTtir;
    if (!decision->winner.library) result.tiles[signature] = decision->winner.tile;
    result.notes[signature] = autotuneNote(*decision);
  }
  result.transcript = tuner.takeTranscript();
  return result;
}

}  // namespace jft::compiler
