#include "fusion/op_route.h"

#include <algorithm>
#include <string_view>

#include "fusion/pallas_call.h"
#include "fusion/ttir_support.h"
#include "ir/custom_call.h"

namespace jft::fusion {
namespace {

using ir::OpKind;

std::string customCallTarget(const ir::Op& op) {
  const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
  return target ? *target : std::string();
}

// Custom calls that only annotate sharding: the value passes through.
bool isAnnotation(std::string_view target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape";
}

// The linear-algebra kernels JAX calls on NVIDIA GPUs, the pivots helper of
// its LU decomposition included (it always comes with cusolver_getrf), and
// its Cholesky rank-one update kernel (run by the solver runner too).
bool isLibraryTarget(std::string_view target) {
  return target.starts_with("cusolver") || target.starts_with("cublas") ||
         target == "cu_lu_pivots_to_permutation" || target == "cu_cholesky_update_ffi";
}

// A custom call for an XLA FFI handler (api_version 4, typed FFI): what
// jax.ffi.ffi_call and jax's host callbacks lower to.
bool isFfiCustomCall(const ir::Op& op) {
  return ir::isTypedFfiCall(op);
}

// Why a custom call has no route, and what the user can do about it.
std::string customCallRefusal(const ir::Op& op) {
  const std::string target = customCallTarget(op);
  return "custom_call @" + target +
         " is not an XLA FFI call (api_version 4); jax-flagtree runs custom calls only "
         "through XLA FFI handlers: lower it with jax.ffi.ffi_call and register its "
         "handler with jax.ffi.register_ffi_target('" +
         target + "', ..., platform='CUDA')";
}

Route fixedRoute(const ir::Op& op, bool& found) {
  found = true;
  switch (op.kind) {
    case OpKind::Tuple:
    case OpKind::GetTupleElement:
    case OpKind::AfterAll:
    case OpKind::CreateToken:
    case OpKind::OptimizationBarrier:
      return Route::kNone;
    case OpKind::Constant:
      if (!isSplatConstant(op)) return Route::kNone;
      break;
    case OpKind::While:
    case OpKind::Case:
    case OpKind::If:
      return Route::kControl;
    case OpKind::Dot:
    case OpKind::DotGeneral:
    case OpKind::Convolution:
    case OpKind::Fft:
    case OpKind::TriangularSolve:
    case OpKind::Cholesky:
      return Route::kLibrary;
    case OpKind::AllReduce:
    case OpKind::AllGather:
    case OpKind::ReduceScatter:
    case OpKind::AllToAll:
    case OpKind::CollectivePermute:
    case OpKind::CollectiveBroadcast:
    case OpKind::CrossReplicaSum:
    // A participant's own id: written by the runtime, like a collective
    // known only when a program runs over several participants.
    case OpKind::ReplicaId:
    case OpKind::PartitionId:
      return Route::kCollective;
    case OpKind::CustomCall: {
      const std::string target = customCallTarget(op);
      if (isAnnotation(target)) return Route::kNone;
      if (isLibraryTarget(target)) return Route::kLibrary;
      if (isFfiCustomCall(op)) return Route::kCustomCall;
      break;
    }
    default:
      break;
  }
  found = false;
  return Route::kNative;
}

// Whether every value the op (and its regions) names exists, so that types
// can be read without going out of the value table.
bool valuesExist(const ir::Module& module, const ir::Op& op) {
  auto exists = [&](ir::ValueId id) { return id < module.numValues(); };
  auto all = [&](const std::vector<ir::ValueId>& ids) {
    return std::all_of(ids.begin(), ids.end(), exists);
  };
  if (!all(op.operands) || !all(op.results)) return false;
  for (const ir::Region& region : op.regions) {
    if (!all(region.args)) return false;
    for (const ir::Op& inner : region.ops)
      if (!valuesExist(module, inner)) return false;
  }
  return true;
}

}  // namespace

std::string opNameWithTarget(const ir::Op& op) {
  if (op.kind == OpKind::CustomCall) return "custom_call @" + customCallTarget(op);
  return std::string(ir::opKindName(op.kind));
}

OpRoute routeOf(const ir::Module& module, const ir::Op& op, const PlanOptions& options) {
  if (!valuesExist(module, op))
    return {Route::kNative, false, "the op names a value the module does not define"};
  // A Pallas kernel is TTIR already; checked before any other custom call.
  if (isPallasCall(op)) {
    StatusOr<PallasCall> call = pallasCallOf(module, op);
    if (!call.isOk()) return {Route::kNative, false, call.status().message()};
    return {Route::kTtir, true, {}};
  }
  bool fixed = false;
  Route route = fixedRoute(op, fixed);
  if (route == Route::kLibrary && op.kind == OpKind::CustomCall && isFfiCustomCall(op) &&
      options.custom_call_route && options.library_takes_call &&
      !options.library_takes_call(op))
    route = Route::kCustomCall;
  if (fixed) {
    const char* missing = nullptr;
    if (route == Route::kLibrary && !options.library_route) missing = "library";
    if (route == Route::kControl && !options.control_route) missing = "control";
    if (route == Route::kCollective && !options.collective_route) missing = "collective";
    if (route == Route::kCustomCall && !options.custom_call_route)
      missing = "custom-call";
    if (missing)
      return {
          Route::kNative, false,
          std::string("no ") + missing + " route for " + opNameWithTarget(op) + " yet"};
    return {route, true, {}};
  }
  if (op.kind == OpKind::CustomCall)
    return {Route::kNative, false, customCallRefusal(op)};
  TtirSupport ttir =
      options.ttir.supports
          ? options.ttir.supports(module, op)
          : TtirSupport{false, "no TTIR backend to ask for " + opNameWithTarget(op)};
  if (!ttir.ok) return {Route::kNative, false, std::move(ttir.reason)};
  return {Route::kTtir, true, {}};
}

}  // namespace jft::fusion
