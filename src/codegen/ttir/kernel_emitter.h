// What every one-kernel emitter class works from: the writer it emits into,
// the program and fusion it emits, the kernel's parameters and the integer
// type its offsets are computed in. One base so that each emitter declares
// only the state of its own form.
#pragma once

#include <string>
#include <utility>

#include "codegen/ttir/kernel_signature.h"
#include "codegen/ttir/ttir_writer.h"
#include "fusion/fusion.h"
#include "ir/module.h"

namespace jft::codegen::ttir {

class KernelEmitter {
 public:
  KernelEmitter(TtirWriter& writer, const ir::Module& module,
                const ir::Function& function, const fusion::Fusion& fusion,
                const KernelSignature& signature, std::string index_type)
      : w_(writer),
        module_(module),
        function_(function),
        fusion_(fusion),
        signature_(signature),
        index_type_(std::move(index_type)) {}

 protected:
  TtirWriter& w_;
  const ir::Module& module_;
  const ir::Function& function_;
  const fusion::Fusion& fusion_;
  const KernelSignature& signature_;
  const std::string index_type_;
};

}  // namespace jft::codegen::ttir
