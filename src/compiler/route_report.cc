// Route report rows, table, summary and log lines.
#include "compiler/route_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "compiler/control_regions.h"
#include "fusion/matmul_form.h"

namespace jft::compiler {
namespace {

constexpr std::array kRouteOrder = {
    fusion::Route::kTtir,       fusion::Route::kLibrary,    fusion::Route::kControl,
    fusion::Route::kCollective, fusion::Route::kCustomCall, fusion::Route::kCopy,
    fusion::Route::kNative,     fusion::Route::kNone};

std::string seconds(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2fs", s);
  return text;
}

std::string pad(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text;
}

// The autotuner's note for the dot of `group`, if it measured one.
std::string autotuneNoteOf(const ir::Module& module, const ir::Function& scope,
                           const fusion::Fusion& group,
                           const std::map<std::string, std::string>& notes) {
  if (notes.empty()) return "";
  for (size_t at : group.ops) {
    if (at >= scope.body.ops.size()) continue;
    const ir::Op& op = scope.body.ops[at];
    if (op.kind != ir::OpKind::DotGeneral) continue;
    auto it = notes.find(fusion::matmulSignature(module, op));
    if (it != notes.end()) return it->second;
  }
  return "";
}

// A group of several kernels: their tiles joined, compile times summed.
void addKernels(RouteEntry& entry, const codegen::GroupCode& code,
                const std::vector<kernel_compiler::CompiledKernel>& compiled) {
  for (size_t k = 0; k < code.kernels.size(); ++k) {
    entry.tile += (k == 0 ? "" : " + ") + code.kernels[k].tile;
    const size_t at = static_cast<size_t>(code.first_kernel) + k;
    if (code.first_kernel < 0 || at >= compiled.size()) continue;
    entry.compiled = true;
    entry.compile_seconds += compiled[at].compile_seconds;
    for (const auto& [stage, seconds] : compiled[at].stage_seconds) {
      auto same = std::find_if(entry.stage_seconds.begin(), entry.stage_seconds.end(),
                               [&](const auto& known) { return known.first == stage; });
      if (same == entry.stage_seconds.end())
        entry.stage_seconds.emplace_back(stage, seconds);
      else
        same->second += seconds;
    }
    entry.cache_hit = (k == 0 || entry.cache_hit) && compiled[at].cache_hit;
  }
}

void addRows(const ir::Module& module, const ir::Function& scope, const RegionCode& code,
             const std::vector<kernel_compiler::CompiledKernel>& compiled,
             const std::map<std::string, std::string>& notes, bool log,
             RouteReport& report) {
  for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
    const fusion::Fusion& group = code.plan.fusions[g];
    RouteEntry entry = routeEntry(module, scope, group);
    entry.autotune = autotuneNoteOf(module, scope, group, notes);
    if (auto why = code.native_reasons.find(g); why != code.native_reasons.end())
      entry.native_reason = why->second;
    if (g < code.groups.size() && !code.groups[g].empty()) {
      const codegen::GroupCode& made = code.groups[g];
      if (made.call)
        entry.tile = made.text;
      else
        addKernels(entry, made, compiled);
      if (log) std::cerr << logLine(entry) << "\n";
    } else if (g < code.groups.size() && !code.groups[g].joined.empty()) {
      entry.tile = "in " + code.groups[g].joined;
    }
    report.entries.push_back(std::move(entry));
  }
}

}  // namespace

RouteReport programReport(const ir::Module& module, const ir::Function& function,
                          RegionCode& top,
                          const std::vector<kernel_compiler::CompiledKernel>& compiled,
                          const std::map<std::string, std::string>& autotune_notes,
                          bool log) {
  RouteReport report;
  addRows(module, function, top, compiled, autotune_notes, log, report);
  for (RegionCode* region : nestedRegions(top))
    addRows(module, region->scope, *region, compiled, autotune_notes, log, report);
  return report;
}

RouteEntry routeEntry(const ir::Module& module, const ir::Function& function,
                      const fusion::Fusion& group) {
  RouteEntry entry;
  entry.name = group.name;
  entry.route = fusion::routeName(group.route);
  entry.family = fusion::familyName(group.family);
  std::set<ir::OpKind> seen;
  for (size_t index : group.ops) {
    if (index >= function.body.ops.size()) continue;
    ir::OpKind kind = function.body.ops[index].kind;
    if (!seen.insert(kind).second) continue;
    if (!entry.ops.empty()) entry.ops += ", ";
    entry.ops += ir::opKindName(kind);
  }
  for (ir::ValueId output : group.outputs) {
    if (!entry.shapes.empty()) entry.shapes += ", ";
    entry.shapes += output < module.numValues() ? module.typeOf(output).str() : "?";
  }
  return entry;
}

std::string routeSummary(const RouteReport& report) {
  std::map<std::string, int> counts;
  for (const RouteEntry& entry : report.entries) ++counts[entry.route];
  std::string out = std::to_string(report.entries.size()) +
                    (report.entries.size() == 1 ? " kernel" : " kernels");
  std::string parts;
  auto add = [&](const std::string& route) {
    auto it = counts.find(route);
    if (it == counts.end()) return;
    parts += (parts.empty() ? ": " : ", ") + route + " " + std::to_string(it->second);
    counts.erase(it);
  };
  for (fusion::Route route : kRouteOrder) add(fusion::routeName(route));
  while (!counts.empty()) add(counts.begin()->first);
  return out + parts;
}

std::string RouteReport::text() const {
  const std::array<std::string, 8> heads = {"kernel", "route", "family", "ops",
                                            "shapes", "tile",  "time",   "cache"};
  std::vector<std::array<std::string, 8>> rows;
  for (const RouteEntry& e : entries) {
    rows.push_back({e.name, e.route, e.family, e.ops, e.shapes,
                    e.tile.empty() ? "-" : e.tile,
                    e.compiled ? seconds(e.compile_seconds) : "-",
                    e.compiled ? (e.cache_hit ? "hit" : "miss") : "-"});
  }
  std::array<size_t, 8> widths{};
  for (size_t c = 0; c < heads.size(); ++c) {
    widths[c] = heads[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  auto line = [&](const std::array<std::string, 8>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c)
      out += c + 1 == cells.size() ? cells[c] : pad(cells[c], widths[c]) + "  ";
    return out + "\n";
  };
  // The autotuner's decision ends its row (after the cache column), so the
  // table of an untuned program stays as it was.
  std::string out = line(heads);
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string row = line(rows[r]);
    if (!entries[r].autotune.empty()) {
      row.pop_back();
      row += "  " + entries[r].autotune + "\n";
    }
    out += row;
  }
  return out + routeSummary(*this) + "\n";
}

std::string logLine(const RouteEntry& entry) {
  std::string ops;
  for (char c : entry.ops)
    if (c != ' ') ops.push_back(c);
  std::string out = "jax-flagtree: " + entry.name + " " + entry.route + "/" +
                    entry.family + " " + ops + " " + entry.shapes;
  if (!entry.tile.empty()) out += " tile=" + entry.tile;
  if (!entry.autotune.empty()) out += " " + entry.autotune;
  if (!entry.compiled) {
    out += " (not compiled)";
  } else {
    out += " " + seconds(entry.compile_seconds);
    out += entry.cache_hit ? " (cache hit)" : " (cache miss)";
    if (!entry.stage_seconds.empty()) {
      std::string stages;
      for (const auto& [stage, time] : entry.stage_seconds)
        stages += (stages.empty() ? "" : " ") + stage + " " + seconds(time);
      out += " [" + stages + "]";
    }
  }
  if (!entry.native_reason.empty()) out += " [native: " + entry.native_reason + "]";
  return out;
}

}  // namespace jft::compiler
