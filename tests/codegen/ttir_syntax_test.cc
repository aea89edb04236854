// The checker accepts what Triton 3.6 itself wrote and rejects each kind of
// damage an emitter could do.
#include "ttir_syntax.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace jft::codegen::ttir::testing {
namespace {

std::string readReference(const std::string& name) {
  std::ifstream in(std::filesystem::path(JFT_TTIR_REFERENCE_DIR) / name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

void expectRejected(const std::string& text, const std::string& because) {
  Status s = checkTtirSyntax(text);
  EXPECT_FALSE(s.isOk()) << "accepted a module that should fail (" << because << ")";
  if (!s.isOk()) {
    EXPECT_NE(s.message().find(because), std::string::npos) << s.message();
  }
}

TEST(TtirSyntax, AcceptsTritonsOwnModules) {
  for (const char* name : {"add_exp.ttir", "softmax_rows.ttir", "mm.ttir"}) {
    const std::string text = readReference(name);
    ASSERT_FALSE(text.empty()) << name;
    Status s = checkTtirSyntax(text);
    EXPECT_TRUE(s.isOk()) << name << ": " << s.message();
  }
}

TEST(TtirSyntax, RejectsUnbalancedRegions) {
  const std::string add = readReference("add_exp.ttir");
  expectRejected(replaced(add, "    tt.return\n  }\n", "    tt.return\n"), "still open");
  expectRejected(add + "}\n", "closes nothing");
  const std::string softmax = readReference("softmax_rows.ttir");
  expectRejected(replaced(softmax, "}) : (tensor<1024xf32>) -> f32",
                          "} : (tensor<1024xf32>) -> f32"),
                 "must close with");
}

TEST(TtirSyntax, RejectsUndefinedAndOutOfScopeValues) {
  const std::string add = readReference("add_exp.ttir");
  expectRejected(replaced(add, "arith.addf %2, %y_7", "arith.addf %2, %y_99"),
                 "used before it is defined");
  // A value defined after its use.
  expectRejected(replaced(add, "%2 = math.exp %x_5", "%2 = math.exp %3"),
                 "before it is defined");
  // A combiner's block argument does not leak out of its region.
  const std::string softmax = readReference("softmax_rows.ttir");
  expectRejected(
      replaced(softmax, "%e_7 = arith.subf %x_6, %e", "%e_7 = arith.subf %m_9, %e"),
      "out of scope");
  // The result of scf.for is not visible inside its own body.
  const std::string mm = readReference("mm.ttir");
  expectRejected(replaced(mm, "scf.yield %acc_26 : tensor<128x128xf32>",
                          "scf.yield %acc : tensor<128x128xf32>"),
                 "before it is defined");
}

TEST(TtirSyntax, RejectsOpsTritonDoesNotAccept) {
  const std::string add = readReference("add_exp.ttir");
  expectRejected(replaced(add, "math.exp %x_5", "math.tanh %x_5"),
                 "not one Triton 3.6 accepts");
  expectRejected(replaced(add, "math.exp %x_5", "arith.negf %x_5"),
                 "not one Triton 3.6 accepts");
  expectRejected(replaced(add, "math.exp %x_5", "arith.bitcast %x_5"),
                 "not one Triton 3.6 accepts");
  expectRejected(replaced(add, "math.exp %x_5 : tensor<256xf32>",
                          "tt.precise_sqrt %x_5 : tensor<256xf64>"),
                 "has type");
}

TEST(TtirSyntax, RejectsOperandCountsAndSuffixForms) {
  const std::string add = readReference("add_exp.ttir");
  expectRejected(replaced(add, "arith.addf %2, %y_7", "arith.addf %2, %y_7, %2"),
                 "takes 2 operands");
  expectRejected(
      replaced(add, "%2 = math.exp %x_5 : tensor<256xf32>", "%2 = math.exp %x_5"),
      "needs a ' : type' suffix");
  expectRejected(
      replaced(add, "tt.splat %n : i32 -> tensor<256xi32>", "tt.splat %n : i32"),
      "needs ' : T -> U'");
  expectRejected(
      replaced(add, "tt.addptr %x, %offs_2 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>",
               "tt.addptr %x, %offs_2 : tensor<256x!tt.ptr<f32>>"),
      "takes ': P, O'");
  expectRejected(replaced(add, "arith.cmpi slt, %offs_2", "arith.cmpi less, %offs_2"),
                 "unknown predicate");
}

TEST(TtirSyntax, RejectsBadTypes) {
  const std::string add = readReference("add_exp.ttir");
  expectRejected(
      replaced(add, "tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>",
               "tt.make_range {end = 200 : i32, start = 0 : i32} : tensor<200xi32>"),
      "not a power of two");
  expectRejected(replaced(add, "%3 = arith.addf %2, %y_7 : tensor<256xf32>",
                          "%3 = arith.addf %2, %y_7 : tensor<256xf16>"),
                 "has type");
  expectRejected(replaced(add, "%x_ptr: !tt.ptr<f32>", "%x_ptr: !tt.ptr<q7>"), "unknown");
  expectRejected(replaced(add, "%3 = arith.addf %2, %y_7 : tensor<256xf32>",
                          "%3 = arith.addi %2, %y_7 : tensor<256xf32>"),
                 "arith.addi of f32");
  expectRejected(replaced(add, "tt.make_range {end = 256 : i32, start = 0 : i32}",
                          "tt.make_range {end = 128 : i32, start = 0 : i32}"),
                 "spanning");
}

TEST(TtirSyntax, AcceptsTheFormsTheEmittersWrite) {
  const std::string text = R"(module {
  tt.func public @k(%p: !tt.ptr<i8> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %1 = tt.splat %p : !tt.ptr<i8> -> tensor<4x!tt.ptr<i8>>
    %2 = tt.addptr %1, %0 : tensor<4x!tt.ptr<i8>>, tensor<4xi32>
    %3 = tt.load %2 : tensor<4x!tt.ptr<i8>>
    %4 = arith.constant 0 : i32
    %5 = arith.constant 8 : i32
    %6 = arith.constant 1 : i32
    %7 = arith.constant dense<1> : tensor<4xi8>
    %8:3 = scf.for %9 = %4 to %5 step %6 iter_args(%10 = %7, %11 = %3, %12 = %3) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>) : i32 {
      %13 = arith.muli %10, %11 : tensor<4xi8>
      scf.yield %13, %11, %12 : tensor<4xi8>, tensor<4xi8>, tensor<4xi8>
    }
    %14 = arith.constant true
    %15 = arith.select %14, %8#0, %8#2 : tensor<4xi8>
    %16 = tt.extern_elementwise %15 {libname = "", libpath = "", pure = true, symbol = "__nv_popc"} : (tensor<4xi8>) -> tensor<4xi8>
    tt.store %2, %16 : tensor<4x!tt.ptr<i8>>
    tt.return
  }
}
)";
  Status s = checkTtirSyntax(text);
  EXPECT_TRUE(s.isOk()) << s.message();
  expectRejected(replaced(text, "%8#0, %8#2", "%8#0, %8#3"), "no such result");
  expectRejected(replaced(text, "%8#0, %8#2", "%8, %8#2"), "names 3 results");
  expectRejected(replaced(text, "tt.load %2 : tensor<4x!tt.ptr<i8>>",
                          "tt.load %2 : tensor<4x!tt.ptr<i1>>"),
                 "has type");
}

// A compare-and-swap retry loop as Triton 3.6 prints it: scf.while with a
// "before" region ending in scf.condition, a "do" region with its own block
// arguments, and tt.atomic_cas (sem, scope, then pointer, compare, value).
TEST(TtirSyntax, AcceptsAnScfWhileCompareAndSwapLoop) {
  const std::string text = R"(module {
  tt.func public @k(%p: !tt.ptr<i32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %1 = tt.splat %p : !tt.ptr<i32> -> tensor<4x!tt.ptr<i32>>
    %2 = tt.addptr %1, %0 : tensor<4x!tt.ptr<i32>>, tensor<4xi32>
    %3 = arith.constant dense<true> : tensor<4xi1>
    %4 = tt.load %2 : tensor<4x!tt.ptr<i32>>
    %5:2 = scf.while (%arg1 = %3, %arg2 = %4) : (tensor<4xi1>, tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi32>) {
      %6 = arith.extui %arg1 : tensor<4xi1> to tensor<4xi32>
      %7 = "tt.reduce"(%6) <{axis = 0 : i32}> ({
      ^bb0(%a: i32, %b: i32):
        %m = arith.maxui %a, %b : i32
        tt.reduce.return %m : i32
      }) : (tensor<4xi32>) -> i32
      %c0 = arith.constant 0 : i32
      %8 = arith.cmpi ne, %7, %c0 : i32
      scf.condition(%8) %arg1, %arg2 : tensor<4xi1>, tensor<4xi32>
    } do {
    ^bb0(%arg3: tensor<4xi1>, %arg4: tensor<4xi32>):
      %9 = arith.muli %arg4, %arg4 : tensor<4xi32>
      %10 = arith.select %arg3, %9, %arg4 : tensor<4xi1>, tensor<4xi32>
      %11 = tt.atomic_cas acq_rel, gpu, %2, %arg4, %10 : (tensor<4x!tt.ptr<i32>>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
      %12 = arith.cmpi ne, %11, %arg4 : tensor<4xi32>
      %13 = arith.andi %arg3, %12 : tensor<4xi1>
      scf.yield %13, %11 : tensor<4xi1>, tensor<4xi32>
    }
    tt.store %2, %5#1 : tensor<4x!tt.ptr<i32>>
    tt.return
  }
}
)";
  Status s = checkTtirSyntax(text);
  EXPECT_TRUE(s.isOk()) << s.message();
  // The "before" region's arguments end at "} do {".
  expectRejected(replaced(text, "arith.muli %arg4, %arg4", "arith.muli %arg2, %arg4"),
                 "used before it is defined");
  // The initial values must have the operand types.
  expectRejected(replaced(text, "(%arg1 = %3, %arg2 = %4)", "(%arg1 = %4, %arg2 = %4)"),
                 "has type");
  expectRejected(replaced(text, "scf.condition(%8)", "scf.condition(%99)"),
                 "used before it is defined");
  expectRejected(replaced(text, "gpu, %2, %arg4, %10", "gpu, %2, %10"), "takes 3");
  expectRejected(replaced(text, "tt.store %2, %5#1", "tt.store %2, %5#2"),
                 "no such result");
}

}  // namespace
}  // namespace jft::codegen::ttir::testing
