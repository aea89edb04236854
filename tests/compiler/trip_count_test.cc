// knownTripCount on hand-built loops, each count checked against a loop
// simulated here in the counter's own type (wrap-around included), so every
// proven count is the number of iterations the loop really runs.
#include "compiler/trip_count.h"

#include <gtest/gtest.h>

#include <unordered_map>

#include "ir/builder.h"

namespace jft::compiler {
namespace {

using ir::ComparisonDirection;
using ir::ElementType;
using ir::OpKind;

struct LoopSpec {
  ElementType type = ElementType::I32;
  int64_t init = 0, bound = 10, step = 1;
  ComparisonDirection dir = ComparisonDirection::LT;
  bool bound_left = false;  // compare(bound, counter) with the mirrored direction
  bool step_left = false;   // add(step, counter)
  bool counter_read_elsewhere = false;  // next value not add(counter, step)
};

int64_t tripCountOf(const LoopSpec& s) {
  ir::Module m;
  ir::Builder b(m);
  const ir::Type t = ir::Type::scalar(s.type);
  const ir::Type pred = ir::Type::scalar(ElementType::PRED);
  auto lit = [&](int64_t v) {
    return b.constant(ir::denseFromValues(t, {static_cast<double>(v)}));
  };
  b.beginFunction("main", {}, {});
  ir::ValueId init = lit(s.init);
  auto c = b.beginRegion({t});
  ir::ValueId bound = lit(s.bound);
  std::vector<ir::ValueId> cmp_args =
      s.bound_left ? std::vector{bound, c[0]} : std::vector{c[0], bound};
  b.ret({b.op1(OpKind::Compare, cmp_args, pred, {{"comparison_direction", s.dir}})});
  ir::Region cond = b.endRegion();
  auto d = b.beginRegion({t});
  ir::ValueId step = lit(s.step);
  ir::ValueId next = s.step_left ? b.op1(OpKind::Add, {step, d[0]}, t)
                                 : b.op1(OpKind::Add, {d[0], step}, t);
  if (s.counter_read_elsewhere) next = b.op1(OpKind::Multiply, {next, step}, t);
  b.ret({next});
  ir::Region body = b.endRegion();
  b.op(OpKind::While, {init}, {t}, {}, {cond, body});
  b.ret({});
  const ir::Function& f = b.endFunction();
  std::unordered_map<ir::ValueId, const ir::Op*> constants;
  for (const ir::Op& op : f.body.ops)
    if (op.kind == OpKind::Constant) constants[op.results[0]] = &op;
  return knownTripCount(m, f.body.ops[1], [&](ir::ValueId v) -> const ir::Op* {
    auto it = constants.find(v);
    return it == constants.end() ? nullptr : it->second;
  });
}

bool holds(ComparisonDirection d, int64_t a, int64_t b) {
  switch (d) {
    case ComparisonDirection::EQ:
      return a == b;
    case ComparisonDirection::NE:
      return a != b;
    case ComparisonDirection::GE:
      return a >= b;
    case ComparisonDirection::GT:
      return a > b;
    case ComparisonDirection::LE:
      return a <= b;
    case ComparisonDirection::LT:
      return a < b;
  }
  return false;
}

// Iterations of the loop on si32 counters, wrapping as the device would;
// -1 past `cap` iterations.
int64_t simulate32(const LoopSpec& s, int64_t cap = 1 << 22) {
  int32_t counter = static_cast<int32_t>(s.init);
  for (int64_t n = 0; n <= cap; ++n) {
    if (!holds(s.dir, counter, s.bound)) return n;
    counter = static_cast<int32_t>(static_cast<uint32_t>(counter) +
                                   static_cast<uint32_t>(s.step));
  }
  return -1;
}

TEST(TripCount, JaxForiLoop) {
  EXPECT_EQ(tripCountOf({}), 10);
  EXPECT_EQ(tripCountOf({.init = 3, .bound = 10}), 7);
  EXPECT_EQ(tripCountOf({.init = 10, .bound = 10}), 0);
  EXPECT_EQ(tripCountOf({.init = 12, .bound = 10}), 0);
}

TEST(TripCount, AgreesWithSimulationWhereProven) {
  const ComparisonDirection dirs[] = {ComparisonDirection::LT, ComparisonDirection::LE,
                                      ComparisonDirection::GT, ComparisonDirection::GE,
                                      ComparisonDirection::NE, ComparisonDirection::EQ};
  int proven = 0;
  for (ComparisonDirection dir : dirs)
    for (int64_t init : {-7, 0, 5, 10})
      for (int64_t bound : {-3, 0, 9, 10, 20})
        for (int64_t step : {-3, -1, 1, 2, 3})
          for (bool bound_left : {false, true}) {
            LoopSpec s{ElementType::I32, init, bound, step, dir, bound_left};
            // compare(bound, counter) with direction D means counter D' bound.
            LoopSpec as_run = s;
            if (bound_left) {
              switch (dir) {
                case ComparisonDirection::LT:
                  as_run.dir = ComparisonDirection::GT;
                  break;
                case ComparisonDirection::LE:
                  as_run.dir = ComparisonDirection::GE;
                  break;
                case ComparisonDirection::GT:
                  as_run.dir = ComparisonDirection::LT;
                  break;
                case ComparisonDirection::GE:
                  as_run.dir = ComparisonDirection::LE;
                  break;
                default:
                  break;
              }
            }
            const int64_t n = tripCountOf(s);
            if (n < 0) continue;  // not proven: the runtime reads the predicate
            ++proven;
            EXPECT_EQ(n, simulate32(as_run))
                << "init " << init << " bound " << bound << " step " << step << " dir "
                << static_cast<int>(dir) << " bound_left " << bound_left;
          }
  EXPECT_GT(proven, 300) << "most of these loops are counted loops";
}

TEST(TripCount, WrapAroundIsNotProven) {
  // Counting up to INT32_MAX with step 2 would pass it and wrap.
  EXPECT_EQ(
      tripCountOf(
          {.init = 0, .bound = 2147483647, .step = 2, .dir = ComparisonDirection::LE}),
      -1);
  // Counting down while above the bound never ends without wrapping.
  EXPECT_EQ(tripCountOf({.init = 0, .bound = 10, .step = -1}), -1);
  // NE that steps over its bound.
  EXPECT_EQ(
      tripCountOf({.init = 0, .bound = 10, .step = 3, .dir = ComparisonDirection::NE}),
      -1);
}

TEST(TripCount, OtherFormsAreNotProven) {
  EXPECT_EQ(tripCountOf({.counter_read_elsewhere = true}), -1);
  EXPECT_EQ(tripCountOf({.step = 0}), -1);
  EXPECT_EQ(tripCountOf({.step_left = true}), 10) << "add(step, counter) is the same";
  EXPECT_EQ(tripCountOf({.type = ElementType::F32}), -1) << "float counters";
  EXPECT_EQ(tripCountOf({.type = ElementType::U8, .init = 250, .bound = 255}), 5);
  EXPECT_EQ(
      tripCountOf({.type = ElementType::I64, .init = 0, .bound = 1000000, .step = 7}),
      142858);
}

}  // namespace
}  // namespace jft::compiler
