// What every one-kernel emitter class works from: the writer it emits into,
// the program and fusion it emits, the kernel's parameters and the integer
// type its offsets are computed in. One base so that each emitter declares
// only the state of its own form.
#pragma once

#include <string>

#include "codegen/ttir/kernel_inputs.h"

namespace jft::codegen::ttir {

class KernelEmitter {
 public:
  explicit KernelEmitter(const KernelInputs& in)
      : w_(in.writer),
        module_(in.group.module),
        function_(in.group.function),
        fusion_(in.group.fusion),
        signature_(in.signature),
        index_type_(in.group.index_type) {}

 protected:
  TtirWriter& w_;
  const ir::Module& module_;
  const ir::Function& function_;
  const fusion::Fusion& fusion_;
  const KernelSignature& signature_;
  const std::string index_type_;
};

}  // namespace jft::codegen::ttir
