// Slot and thunk assembly; see program_assembly.h for where values live.
#include "compiler/program_assembly.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "compiler/buffer_assignment.h"
#include "compiler/constant_data.h"
#include "compiler/value_forwarding.h"
#include "ir/printer.h"

namespace jft::compiler {
namespace {

using runtime::BufferSlot;

bool isNoWorkOp(ir::OpKind kind) {
  return kind == ir::OpKind::Constant || kind == ir::OpKind::AfterAll ||
         kind == ir::OpKind::CreateToken || ValueForwarding::isForwardingOp(kind);
}

class Assembler {
 public:
  Assembler(const ir::Module& module, const ir::Function& function,
            const fusion::Plan& plan, const std::vector<KernelLaunch>& launches,
            runtime::Program& program, const std::vector<GemmCall>& gemms)
      : module_(module),
        function_(function),
        plan_(plan),
        launches_(launches),
        program_(program),
        gemms_(gemms) {}

  Status run() {
    if (function_.body.ops.empty() ||
        function_.body.ops.back().kind != ir::OpKind::Return)
      return invalidArgument("function @" + function_.name + " does not end in a return");
    JFT_RETURN_IF_ERROR(checkGroups());
    JFT_ASSIGN_OR_RETURN(forwarding_, ValueForwarding::build(module_, function_));
    for (size_t i = 0; i < function_.body.ops.size(); ++i)
      for (ir::ValueId result : function_.body.ops[i].results) defining_op_[result] = i;
    for (size_t i = 0; i < launches_.size(); ++i)
      for (ir::ValueId output : launches_[i].outputs) written_by_[output] = i;
    for (size_t i = 0; i < gemms_.size(); ++i) {
      if (!gemms_[i].op) written_by_[gemms_[i].d] = launches_.size() + i;
      if (gemms_[i].op)
        for (ir::ValueId output : gemms_[i].op->outputs)
          written_by_[output] = launches_.size() + i;
    }

    program_.slots.clear();
    program_.thunks.clear();
    program_.parameter_bytes.clear();
    program_.output_slots.clear();
    JFT_RETURN_IF_ERROR(addParameters());
    JFT_RETURN_IF_ERROR(addOutputs());
    // Launches and library calls in plan order; the kernels of a library
    // group before its call, those marked after_library after it.
    size_t next_gemm = 0;
    for (size_t i = 0; i < launches_.size(); ++i) {
      auto due = [&](const GemmCall& call) {
        return call.fusion < launches_[i].fusion ||
               (call.fusion == launches_[i].fusion && launches_[i].after_library);
      };
      for (; next_gemm < gemms_.size() && due(gemms_[next_gemm]); ++next_gemm)
        JFT_RETURN_IF_ERROR(addGemm(next_gemm));
      JFT_RETURN_IF_ERROR(addLaunch(i));
    }
    for (; next_gemm < gemms_.size(); ++next_gemm)
      JFT_RETURN_IF_ERROR(addGemm(next_gemm));
    packTemps();
    return addCopies();
  }

 private:
  std::string where(const ir::Op& op) const {
    return "stablehlo." + std::string(ir::opKindName(op.kind)) + " at " +
           module_.locations.describe(op.loc);
  }

  Status checkGroups() const {
    size_t next_launch = 0, next_gemm = 0;
    for (size_t g = 0; g < plan_.fusions.size(); ++g) {
      const fusion::Fusion& group = plan_.fusions[g];
      if (group.route == fusion::Route::kLibrary) {
        while (next_launch < launches_.size() && launches_[next_launch].fusion == g)
          ++next_launch;
        if (next_gemm >= gemms_.size() || gemms_[next_gemm].fusion != g)
          return internalError(group.name + " is a library group without its call");
        ++next_gemm;
        continue;
      }
      if (group.route == fusion::Route::kTtir) {
        if (next_launch >= launches_.size() || launches_[next_launch].fusion != g)
          return internalError(group.name + " is a TTIR group without its kernel launch");
        while (next_launch < launches_.size() && launches_[next_launch].fusion == g)
          ++next_launch;
        continue;
      }
      if (group.route != fusion::Route::kNone)
        return unimplemented(group.name + ": route " + fusion::routeName(group.route) +
                             " cannot be executed yet");
      for (size_t index : group.ops) {
        if (index >= function_.body.ops.size())
          return internalError(group.name + " names op " + std::to_string(index) +
                               " outside the function");
        const ir::Op& op = function_.body.ops[index];
        if (!isNoWorkOp(op.kind))
          return unimplemented(where(op) + " has no route that runs it (group " +
                               group.name + ")");
      }
    }
    if (next_launch != launches_.size())
      return internalError("more kernel launches than TTIR groups in the plan");
    if (next_gemm != gemms_.size())
      return internalError("more library calls than library groups in the plan");
    return Status::ok();
  }

  // Bytes of a value's buffer; tuples have no buffer form.
  StatusOr<uint64_t> bytesOf(ir::ValueId value, const std::string& what) const {
    const ir::Type& type = module_.typeOf(value);
    if (type.isToken()) return uint64_t{0};
    if (type.isTuple())
      return unimplemented(what + " is a tuple (" + type.str() +
                           "); tuples have no buffer form yet");
    return static_cast<uint64_t>(type.byteSize());
  }

  int addSlot(BufferSlot slot) {
    program_.slots.push_back(std::move(slot));
    return static_cast<int>(program_.slots.size() - 1);
  }

  Status addParameters() {
    for (size_t i = 0; i < function_.body.args.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(function_.body.args[i],
                                                   "parameter " + std::to_string(i)));
      BufferSlot slot;
      slot.kind = BufferSlot::Kind::kParameter;
      slot.bytes = bytes;
      slot.index = static_cast<int>(i);
      slot_of_[function_.body.args[i]] = addSlot(std::move(slot));
      program_.parameter_bytes.push_back(bytes);
    }
    return Status::ok();
  }

  // Output slots first, so that a kernel producing a returned value writes it
  // in place; the first result naming a kernel value claims it.
  Status addOutputs() {
    const ir::Op& ret = function_.body.ops.back();
    for (size_t i = 0; i < ret.operands.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(uint64_t bytes,
                           bytesOf(ret.operands[i], "result " + std::to_string(i)));
      BufferSlot slot;
      slot.kind = BufferSlot::Kind::kOutput;
      slot.bytes = bytes;
      slot.index = static_cast<int>(i);
      int output = addSlot(std::move(slot));
      program_.output_slots.push_back(output);
      ir::ValueId root = forwarding_.resolve(ret.operands[i]);
      if (written_by_.count(root) != 0 && slot_of_.count(root) == 0) {
        slot_of_[root] = output;
      } else if (bytes != 0) {
        pending_copies_.push_back({root, output, bytes});
      }
    }
    return Status::ok();
  }

  // The slot a thunk reads `value` from.
  StatusOr<int> readSlot(ir::ValueId value, const std::string& reader) {
    ir::ValueId root = forwarding_.resolve(value);
    if (auto it = slot_of_.find(root); it != slot_of_.end()) return it->second;
    JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(root, "a value read by " + reader));
    if (bytes == 0) return emptySlot(root);
    if (written_by_.count(root) != 0)
      return internalError(reader + " reads a kernel output before its kernel runs");
    auto def = defining_op_.find(root);
    if (def == defining_op_.end())
      return internalError(reader + " reads a value defined outside the function body");
    const ir::Op& op = function_.body.ops[def->second];
    if (op.kind != ir::OpKind::Constant)
      return unimplemented(reader + " reads the result of " + where(op) +
                           ", which no kernel computes");
    return constantSlot(root, op);
  }

  int emptySlot(ir::ValueId root) {
    BufferSlot slot;
    slot.kind = BufferSlot::Kind::kTemp;
    slot.bytes = 0;
    int index = addSlot(std::move(slot));
    slot_of_[root] = index;
    return index;
  }

  StatusOr<int> constantSlot(ir::ValueId root, const ir::Op& op) {
    JFT_ASSIGN_OR_RETURN(std::string data,
                         constantBufferData(op, module_.typeOf(root), where(op)));
    BufferSlot slot;
    slot.kind = BufferSlot::Kind::kConstant;
    slot.bytes = data.size();
    slot.data = std::move(data);
    int index = addSlot(std::move(slot));
    slot_of_[root] = index;
    return index;
  }

  Status addLaunch(size_t l) {
    const KernelLaunch& launch = launches_[l];
    const std::string reader = plan_.fusions[launch.fusion].name;
    const int thunk = static_cast<int>(program_.thunks.size());
    runtime::LaunchThunk out;
    out.kernel = launch.kernel;
    out.grid = launch.grid;
    for (ir::ValueId input : launch.inputs) {
      JFT_ASSIGN_OR_RETURN(int slot, readSlot(input, reader));
      out.buffers.push_back(slot);
      if (auto it = temp_of_slot_.find(slot); it != temp_of_slot_.end())
        temps_[it->second].last = thunk;
    }
    for (ir::ValueId output : launch.outputs) {
      if (auto it = slot_of_.find(output); it != slot_of_.end()) {
        out.buffers.push_back(it->second);
        extend(it->second, thunk);  // a later stage writes it again
        continue;
      }
      JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(output, "an output of " + reader));
      if (bytes == 0) {
        out.buffers.push_back(emptySlot(output));
        continue;
      }
      const int index = newTemp(bytes, thunk);
      slot_of_[output] = index;
      out.buffers.push_back(index);
    }
    JFT_RETURN_IF_ERROR(addScratch(launch, thunk, out.buffers));
    program_.thunks.push_back(std::move(out));
    return Status::ok();
  }

  void extend(int slot, int thunk) {
    if (auto it = temp_of_slot_.find(slot); it != temp_of_slot_.end())
      temps_[it->second].last = std::max(temps_[it->second].last, thunk);
  }

  // The group's scratch temps: made by its first stage, passed to every stage.
  Status addScratch(const KernelLaunch& launch, int thunk, std::vector<int>& buffers) {
    if (launch.stage == 0) {
      group_scratch_.clear();
      for (uint64_t bytes : launch.scratch) {
        BufferSlot slot;
        slot.kind = BufferSlot::Kind::kTemp;
        slot.bytes = bytes;
        const int index = addSlot(std::move(slot));
        group_scratch_.push_back(index);
        if (bytes == 0) continue;  // no memory
        temp_of_slot_[index] = temps_.size();
        temps_.push_back({bytes, thunk, thunk});
        temp_slots_.push_back(index);
      }
    } else if (group_scratch_.size() != launch.scratch.size()) {
      return internalError(plan_.fusions[launch.fusion].name +
                           ": its stages disagree on the scratch buffers");
    }
    for (int slot : group_scratch_) {
      buffers.push_back(slot);
      extend(slot, thunk);
    }
    return Status::ok();
  }

  // A product reads its operands like a launch and writes D where a kernel
  // would have written the dot's result.
  Status addGemm(size_t i) {
    const GemmCall& call = gemms_[i];
    if (call.op) return addLibraryOp(call);
    const std::string reader = plan_.fusions[call.fusion].name;
    const int thunk = static_cast<int>(program_.thunks.size());
    runtime::GemmThunk out;
    out.gemm = call.gemm;
    for (auto [value, slot] : {std::pair{call.a, &out.a}, std::pair{call.b, &out.b}}) {
      JFT_ASSIGN_OR_RETURN(*slot, readSlot(value, reader));
      if (auto it = temp_of_slot_.find(*slot); it != temp_of_slot_.end())
        temps_[it->second].last = thunk;
    }
    if (auto it = slot_of_.find(call.d); it != slot_of_.end()) {
      out.d = it->second;
    } else {
      JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(call.d, "the result of " + reader));
      out.d = newTemp(bytes, thunk);
      slot_of_[call.d] = out.d;
    }
    program_.thunks.push_back(std::move(out));
    return Status::ok();
  }

  // A library operation reads and writes its buffers like a launch; its
  // workspace is a temp live for the call only.
  Status addLibraryOp(const GemmCall& call) {
    const std::string reader = plan_.fusions[call.fusion].name;
    const int thunk = static_cast<int>(program_.thunks.size());
    runtime::LibraryThunk out;
    out.op = call.op->op;
    for (ir::ValueId input : call.op->inputs) {
      JFT_ASSIGN_OR_RETURN(int slot, readSlot(input, reader));
      out.buffers.push_back(slot);
      if (auto it = temp_of_slot_.find(slot); it != temp_of_slot_.end())
        temps_[it->second].last = thunk;
    }
    for (ir::ValueId output : call.op->outputs) {
      if (auto it = slot_of_.find(output); it != slot_of_.end()) {
        out.buffers.push_back(it->second);
        continue;
      }
      JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(output, "a result of " + reader));
      if (bytes == 0) {
        out.buffers.push_back(emptySlot(output));
        continue;
      }
      out.buffers.push_back(newTemp(bytes, thunk));
      slot_of_[output] = out.buffers.back();
    }
    if (call.op->workspace_bytes != 0)
      out.buffers.push_back(newTemp(call.op->workspace_bytes, thunk));
    program_.thunks.push_back(std::move(out));
    return Status::ok();
  }

  // A temp slot first used by `thunk` (liveness grows as readers come).
  int newTemp(uint64_t bytes, int thunk) {
    BufferSlot slot;
    slot.kind = BufferSlot::Kind::kTemp;
    slot.bytes = bytes;
    const int index = addSlot(std::move(slot));
    temp_of_slot_[index] = temps_.size();
    temps_.push_back({bytes, thunk, thunk});
    temp_slots_.push_back(index);
    return index;
  }

  void packTemps() {
    ArenaLayout layout = packArena(temps_);
    for (size_t i = 0; i < temp_slots_.size(); ++i)
      program_.slots[static_cast<size_t>(temp_slots_[i])].offset = layout.offsets[i];
    program_.temp_bytes = layout.size;
  }

  Status addCopies() {
    for (const PendingCopy& copy : pending_copies_) {
      JFT_ASSIGN_OR_RETURN(int source, readSlot(copy.root, "the function's return"));
      program_.thunks.push_back(runtime::CopyThunk{source, copy.destination, copy.bytes});
    }
    return Status::ok();
  }

  struct PendingCopy {
    ir::ValueId root;
    int destination;
    uint64_t bytes;
  };

  const ir::Module& module_;
  const ir::Function& function_;
  const fusion::Plan& plan_;
  const std::vector<KernelLaunch>& launches_;
  runtime::Program& program_;
  const std::vector<GemmCall>& gemms_;
  ValueForwarding forwarding_;
  std::unordered_map<ir::ValueId, size_t> defining_op_;
  std::unordered_map<ir::ValueId, size_t> written_by_;  // kernel output -> launch
  std::unordered_map<ir::ValueId, int> slot_of_;        // resolved value -> slot
  std::unordered_map<int, size_t> temp_of_slot_;        // slot -> index in temps_
  std::vector<BufferRequest> temps_;
  std::vector<int> temp_slots_;
  std::vector<int> group_scratch_;  // the current group's scratch slots
  std::vector<PendingCopy> pending_copies_;
};

}  // namespace

Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const fusion::Plan& plan,
                       const std::vector<KernelLaunch>& launches,
                       runtime::Program& program, const std::vector<GemmCall>& gemms) {
  return Assembler(module, function, plan, launches, program, gemms).run();
}

}  // namespace jft::compiler
