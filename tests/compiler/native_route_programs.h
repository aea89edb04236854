// Small programs for the native route's tests, as IR text, and the helpers
// that compile them and find a group's row in the route report.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "compiler/compiler.h"
#include "ir/parser.h"

namespace jft::compiler::testing {

// A sum over rows of two complex arrays at once (one variadic reduce), which
// the TTIR backend refuses ("combiner of several complex operands") and the
// native emitter takes, and a sine TTIR takes.
inline constexpr const char* kComplexPairSum = R"(
func.func @main(%x: tensor<2x3xcomplex<f32>>, %y: tensor<2x3xcomplex<f32>>, %w: tensor<8xf32>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<8xf32>) {
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %s, %t = stablehlo.reduce %x, %y, %z, %z {dimensions = array<i64: 1>} ({
  ^bb0(%p: tensor<complex<f32>>, %q: tensor<complex<f32>>, %r: tensor<complex<f32>>, %u: tensor<complex<f32>>):
    %a = stablehlo.add %p, %r : tensor<complex<f32>>
    %b = stablehlo.add %q, %u : tensor<complex<f32>>
    stablehlo.return %a, %b : tensor<complex<f32>>, tensor<complex<f32>>
  }) : (tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<complex<f32>>, tensor<complex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>)
  %e = stablehlo.sine %w : tensor<8xf32>
  return %s, %t, %e : tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>, tensor<8xf32>
})";

// The same reduce inside a while body (three iterations), so that a nested
// region must route it.
inline constexpr const char* kComplexPairSumInLoop = R"(
func.func @main(%x: tensor<2x3xcomplex<f32>>, %acc: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %i2, %out = stablehlo.while %zero, %acc ({
  ^bb0(%i: tensor<i32>, %c: tensor<2xcomplex<f32>>):
    %three = stablehlo.constant dense<3> : tensor<i32>
    %more = stablehlo.compare %i, %three {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  }, {
  ^bb0(%j: tensor<i32>, %v: tensor<2xcomplex<f32>>):
    %one = stablehlo.constant dense<1> : tensor<i32>
    %next = stablehlo.add %j, %one : tensor<i32>
    %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
    %s, %t = stablehlo.reduce %x, %x, %z, %z {dimensions = array<i64: 1>} ({
    ^bb0(%p: tensor<complex<f32>>, %q: tensor<complex<f32>>, %r: tensor<complex<f32>>, %u: tensor<complex<f32>>):
      %a = stablehlo.add %p, %r : tensor<complex<f32>>
      %b = stablehlo.multiply %q, %u : tensor<complex<f32>>
      stablehlo.return %a, %b : tensor<complex<f32>>, tensor<complex<f32>>
    }) : (tensor<2x3xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<complex<f32>>, tensor<complex<f32>>) -> (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>)
    %sum = stablehlo.add %v, %s : tensor<2xcomplex<f32>>
    %new = stablehlo.add %sum, %t : tensor<2xcomplex<f32>>
    stablehlo.return %next, %new : tensor<i32>, tensor<2xcomplex<f32>>
  }) : (tensor<i32>, tensor<2xcomplex<f32>>) -> (tensor<i32>, tensor<2xcomplex<f32>>)
  return %out : tensor<2xcomplex<f32>>
})";

// Two loop groups TTIR takes, of different shapes (never one kernel): a
// sine and an exponential.
inline constexpr const char* kSineAndExp = R"(
func.func @main(%x: tensor<8xf32>, %y: tensor<4x4xf32>) -> (tensor<8xf32>, tensor<4x4xf32>) {
  %s = stablehlo.sine %x : tensor<8xf32>
  %e = stablehlo.exponential %y : tensor<4x4xf32>
  return %s, %e : tensor<8xf32>, tensor<4x4xf32>
})";

// A sort of rows: the TTIR sort family, which the native emitter lacks.
inline constexpr const char* kSortRows = R"(
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = stablehlo.sort %x {dimension = 1} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
})";

// Rows too long for the native sort (a block's shared memory) that TTIR
// sorts through scratch.
inline constexpr const char* kLongSortRows = R"(
func.func @main(%x: tensor<2x20000xf32>) -> tensor<2x20000xf32> {
  %s = stablehlo.sort %x {dimension = 1} ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %lt = stablehlo.compare %p, %q {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) : (tensor<2x20000xf32>) -> tensor<2x20000xf32>
  return %s : tensor<2x20000xf32>
})";

// x.at[i] -= u on complex values: TTIR runs complex scatters that set or add
// only; the native route applies the region in order.
inline constexpr const char* kComplexScatterSubtract = R"(
func.func @main(%x: tensor<6x2xcomplex<f32>>, %i: tensor<3x1xi32>, %u: tensor<3x2xcomplex<f32>>) -> tensor<6x2xcomplex<f32>> {
  %r = stablehlo.scatter %x, %i, %u {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} ({
  ^bb0(%cur: tensor<complex<f32>>, %upd: tensor<complex<f32>>):
    %res = stablehlo.subtract %cur, %upd : tensor<complex<f32>>
    stablehlo.return %res : tensor<complex<f32>>
  }) : (tensor<6x2xcomplex<f32>>, tensor<3x1xi32>, tensor<3x2xcomplex<f32>>) -> tensor<6x2xcomplex<f32>>
  return %r : tensor<6x2xcomplex<f32>>
})";

inline StatusOr<Executable> compileText(
    const std::string& text, const Options& options,
    kernel_compiler::KernelCompiler* kernels = nullptr, Stages* stages = nullptr) {
  StatusOr<ir::Module> module = ir::parseModule(text);
  EXPECT_TRUE(module.isOk()) << module.status().toString();
  if (!module.isOk()) return module.status();
  module->name = "jit_native_route";
  return compileModule(std::move(module).value(), options, kernels, stages);
}

// The report row of the group whose ops include `op` ("reduce", "sine"), or
// null.
inline const RouteEntry* entryOf(const Executable& executable, const std::string& op) {
  for (const RouteEntry& e : executable.report.entries)
    if (e.ops.find(op) != std::string::npos) return &e;
  return nullptr;
}

}  // namespace jft::compiler::testing
