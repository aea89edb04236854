// A Pallas kernel as JAX's Triton backend lowers it: a custom call
// @__gpu$xla.gpu.triton whose backend_config dictionary carries a serialized
// Triton module that is already TTIR. It is its own group on the TTIR route
// (legal under XLA_MODE=fl_only): nothing fuses into it or around it.
//
// The configuration, as jax 0.11 writes it (jax/_src/pallas/triton/
// pallas_call_registration.py, api_version 4, so a dictionary):
//   name        string  the tt.func's name (the kernel's entry point)
//   ir          string  the module as MLIR bytecode (jaxlib's Triton dialects)
//   num_warps   i32     > 0
//   num_stages  i32     > 0
//   grid_x/y/z  i32     the launch grid, each >= 0 (unused dimensions are 1)
//   debug       bool
//   serialized_metadata  string, optional (JSON; unstable upstream, ignored)
// The kernel's parameters are one pointer per operand, then one per result,
// in order; output_operand_aliases (JAX's input_output_aliases) make a
// result share its operand's memory. Keys other than these are refused, so
// a changed format fails clearly instead of launching a wrong kernel.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/module.h"
#include "support/status.h"

namespace jft::fusion {

inline constexpr const char* kPallasTritonTarget = "__gpu$xla.gpu.triton";

struct PallasAlias {
  int64_t output = 0;   // result index
  int64_t operand = 0;  // operand index whose memory it shares
};

struct PallasCall {
  std::string name;
  std::string module;     // the serialized module, as given (bytecode or text)
  bool bytecode = false;  // starts with MLIR bytecode's magic "ML\xEFR"
  std::array<uint32_t, 3> grid{1, 1, 1};
  int num_warps = 4;
  int num_stages = 3;
  bool debug = false;
  std::vector<PallasAlias> aliases;
};

// Whether `op` is a custom call to the Triton kernel target.
bool isPallasCall(const ir::Op& op);

// The decoded configuration. INVALID_ARGUMENT names the op, its source line
// and what is wrong (a missing, mistyped, out-of-range or unknown key; an
// alias between values of different types; an operand or result that is not
// a tensor).
StatusOr<PallasCall> pallasCallOf(const ir::Module& module, const ir::Op& op);

}  // namespace jft::fusion
