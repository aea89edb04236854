// What a family's emitter is given: the group (the program, the fusion and
// the integer type offsets are computed in, which emit_kernel.cc picks once
// per group) and, for each kernel it writes, that kernel's parameters and the
// writer its body goes into. Bundled so that every family's entry point and
// emitter class takes the same two things.
#pragma once

#include <string>
#include <utility>
#include <vector>

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

// One kernel of a group while it is written: its signature and the writer of
// its body, which the family's emitter refers to (inputs()) until finish()
// hands both over with the launch. Kept together so that no stage can pair a
// body with another stage's signature.
class StageWriter {
 public:
  // kernelSignature's errors; `suffix` and `scratch` as there.
  static StatusOr<StageWriter> open(const GroupInputs& group,
                                    const std::string& suffix = "",
                                    const std::vector<ScratchBuffer>& scratch = {}) {
    JFT_ASSIGN_OR_RETURN(KernelSignature signature,
                         kernelSignature(group.module, group.fusion, suffix, scratch));
    return StageWriter(group, std::move(signature));
  }

  // Refers to this object: valid while it is not moved.
  KernelInputs inputs() { return {group_, signature_, writer_}; }
  StageKernel finish(Launch launch) {
    return {std::move(signature_), writer_.body(), std::move(launch)};
  }

 private:
  StageWriter(const GroupInputs& group, KernelSignature signature)
      : group_(group), signature_(std::move(signature)) {}

  const GroupInputs& group_;
  KernelSignature signature_;
  TtirWriter writer_;
};

}  // namespace jft::codegen::ttir
