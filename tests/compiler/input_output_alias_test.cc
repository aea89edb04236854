// Donation attributes and the in-place safety rule.
#include "compiler/input_output_alias.h"

#include <gtest/gtest.h>

#include "ir/builder.h"

namespace jft::compiler {
namespace {

using runtime::BufferSlot;
using Kind = runtime::BufferSlot::Kind;

TEST(DonationRequests, ReadsAliasingOutputAndBufferDonor) {
  ir::Module m;
  ir::Builder b(m);
  ir::Type t = ir::Type::tensor(ir::ElementType::F32, {4});
  auto args = b.beginFunction("main", {t, t, t, t}, {t});
  b.ret({args[0]});
  ir::Function& f = b.endFunction();
  f.arg_attrs[0] = {{"tf.aliasing_output", int64_t{0}}};
  f.arg_attrs[1] = {{"jax.buffer_donor", true}};
  f.arg_attrs[2] = {{"jax.buffer_donor", false},
                    {"mhlo.sharding", std::string("{replicated}")}};
  EXPECT_EQ(donationRequests(f), (std::vector<int>{0, kAnyOutput, -1, -1}));
}

// Two parameters, two outputs, 256 bytes each; thunks given per test.
runtime::Program twoByTwo() {
  runtime::Program p;
  p.slots = {{Kind::kParameter, 256, 0},
             {Kind::kParameter, 256, 1},
             {Kind::kOutput, 256, 0},
             {Kind::kOutput, 256, 1},
             {Kind::kTemp, 256, -1, 0}};
  p.output_slots = {2, 3};
  p.parameter_bytes = {256, 256};
  return p;
}

TEST(AssignOutputAliases, GrantedWhenEveryReadOfTheParameterComesFirst) {
  runtime::Program p = twoByTwo();
  // t = f(p0); out0 = g(t, p1); out1 = h(t)
  p.thunks = {runtime::LaunchThunk{0, {1, 1, 1}, {0, 4}},
              runtime::LaunchThunk{1, {1, 1, 1}, {4, 1, 2}},
              runtime::LaunchThunk{2, {1, 1, 1}, {4, 3}}};
  assignOutputAliases({0, kAnyOutput}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, 1}));
}

TEST(AssignOutputAliases, ACollectiveNeverWritesOverWhatItReads) {
  runtime::Program p = twoByTwo();
  runtime::CollectiveDesc d;  // the sizes do not matter here, only the slots
  // out0 = all_reduce(p0): read and written by one thunk, so p0's memory
  // cannot be out0's. t = f(p1), then the replica id into out1: the id
  // thunk touches only its destination, after p1's last read, so p1 may
  // become out1.
  p.thunks = {runtime::CollectiveThunk{d, {}, 0, 2},
              runtime::LaunchThunk{0, {1, 1, 1}, {1, 4}},
              runtime::ParticipantIdThunk{false, 3}};
  assignOutputAliases({0, 1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, 1}));
  // A collective reading p1 after out1 is written takes that away.
  p.thunks.push_back(runtime::CollectiveThunk{d, {}, 1, 4});
  assignOutputAliases({0, 1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
}

TEST(AssignOutputAliases, GemmsTouchOnlyTheirOwnSlots) {
  runtime::Program p = twoByTwo();
  runtime::GemmDesc g;  // the sizes do not matter here, only the slots
  // t = p0 x p1; out0 = t x t; out1 = f(t): p0 is read before either output
  // is written, p1 too; a gemm reading p1 after out1's write would refuse.
  p.thunks = {runtime::GemmThunk{g, 0, 1, 4}, runtime::GemmThunk{g, 4, 4, 2},
              runtime::LaunchThunk{0, {1, 1, 1}, {4, 3}}};
  assignOutputAliases({0, 1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, 1}));
  p.thunks.push_back(runtime::GemmThunk{g, 4, 1, 4});
  assignOutputAliases({0, 1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, -1}));
}

TEST(AssignOutputAliases, RefusedWhenTheParameterIsReadAtOrAfterTheWrite) {
  runtime::Program p = twoByTwo();
  // out0 = f(p0) in one kernel (reads and writes at once); out1 = g(p1) before
  // a later kernel reads p1 again.
  p.thunks = {runtime::LaunchThunk{0, {1, 1, 1}, {0, 2}},
              runtime::LaunchThunk{1, {1, 1, 1}, {1, 3}},
              runtime::LaunchThunk{2, {1, 1, 1}, {1, 4}}};
  assignOutputAliases({0, 1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
  // Refused aliases still give the arguments away, as JAX expects.
  EXPECT_EQ(p.donated_parameters, (std::vector<bool>{true, true}));
}

TEST(AssignOutputAliases, OnlyRequestedParametersAreGivenAway) {
  runtime::Program p = twoByTwo();
  p.thunks = {runtime::LaunchThunk{0, {1, 1, 1}, {0, 2}},
              runtime::LaunchThunk{1, {1, 1, 1}, {1, 3}}};
  assignOutputAliases({-1, kAnyOutput}, p);
  EXPECT_EQ(p.donated_parameters, (std::vector<bool>{false, true}));
}

TEST(AssignOutputAliases, AReturnedDonatedParameterAliasesItsCopy) {
  runtime::Program p = twoByTwo();
  p.thunks = {runtime::LaunchThunk{0, {1, 1, 1}, {0, 3}}, runtime::CopyThunk{0, 2, 256}};
  assignOutputAliases({0, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, -1}));
  // Copying another parameter into the output does not make it safe when
  // the donor is read by that very copy.
  runtime::Program q = twoByTwo();
  q.thunks = {runtime::CopyThunk{1, 2, 256}, runtime::LaunchThunk{0, {1, 1, 1}, {0, 3}}};
  assignOutputAliases({0, -1}, q);
  EXPECT_EQ(q.output_aliases, (std::vector<int>{-1, -1}));
}

// A loop carrying the donated parameter in the output slot (copied in, the
// body computing the next value from it): in place is safe while nothing
// reads the parameter once the loop has begun changing the output.
TEST(AssignOutputAliases, ALoopCarryingTheParameterInTheOutputSlot) {
  runtime::Program p = twoByTwo();
  p.lists = {{runtime::LaunchThunk{0, {1, 1, 1}, {2, 4}}, runtime::CopyThunk{4, 2, 256}}};
  runtime::WhileThunk loop;
  loop.body = 0;
  loop.trip_count = 3;
  p.thunks = {runtime::CopyThunk{0, 2, 256}, loop};
  assignOutputAliases({0, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, -1}));
  // The parameter returned again after the loop: its data must survive.
  p.thunks.push_back(runtime::CopyThunk{0, 3, 256});
  assignOutputAliases({0, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
  // The body reading the parameter itself on every iteration.
  p.thunks.pop_back();
  p.lists[0][0] = runtime::LaunchThunk{0, {1, 1, 1}, {2, 0, 4}};
  assignOutputAliases({0, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
}

// A conditional whose branch reads the donor and writes the output: both at
// once, so not in place; a branch list touching only temps does not count.
TEST(AssignOutputAliases, AConditionalTouchesWhatItsBranchesDo) {
  runtime::Program p = twoByTwo();
  p.lists = {{runtime::LaunchThunk{0, {1, 1, 1}, {0, 2}}},
             {runtime::LaunchThunk{1, {1, 1, 1}, {4, 2}}}};
  runtime::ConditionalThunk conditional;
  conditional.index = 1;
  conditional.branches = {0, 1};
  p.thunks = {runtime::LaunchThunk{2, {1, 1, 1}, {0, 4}}, conditional};
  assignOutputAliases({0, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
  p.lists[0][0] = runtime::LaunchThunk{0, {1, 1, 1}, {4, 2}};
  assignOutputAliases({0, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, -1}));
}

TEST(AssignOutputAliases, SizesMustMatchAndEachOutputAliasesOnce) {
  runtime::Program p = twoByTwo();
  p.slots[1].bytes = 128;
  p.parameter_bytes[1] = 128;
  p.thunks = {runtime::LaunchThunk{0, {1, 1, 1}, {0, 1, 4}},
              runtime::LaunchThunk{1, {1, 1, 1}, {4, 2, 3}}};
  assignOutputAliases({1, 1}, p);  // both ask for output 1: the first wins
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, 0}));
  assignOutputAliases({-1, 0}, p);  // p1 is smaller than output 0
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
  assignOutputAliases({1, kAnyOutput}, p);  // the donor finds no output of its size
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, 0}));
  assignOutputAliases({kAnyOutput, -1}, p);
  EXPECT_EQ(p.output_aliases, (std::vector<int>{0, -1}));
  assignOutputAliases({7, -1}, p);  // out of range: ignored
  EXPECT_EQ(p.output_aliases, (std::vector<int>{-1, -1}));
}

}  // namespace
}  // namespace jft::compiler
