// What a family's emitter is given: the group (the program, the fusion and
// the integer type offsets are computed in, which emit_kernel.cc picks once
// per group) and, for each kernel it writes, that kernel's parameters and the
// writer its body goes into. Bundled so that every family's entry point and
// emitter class takes the same two things.
#pragma once

#include <string>

#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/ttir_writer.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::ttir {

struct GroupInputs {
  const ir::Module& module;
  const ir::Function& function;
  const fusion::Fusion& fusion;
  std::string index_type;  // "i32" or "i64"
};

struct KernelInputs {
  const GroupInputs& group;
  const KernelSignature& signature;
  TtirWriter& writer;
};

}  // namespace jft::codegen::ttir
