// The control route on the zoo's loops and conditional: trip counts proven
// or not, the thunks each op becomes, loop-carried slots kept apart from the
// body's temps, and (with the fake worker's binaries) programs the runtime
// accepts.
#include <gtest/gtest.h>

#include <set>

#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "compiler/zoo_fixture.h"
#include "ir/builder.h"
#include "runtime/program_check.h"

#ifdef JFT_FAKE_WORKER
#include <filesystem>

#include "kernel_compiler/fake_worker_command.h"
#include "kernel_compiler/kernel_compiler.h"
#endif

namespace jft::compiler {
namespace {

using runtime::BufferSlot;

runtime::Program compileZoo(const std::string& name, Mode mode = Mode::kFlOnly) {
  Options options;
  options.mode = mode;
  StatusOr<Executable> built = compile(testing::zooArtifact(name), options, nullptr);
  EXPECT_TRUE(built.isOk()) << built.status().toString();
  return built.isOk() ? built->program : runtime::Program{};
}

template <typename T>
std::vector<const T*> topLevel(const runtime::Program& p) {
  std::vector<const T*> out;
  for (const runtime::Thunk& t : p.thunks)
    if (const auto* x = std::get_if<T>(&t)) out.push_back(x);
  return out;
}

// Slots a list (and the lists it names) reads or writes.
void slotsUsed(const runtime::Program& p, const std::vector<runtime::Thunk>& list,
               std::set<int>& out) {
  for (const runtime::Thunk& t : list) {
    if (const auto* launch = std::get_if<runtime::LaunchThunk>(&t)) {
      out.insert(launch->buffers.begin(), launch->buffers.end());
    } else if (const auto* copy = std::get_if<runtime::CopyThunk>(&t)) {
      out.insert({copy->source, copy->destination});
    } else if (const auto* loop = std::get_if<runtime::WhileThunk>(&t)) {
      out.insert(loop->predicate);
      if (loop->pingPong()) out.insert(loop->odd_predicate);
      for (int list : loop->lists()) slotsUsed(p, p.lists.at(list), out);
    } else if (const auto* cond = std::get_if<runtime::ConditionalThunk>(&t)) {
      out.insert(cond->index);
      for (int b : cond->branches) slotsUsed(p, p.lists.at(b), out);
    }
  }
}

bool overlap(const BufferSlot& a, const BufferSlot& b) {
  if (a.bytes == 0 || b.bytes == 0) return false;
  return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

// A temp used before the loop and inside it lives through every iteration:
// it may share no bytes with a temp used only inside the loop.
void expectCarriedTempsApart(const runtime::Program& p) {
  for (size_t w = 0; w < p.thunks.size(); ++w) {
    const auto* loop = std::get_if<runtime::WhileThunk>(&p.thunks[w]);
    if (loop == nullptr) continue;
    std::set<int> before, inside;
    slotsUsed(p, {p.thunks.begin(), p.thunks.begin() + static_cast<long>(w)}, before);
    slotsUsed(p, {p.thunks[w]}, inside);
    for (int a : inside) {
      if (a < 0 || p.slots[a].kind != BufferSlot::Kind::kTemp || !before.count(a))
        continue;
      for (int b : inside) {
        if (b == a || b < 0 || p.slots[b].kind != BufferSlot::Kind::kTemp ||
            before.count(b))
          continue;
        EXPECT_FALSE(overlap(p.slots[a], p.slots[b]))
            << "carried temp slot " << a << " shares bytes with body temp slot " << b;
      }
    }
  }
}

TEST(ControlRoute, ForiLoopHasAKnownTripCount) {
  runtime::Program p = compileZoo("fori");
  auto loops = topLevel<runtime::WhileThunk>(p);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0]->trip_count, 10) << "fori_loop(0, 10, ...)";
  // The returned carried value lives in the output slot and a second slot:
  // the even body computes the next value from the output into the second
  // slot, the odd body back, so neither copies; only an odd number of
  // bodies ends with a copy back into the output (the exit list).
  const int out = p.output_slots.at(0);
  ASSERT_TRUE(loops[0]->pingPong());
  const auto& body = p.lists.at(loops[0]->body);
  for (int list : {loops[0]->body, loops[0]->odd_body})
    for (const runtime::Thunk& t : p.lists.at(list))
      EXPECT_FALSE(std::holds_alternative<runtime::CopyThunk>(t)) << "list " << list;
  auto uses = [&](int list, int slot) {
    for (const runtime::Thunk& t : p.lists.at(list))
      if (const auto* l = std::get_if<runtime::LaunchThunk>(&t))
        if (std::find(l->buffers.begin(), l->buffers.end(), slot) != l->buffers.end())
          return true;
    return false;
  };
  EXPECT_TRUE(uses(loops[0]->body, out));
  EXPECT_TRUE(uses(loops[0]->odd_body, out));
  // The exit copies back all three carried values (i, the counter, x).
  const auto& exit = p.lists.at(loops[0]->odd_exit);
  ASSERT_EQ(exit.size(), 3u);
  EXPECT_EQ(std::get<runtime::CopyThunk>(exit[2]).destination, out);
  EXPECT_TRUE(std::holds_alternative<runtime::WhileThunk>(p.thunks.back()));
  size_t launches = 0;
  for (const runtime::Thunk& t : body)
    launches += std::holds_alternative<runtime::LaunchThunk>(t);
  EXPECT_GE(launches, 1u) << "the body's sine/multiply/add run as kernels";
  expectCarriedTempsApart(p);
}

TEST(ControlRoute, DataDependentLoopReadsItsPredicate) {
  runtime::Program p = compileZoo("while_dyn");
  auto loops = topLevel<runtime::WhileThunk>(p);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0]->trip_count, -1) << "the f32 sum decides when it stops";
  ASSERT_GE(loops[0]->predicate, 0);
  EXPECT_EQ(p.slots.at(loops[0]->predicate).bytes, 1u);
  EXPECT_FALSE(p.lists.at(loops[0]->cond).empty()) << "the compare is a kernel";
  // Both results are carried in their output slots.
  std::set<int> inside;
  slotsUsed(p, {p.thunks.back()}, inside);
  for (int out : p.output_slots) EXPECT_TRUE(inside.count(out)) << out;
  expectCarriedTempsApart(p);
}

TEST(ControlRoute, CaseBecomesAConditionalWithTwoBranches) {
  runtime::Program p = compileZoo("cond");
  auto conditionals = topLevel<runtime::ConditionalThunk>(p);
  ASSERT_EQ(conditionals.size(), 1u);
  const runtime::ConditionalThunk& c = *conditionals[0];
  EXPECT_FALSE(c.predicate) << "stablehlo.case on an i32 index";
  EXPECT_EQ(p.slots.at(c.index).bytes, 4u);
  ASSERT_EQ(c.branches.size(), 2u);
  const int out = p.output_slots.at(0);
  for (int b : c.branches) {
    std::set<int> used;
    slotsUsed(p, p.lists.at(b), used);
    EXPECT_TRUE(used.count(out)) << "branch list " << b << " writes the result";
    size_t launches = 0, copies = 0;
    for (const runtime::Thunk& t : p.lists.at(b)) {
      launches += std::holds_alternative<runtime::LaunchThunk>(t);
      copies += std::holds_alternative<runtime::CopyThunk>(t);
    }
    EXPECT_EQ(launches, 1u) << "cosine / exponential";
    EXPECT_EQ(copies, 0u) << "the branch's kernel writes the result's slot itself";
  }
}

// main(x: f32[64]) = while (i < 5) { i + 1, if (i < 2) sin(x) else cos(x) }: the
// branch's result is a next carried value the body computes, so each parity's
// branch kernel writes that parity's other set, never the set it reads.
TEST(ControlRoute, ABranchInsideATwoSetLoopWritesTheOtherSet) {
  using ir::ElementType;
  using ir::OpKind;
  using ir::Type;
  using testing::f32;
  ir::Module m;
  m.name = "branch_loop";
  ir::Builder b(m);
  const Type i32 = Type::scalar(ElementType::I32);
  const Type pred = Type::scalar(ElementType::PRED);
  auto args = b.beginFunction("main", {f32({64})}, {f32({64})});
  auto constant = [&](uint8_t v) {
    return b.constant(ir::DenseElements::makeSplat(i32, {v, 0, 0, 0}));
  };
  auto zero = constant(0), one = constant(1), two = constant(2), five = constant(5);
  auto less = [&](ir::ValueId a, ir::ValueId c) {
    return b.op1(OpKind::Compare, {a, c}, pred,
                 {{"comparison_direction", ir::Attribute(ir::ComparisonDirection::LT)}});
  };
  auto cond = b.beginRegion({i32, f32({64})});
  b.ret({less(cond[0], five)});
  ir::Region cond_region = b.endRegion();
  auto body = b.beginRegion({i32, f32({64})});
  auto next = b.op1(OpKind::Add, {body[0], one}, i32);
  b.beginRegion({});
  b.ret({b.op1(OpKind::Sine, {body[1]}, f32({64}))});
  ir::Region then_region = b.endRegion();
  b.beginRegion({});
  b.ret({b.op1(OpKind::Cosine, {body[1]}, f32({64}))});
  ir::Region else_region = b.endRegion();
  std::vector<ir::Region> branches;
  branches.push_back(std::move(then_region));
  branches.push_back(std::move(else_region));
  auto picked =
      b.op(OpKind::If, {less(body[0], two)}, {f32({64})}, {}, std::move(branches));
  b.ret({next, picked[0]});
  ir::Region body_region = b.endRegion();
  std::vector<ir::Region> regions;
  regions.push_back(std::move(cond_region));
  regions.push_back(std::move(body_region));
  auto loop =
      b.op(OpKind::While, {zero, args[0]}, {i32, f32({64})}, {}, std::move(regions));
  b.ret({loop[1]});
  b.endFunction();
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> built = compileModule(std::move(m), options, nullptr, nullptr);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const runtime::Program& p = built->program;
  auto loops = topLevel<runtime::WhileThunk>(p);
  ASSERT_EQ(loops.size(), 1u);
  ASSERT_TRUE(loops[0]->pingPong());
  // Each branch is one kernel (x in, the result out) and copies nothing.
  auto branchSlots = [&](int body_list) {
    std::vector<std::pair<int, int>> in_out;
    for (const runtime::Thunk& t : p.lists.at(body_list))
      if (const auto* c = std::get_if<runtime::ConditionalThunk>(&t))
        for (int branch : c->branches)
          for (const runtime::Thunk& k : p.lists.at(branch)) {
            EXPECT_FALSE(std::holds_alternative<runtime::CopyThunk>(k));
            if (const auto* l = std::get_if<runtime::LaunchThunk>(&k))
              in_out.push_back({l->buffers.at(0), l->buffers.at(1)});
          }
    return in_out;
  };
  const auto even = branchSlots(loops[0]->body), odd = branchSlots(loops[0]->odd_body);
  ASSERT_EQ(even.size(), 2u);
  ASSERT_EQ(odd.size(), 2u);
  const int out = p.output_slots.at(0);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(even[i].first, out) << "even iterations read the first set";
    EXPECT_NE(even[i].second, out);
    EXPECT_EQ(odd[i].first, even[i].second) << "odd iterations read the second set";
    EXPECT_EQ(odd[i].second, out) << "and write the first";
  }
}

TEST(ControlRoute, KernelsOfRegionsAreNamedAfterTheirOp) {
  Options options;
  options.mode = Mode::kFlOnly;
  Stages stages;
  StatusOr<Executable> built =
      compile(testing::zooArtifact("cond"), options, nullptr, &stages);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  std::set<std::string> names(stages.kernel_names.begin(), stages.kernel_names.end());
  EXPECT_EQ(names.size(), stages.kernel_names.size()) << "kernel names are unique";
  size_t branch_kernels = 0;
  for (const std::string& n : names) branch_kernels += n.rfind("case_", 0) == 0;
  EXPECT_EQ(branch_kernels, 2u);
}

#ifdef JFT_FAKE_WORKER
class ControlRouteBinaries : public ::testing::TestWithParam<std::string> {};

TEST_P(ControlRouteBinaries, ProgramsPassTheRuntimesCheck) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() /
                 ("jft_control_route_" + std::to_string(::getpid()) + "_" + GetParam());
  fs::remove_all(dir);
  kernel_compiler::KernelCompilerOptions kc;
  kc.pool = kernel_compiler::testing::fakePoolOptions(2, (dir / "failures").string());
  kc.cache_dir = (dir / "cache").string();
  auto compiler = kernel_compiler::KernelCompiler::create(std::move(kc));
  ASSERT_TRUE(compiler.isOk()) << compiler.status().toString();
  Options options;
  options.mode = Mode::kFlOnly;
  StatusOr<Executable> built =
      compile(testing::zooArtifact(GetParam()), options, compiler->get());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  Status loadable = runtime::checkProgram(built->program, 32);
  EXPECT_TRUE(loadable.isOk()) << loadable.toString();
  // Every kernel is launched from some list.
  std::set<int> launched;
  auto collect = [&](const std::vector<runtime::Thunk>& list) {
    for (const runtime::Thunk& t : list)
      if (const auto* l = std::get_if<runtime::LaunchThunk>(&t))
        launched.insert(l->kernel);
  };
  collect(built->program.thunks);
  for (const auto& list : built->program.lists) collect(list);
  EXPECT_EQ(launched.size(), built->program.kernels.size());
  compiler->reset();
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ControlRouteBinaries,
                         ::testing::Values("fori", "while_dyn", "cond"));
#endif

}  // namespace
}  // namespace jft::compiler
