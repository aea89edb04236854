// Route report rows, table, summary and the log line.
#include "compiler/route_report.h"

#include <gtest/gtest.h>

#include "ir/builder.h"

namespace jft::compiler {
namespace {

TEST(RouteReport, EntryListsDistinctOpKindsAndOutputTypes) {
  ir::Module m;
  ir::Builder b(m);
  ir::Type t = ir::Type::tensor(ir::ElementType::F32, {256});
  auto args = b.beginFunction("main", {t}, {t, t});
  ir::ValueId a = b.op1(ir::OpKind::Tanh, {args[0]}, t);
  ir::ValueId c = b.op1(ir::OpKind::Add, {a, a}, t);
  ir::ValueId d = b.op1(ir::OpKind::Tanh, {c}, t);
  b.ret({c, d});
  const ir::Function& f = b.endFunction();
  fusion::Fusion group;
  group.name = "fusion_0_loop_tanh_add";
  group.route = fusion::Route::kTtir;
  group.family = fusion::Family::kLoop;
  group.ops = {0, 1, 2};
  group.outputs = {c, d};
  RouteEntry e = routeEntry(m, f, group);
  EXPECT_EQ(e.name, "fusion_0_loop_tanh_add");
  EXPECT_EQ(e.route, "ttir");
  EXPECT_EQ(e.family, "loop");
  EXPECT_EQ(e.ops, "tanh, add");
  EXPECT_EQ(e.shapes, "tensor<256xf32>, tensor<256xf32>");
}

RouteEntry entry(std::string name, std::string route, bool compiled = false) {
  RouteEntry e;
  e.name = std::move(name);
  e.route = std::move(route);
  e.family = e.route == "ttir" ? "loop" : "none";
  e.ops = e.route == "ttir" ? "tanh, add, multiply" : "constant";
  e.shapes = "tensor<256xf32>";
  e.tile = e.route == "ttir" ? "256" : "";
  e.compiled = compiled;
  e.compile_seconds = 0.414;
  return e;
}

TEST(RouteReport, SummaryCountsRoutesInRouteOrder) {
  RouteReport report;
  report.entries = {entry("c0", "none"), entry("f1", "ttir"), entry("f2", "ttir"),
                    entry("c3", "none"), entry("f4", "ttir"), entry("f5", "ttir"),
                    entry("f6", "ttir")};
  EXPECT_EQ(routeSummary(report), "7 kernels: ttir 5, none 2");
  EXPECT_EQ(routeSummary(RouteReport{}), "0 kernels");
  RouteReport one;
  one.entries = {entry("f", "ttir")};
  EXPECT_EQ(routeSummary(one), "1 kernel: ttir 1");
}

TEST(RouteReport, TableHasAHeadARowPerEntryAndTheSummary) {
  RouteReport report;
  report.entries = {entry("fusion_0_loop_tanh_add", "ttir", true),
                    entry("const_1", "none")};
  report.entries[0].cache_hit = true;
  std::string text = report.text();
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(text.substr(at, nl - at));
  ASSERT_EQ(lines.size(), 4u) << text;
  EXPECT_EQ(lines[0].rfind("kernel", 0), 0u) << lines[0];
  EXPECT_NE(lines[1].find("fusion_0_loop_tanh_add"), std::string::npos);
  EXPECT_NE(lines[1].find("0.41s"), std::string::npos) << lines[1];
  EXPECT_NE(lines[1].find("hit"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2].rfind("const_1", 0), 0u) << lines[2];
  EXPECT_EQ(lines[2].find("0.41s"), std::string::npos) << lines[2];  // nothing compiled
  EXPECT_EQ(lines[3], "2 kernels: ttir 1, none 1");
  // Columns line up: every row has its route where the head has "route".
  size_t column = lines[0].find("route");
  EXPECT_EQ(lines[1].substr(column, 4), "ttir");
  EXPECT_EQ(lines[2].substr(column, 4), "none");
}

TEST(RouteReport, LogLine) {
  EXPECT_EQ(logLine(entry("fusion_3_loop_tanh_add", "ttir", true)),
            "jax-flagtree: fusion_3_loop_tanh_add ttir/loop tanh,add,multiply "
            "tensor<256xf32> tile=256 0.41s (cache miss)");
  RouteEntry hit = entry("f", "ttir", true);
  hit.cache_hit = true;
  EXPECT_NE(logLine(hit).find("(cache hit)"), std::string::npos);
  EXPECT_NE(logLine(entry("f", "ttir")).find("(not compiled)"), std::string::npos);
  // A fresh compile's time per stage ends the line.
  RouteEntry staged = entry("g", "ttir", true);
  staged.stage_seconds = {{"ttgir", 0.3}, {"llir", 0.1}};
  EXPECT_EQ(logLine(staged),
            "jax-flagtree: g ttir/loop tanh,add,multiply tensor<256xf32> tile=256 0.41s "
            "(cache miss) [ttgir 0.30s llir 0.10s]");
}

}  // namespace
}  // namespace jft::compiler
