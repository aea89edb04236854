// The fusion plan: which ops of a flat function share a kernel, and the route
// each group takes.
//
// Input: a function after the pass pipeline (calls inlined; while/case/if
// keep their regions and are routed `control` as single-op groups). Output:
// groups in execution order. Every op of the body except the terminator
// belongs to exactly one group, except cheap ops, which may be duplicated:
// scalar and splat constants go into each TTIR group that reads them (the
// emitter materialises them as splats instead of loading a buffer), and
// broadcast_in_dim, reshape, iota, convert and bitcast_convert into each TTIR
// consumer group when their users sit in several groups (and, with
// PlanOptions::recompute_elementwise, elementwise ops every TTIR reader can
// recompute from one stored value of their size). A duplicated op's
// results are never outputs of the groups holding a copy; when a user outside
// those groups (another route, the return) needs them, the op also has a
// group of its own. The rules are in src/fusion/README.md.
//
// An op no available route can run is reported in Plan::unsupported and still
// gets a single-op group with route kNative, so the plan stays complete for a
// caller that has a fallback; a strict caller fails on `unsupported`.
//
// Loop groups: values inside may have any shape (the emitter computes each at
// the indices its readers need, through the ops' index maps); all outputs
// share one shape. Reduction groups: see reduce_shape below.
//
// Precondition: the module verifies (ir::verifyModule); the planner reads
// value types by id without re-checking them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/module.h"

namespace jft::fusion {

enum class Route : uint8_t {
  kTtir,        // one TTIR kernel compiled by FlagTree/Triton
  kLibrary,     // cuBLASLt, cuDNN, cuFFT, cuSOLVER
  kControl,     // while / case / if, executed by the runtime
  kCollective,  // NCCL
  kCustomCall,  // an XLA FFI handler's call (host callbacks, jax.ffi targets)
  kCopy,        // a device-to-device copy (or nothing when it can alias)
  kNative,      // the non-Triton fallback
  kNone,        // no device work: constants, tuples, get_tuple_element, tokens
};

enum class Family : uint8_t {
  kNone,       // groups whose route is not kTtir
  kLoop,       // one output tile per program, inputs read through index maps
  kReduction,  // reduce ops with prologue/epilogue, row-wise (softmax) included
  // Single-op groups (ttir_support.h's ttirFamilyOf names the op kinds):
  kScan,     // a cumulative reduction along one axis (tt.scan)
  kScatter,  // stablehlo.scatter (atomics or masked stores)
  kSort,     // stablehlo.sort along the last dim (bitonic network in a tile)
  // A dot_general (tt.dot over K tiles) with its operand converts and an
  // elementwise epilogue on the accumulator (matmul_form.h).
  kMatmul,
  // A convolution as an implicit GEMM (tt.dot over K tiles of window
  // positions x input features, the lhs tile gathered from the input in
  // place), with operand converts and an elementwise epilogue
  // (conv_gemm_form.h).
  kConv,
  // A Pallas kernel: the Triton module a custom call carries, compiled as
  // given (pallas_call.h). Nothing joins it.
  kPallas,
  // dot -> positional mask/scale -> softmax -> dot as one flash-attention
  // kernel (attention_form.h): formed before the search, nothing joins it.
  kAttention,
};

const char* routeName(Route route);     // "ttir", "library", ...
const char* familyName(Family family);  // "loop", "reduction", "none"

struct Fusion {
  int id = 0;
  // Stable and readable: "fusion_3_loop_exp_add" (kernel names, logs, dumps).
  std::string name;
  Route route = Route::kTtir;
  Family family = Family::kNone;
  // Indices into the function body's ops, in program order, copied cheap ops
  // and constants included.
  std::vector<size_t> ops;
  // Values defined outside the group and read inside it, first use first, no
  // duplicates. Inlined constants are not inputs.
  std::vector<ir::ValueId> inputs;
  // Values defined inside the group and used after it (by a later group or the
  // function's return), in definition order, no duplicates.
  std::vector<ir::ValueId> outputs;
  // Reduction groups only: the reduction space every reduce of the group
  // shares. Values of the group have shape `reduce_shape` (F) or the kept
  // shape K (F without `reduced_dims`, unit dims free to be added or dropped).
  std::vector<int64_t> reduce_shape;
  std::vector<int64_t> reduced_dims;
};

// An op no route of the plan can run in the current mode.
struct UnsupportedOp {
  size_t op = 0;         // index into the function body's ops
  std::string what;      // "stablehlo.sort (tensor<8xf32>) -> tensor<8xf32>"
  std::string location;  // the user's frame ("model.py:12:4"), may be empty
  std::string reason;    // "no TTIR emitter for sort yet"
};

struct Plan {
  std::vector<Fusion> fusions;  // execution order
  std::vector<UnsupportedOp> unsupported;
};

// Where dot_general goes (XLA_FLAGTREE_MATMUL): kLibrary is cuBLASLt for every
// dot; kTtir is the TTIR matmul family for every dot it can take (the rest stay
// on the library); kAuto asks the cost model (matmul_form.h).
enum class MatmulRoute : uint8_t { kAuto, kLibrary, kTtir };

// Where convolution goes (XLA_FLAGTREE_CONV), as MatmulRoute for dots:
// kLibrary is the library route for every convolution (cuDNN when the
// device has it, else the patches kernel + cuBLASLt: the compiler decides
// which, codegen/library/library_calls.h); kCudnn the same with cuDNN required;
// kTtir the TTIR implicit GEMM for every convolution it can take; kAuto asks
// the cost model (conv_gemm_form.h), whose library side is the same route.
enum class ConvRoute : uint8_t { kAuto, kLibrary, kTtir, kCudnn };

// Whether a backend's kernel can compute an op; the reason when not.
struct TtirSupport {
  bool ok = false;
  std::string reason;  // "no TTIR emitter for sort yet"
};

// What the TTIR backend can emit, as the planner asks it: the backend owns
// the table (codegen/ttir/capability.h) and the compiler hands it over in
// PlanOptions::ttir.
struct TtirCapability {
  std::function<bool(ir::ElementType)> holds;  // element types a kernel holds
  std::function<TtirSupport(const ir::Module&, const ir::Op&)> supports;
};

struct PlanOptions {
  bool fuse = true;  // false: one group per op (a debugging aid)
  // A reduction whose reduced extent exceeds this many elements is not fused
  // with consumers that broadcast its result back (the row would not fit a
  // tile); it is still fused with its prologue.
  int64_t max_row_elements = 16384;
  // Whether the compiler can run these routes; ops of a route that is not
  // available go to `unsupported`.
  bool library_route = false;
  bool control_route = false;
  bool collective_route = false;
  bool custom_call_route = false;  // typed-FFI custom calls (op_route.h)
  MatmulRoute matmul = MatmulRoute::kAuto;
  // Whether plain attention (dot -> positional mask -> softmax -> dot) forms
  // one kAttention group (attention_form.h).
  bool attention = true;
  // Whether an elementwise value that every TTIR loop or reduction reader can
  // recompute from one stored value of its size (and smaller broadcasts) is
  // recomputed there instead of stored by its producer's kernel: autodiff's
  // residuals of a product's epilogue (a gelu's tanh, 1 + tanh, ...) then cost
  // a few instructions in the backward kernels instead of a full-size store
  // and load each. Off by default until measured on the GPU.
  bool recompute_elementwise = false;
  ConvRoute conv = ConvRoute::kAuto;
  // Routes measured for dots (the compiler's autotuner), keyed by
  // matmulSignature (matmul_form.h). Under kAuto, with the library route
  // available, a dot found here takes that route instead of the cost
  // model's guess; other settings ignore it.
  std::map<std::string, Route> matmul_decisions;
  // Under ConvRoute::kAuto with the library route: whether the device's
  // convolution library (cuDNN) takes `op`. A convolution it takes goes to
  // the library before the cost model is asked (cuDNN measured faster than
  // our implicit GEMM, docs/performance.md). Unset: no library to ask.
  std::function<bool(const ir::Op&)> conv_library_takes;
  // Whether the library backend can plan a custom call to a library target
  // (cuSOLVER/cuBLAS names). A typed-FFI call it cannot plan (a target it has
  // no lowering for, or a signature it does not know) goes to the custom-call
  // route instead: the handler jaxlib registered for that name runs it, as
  // upstream would. Unset: every such call is the library's.
  std::function<bool(const ir::Op&)> library_takes_call;
  // The TTIR backend's table. Unset: no op goes TTIR (each is unsupported,
  // with the reason that no TTIR backend was given).
  TtirCapability ttir;
};

// Never fails on valid IR: what it cannot place goes to `unsupported`.
Plan planFusions(const ir::Module& module, const ir::Function& function,
                 const PlanOptions& options = {});
// The same for one region (a while/case body): its arguments and the values
// it captures from enclosing regions are the inputs; its terminator is the
// return.
Plan planFusions(const ir::Module& module, const ir::Region& region,
                 const PlanOptions& options = {});

// One line per group, for logs, dumps and tests:
// "fusion_3_loop_exp_add ttir/loop ops=[4,5,6] in=[%1,%2] out=[%7]".
std::string describePlan(const ir::Module& module, const ir::Function& function,
                         const Plan& plan);
std::string describePlan(const ir::Module& module, const ir::Region& region,
                         const Plan& plan);

}  // namespace jft::fusion
