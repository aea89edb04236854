// Programs from failure classes JAX's test suite found, compiled in fl_only:
// each must plan every op on the TTIR route (or a library) with nothing left
// over. Their values are checked on the GPU by tests/gpu/test_ops.py.
#include <gtest/gtest.h>

#include "compiler/compiler.h"
#include "compiler/native_route_programs.h"

namespace jft::compiler {
namespace {

using testing::compileText;
using testing::entryOf;

// jnp.max of a complex array (lax_autodiff_test testReduceGrad, nanmin):
// JAX's combiner compares real parts, then imaginary parts, and selects.
constexpr const char* kComplexMax = R"(
func.func @main(%x: tensor<3x4xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %c = stablehlo.constant dense<(0xFF800000, 0.0)> : tensor<complex<f32>>
  %r = stablehlo.reduce %x, %c {dimensions = array<i64: 1>} ({
  ^bb0(%a: tensor<complex<f32>>, %b: tensor<complex<f32>>):
    %ar = stablehlo.real %a : (tensor<complex<f32>>) -> tensor<f32>
    %br = stablehlo.real %b : (tensor<complex<f32>>) -> tensor<f32>
    %ai = stablehlo.imag %a : (tensor<complex<f32>>) -> tensor<f32>
    %bi = stablehlo.imag %b : (tensor<complex<f32>>) -> tensor<f32>
    %eq = stablehlo.compare %ar, %br {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %gi = stablehlo.compare %ai, %bi {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %gr = stablehlo.compare %ar, %br {comparison_direction = #stablehlo<comparison_direction GT>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %p = stablehlo.select %eq, %gi, %gr : (tensor<i1>, tensor<i1>, tensor<i1>) -> tensor<i1>
    %m = stablehlo.select %p, %a, %b : (tensor<i1>, tensor<complex<f32>>, tensor<complex<f32>>) -> tensor<complex<f32>>
    stablehlo.return %m : tensor<complex<f32>>
  }) : (tensor<3x4xcomplex<f32>>, tensor<complex<f32>>) -> tensor<3xcomplex<f32>>
  return %r : tensor<3xcomplex<f32>>
})";

// einsum("ij,jk->ik", x, y, preferred_element_type=int32) on float32 operands.
constexpr const char* kFloatDotToInt = R"(
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3x4xf32>) -> tensor<2x4xi32> {
  %d = stablehlo.dot_general %x, %y {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xi32>
  return %d : tensor<2x4xi32>
})";

// jax.experimental.sparse.linalg.spsolve (sparse_test
// test_sparse_qr_linear_solver): a cuSOLVER target our library has no lowering
// for; the handler jaxlib registered under that name runs it.
constexpr const char* kSparseQrSolve = R"(
func.func @main(%data: tensor<8xf32>, %indices: tensor<8xi32>, %indptr: tensor<5xi32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %x = stablehlo.custom_call %data, %indices, %indptr, %b {api_version = 4 : i32, backend_config = {reorder = 1, tol = 1.0e-06}, call_target_name = "cusolver_csrlsvqr_ffi"} : (tensor<8xf32>, tensor<8xi32>, tensor<5xi32>, tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
})";

// ffi_test test_effects_hlo: a known library target called with a signature
// the library does not know (no operands, no results) still compiles, as
// upstream's does; only running it would reach the handler's own checks.
constexpr const char* kLibraryTargetOtherSignature = R"(
func.func @main() {
  stablehlo.custom_call {api_version = 4 : i32, backend_config = {}, call_target_name = "cusolver_getrf_ffi", has_side_effect = true} : () -> ()
  return
})";

// export_harnesses_multi_platform_test triangular_solve bf16: cuBLAS has no
// 16-bit trsm; the solve runs in f32 between two converts.
constexpr const char* kBf16TriangularSolve = R"(
func.func @main(%a: tensor<4x4xbf16>, %b: tensor<4x1xbf16>) -> tensor<4x1xbf16> {
  %x = stablehlo.triangular_solve %a, %b {left_side = true, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<4x4xbf16>, tensor<4x1xbf16>) -> tensor<4x1xbf16>
  return %x : tensor<4x1xbf16>
})";

// mosaic_gpu_test test_copy_layout_wgmma_upcast_4x: jnp.arange in float8.
constexpr const char* kFloat8Iota = R"(
func.func @main() -> tensor<1024xf8E5M2> {
  %x = stablehlo.iota {iota_dimension = 0} : tensor<1024xf8E5M2>
  return %x : tensor<1024xf8E5M2>
})";

Options flOnly() {
  Options options;
  options.mode = Mode::kFlOnly;
  return options;
}

TEST(SuiteClassRoutes, ComplexMaxIsReducedByPartsOnTheTtirRoute) {
  StatusOr<Executable> built = compileText(kComplexMax, flOnly());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* reduce = entryOf(*built, "reduce");
  ASSERT_NE(reduce, nullptr) << built->report.text();
  EXPECT_EQ(reduce->route, "ttir") << built->report.text();
}

TEST(SuiteClassRoutes, FloatProductWithAnIntegerResultCompiles) {
  StatusOr<Executable> built = compileText(kFloatDotToInt, flOnly());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* convert = entryOf(*built, "convert");
  ASSERT_NE(convert, nullptr) << built->report.text();
}

TEST(SuiteClassRoutes, LibraryTargetsTheLibraryCannotPlanRunTheirFfiHandlers) {
  for (const char* text : {kSparseQrSolve, kLibraryTargetOtherSignature}) {
    StatusOr<Executable> built = compileText(text, flOnly());
    ASSERT_TRUE(built.isOk()) << built.status().toString();
    const RouteEntry* call = entryOf(*built, "custom_call");
    ASSERT_NE(call, nullptr) << built->report.text();
    EXPECT_EQ(call->route, "custom_call") << built->report.text();
  }
}

TEST(SuiteClassRoutes, Bf16TriangularSolveRunsOnTheLibraryInF32) {
  StatusOr<Executable> built = compileText(kBf16TriangularSolve, flOnly());
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  const RouteEntry* solve = entryOf(*built, "triangular_solve");
  ASSERT_NE(solve, nullptr) << built->report.text();
  EXPECT_EQ(solve->route, "library") << built->report.text();
}

TEST(SuiteClassRoutes, Float8IotaRoundsThroughF32) {
  Stages stages;
  StatusOr<Executable> built = compileText(kFloat8Iota, flOnly(), nullptr, &stages);
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  ASSERT_EQ(stages.ttir.size(), 1u);
  const std::string& ttir = stages.ttir[0];
  // Triton has no integer-to-float8 conversion (LLVM's sitofp wants a float
  // type; f8 is an i8 there): the index becomes f32, then tt.fp_to_fp rounds.
  for (size_t at = ttir.find("arith.sitofp"); at != std::string::npos;
       at = ttir.find("arith.sitofp", at + 1)) {
    const std::string line = ttir.substr(at, ttir.find('\n', at) - at);
    EXPECT_EQ(line.find("f8E5M2"), std::string::npos) << line;
  }
  EXPECT_NE(ttir.find("tt.fp_to_fp"), std::string::npos) << ttir;
}

}  // namespace
}  // namespace jft::compiler
