// Slot and thunk assembly; see program_assembly.h for where values live and
// in what order thunks run.
#include "compiler/program_assembly.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "compiler/slot_table.h"
#include "compiler/trip_count.h"
#include "compiler/value_forwarding.h"
#include "ir/printer.h"

namespace jft::compiler {
namespace {

using runtime::BufferSlot;
using runtime::Thunk;

bool isNoWorkOp(ir::OpKind kind) {
  return kind == ir::OpKind::Constant || kind == ir::OpKind::AfterAll ||
         kind == ir::OpKind::CreateToken || ValueForwarding::isForwardingOp(kind);
}

bool isControlOp(ir::OpKind kind) {
  return kind == ir::OpKind::While || kind == ir::OpKind::Case || kind == ir::OpKind::If;
}

// The routes whose groups a backend lowers (codegen/backend.h); the
// assembler runs kNone and kControl groups itself.
bool hasBackend(fusion::Route route) {
  return route == fusion::Route::kTtir || route == fusion::Route::kLibrary ||
         route == fusion::Route::kCollective || route == fusion::Route::kCustomCall;
}

// The control op of a kControl group (single-op groups).
const ir::Op* controlOpOf(const ir::Region& body, const fusion::Fusion& group) {
  for (size_t index : group.ops)
    if (index < body.ops.size() && isControlOp(body.ops[index].kind))
      return &body.ops[index];
  return nullptr;
}

class Assembler {
 public:
  Assembler(const ir::Module& module, runtime::Program& program)
      : module_(module), program_(program) {}

  Status run(const ir::Function& function, const RegionCode& top) {
    const ir::Region& body = function.body;
    if (body.ops.empty() || body.ops.back().kind != ir::OpKind::Return)
      return invalidArgument("function @" + function.name + " does not end in a return");
    JFT_ASSIGN_OR_RETURN(forwarding_, ValueForwarding::build(module_, function));
    slots_.emplace(module_, function, forwarding_, program_);
    program_.thunks.clear();
    program_.lists.clear();
    program_.parameter_bytes.clear();
    program_.output_slots.clear();
    program_.temp_bytes = 0;
    JFT_RETURN_IF_ERROR(addParameters(body));
    JFT_RETURN_IF_ERROR(addOutputs(body, top));
    JFT_RETURN_IF_ERROR(addRegion(top, body, program_.thunks));
    for (const auto& [root, output] : copies_) {
      JFT_ASSIGN_OR_RETURN(int source, slots_->read(root, "the function's return"));
      slots_->copy(source, output, program_.thunks);
    }
    slots_->packTemps();
    return Status::ok();
  }

 private:
  std::string where(const ir::Op& op) const {
    return "stablehlo." + std::string(ir::opKindName(op.kind)) + " at " +
           module_.locations.describe(op.loc);
  }

  Status addParameters(const ir::Region& body) {
    for (size_t i = 0; i < body.args.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(
          uint64_t bytes,
          slots_->bytesOf(body.args[i], "parameter " + std::to_string(i)));
      slots_->bind(body.args[i], slots_->addSlot(BufferSlot::Kind::kParameter, bytes,
                                                 static_cast<int>(i)));
      program_.parameter_bytes.push_back(bytes);
    }
    return Status::ok();
  }

  // The values a region's thunks write (kernels, calls, control ops): each
  // may be written straight into a slot chosen before the region runs.
  static std::unordered_set<ir::ValueId> computedIn(const RegionCode& code,
                                                    const ir::Region& body) {
    std::unordered_set<ir::ValueId> computed;
    for (const codegen::GroupCode& group : code.groups) {
      for (const codegen::ttir::TtirKernel& kernel : group.kernels)
        computed.insert(kernel.outputs.begin(), kernel.outputs.end());
      if (group.call)
        computed.insert(group.call->writes.begin(), group.call->writes.end());
    }
    for (const fusion::Fusion& group : code.plan.fusions)
      if (group.route == fusion::Route::kControl)
        if (const ir::Op* op = controlOpOf(body, group))
          computed.insert(op->results.begin(), op->results.end());
    return computed;
  }

  // Output slots first, so that a thunk of the body computing a returned
  // value writes it in place; the first result naming it claims it.
  Status addOutputs(const ir::Region& body, const RegionCode& top) {
    const std::unordered_set<ir::ValueId> computed = computedIn(top, body);
    const ir::Op& ret = body.ops.back();
    for (size_t i = 0; i < ret.operands.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(
          uint64_t bytes,
          slots_->bytesOf(ret.operands[i], "result " + std::to_string(i)));
      const int output =
          slots_->addSlot(BufferSlot::Kind::kOutput, bytes, static_cast<int>(i));
      program_.output_slots.push_back(output);
      const ir::ValueId root = slots_->resolve(ret.operands[i]);
      if (computed.count(root) != 0 && !slots_->hasSlot(root))
        slots_->bind(root, output);
      else if (bytes != 0)
        copies_.push_back({root, output});
    }
    return Status::ok();
  }

  // Appends the thunks of region `code` (whose ops are `body`) to `out`.
  Status addRegion(const RegionCode& code, const ir::Region& body,
                   std::vector<Thunk>& out) {
    if (code.groups.size() > code.plan.fusions.size())
      return internalError("more groups' code than groups in the plan");
    for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
      const fusion::Fusion& group = code.plan.fusions[g];
      switch (group.route) {
        case fusion::Route::kNone:
          for (size_t index : group.ops) {
            if (index >= body.ops.size())
              return internalError(group.name + " names op " + std::to_string(index) +
                                   " outside its region");
            if (!isNoWorkOp(body.ops[index].kind))
              return unimplemented(where(body.ops[index]) +
                                   " has no route that runs it (group " + group.name +
                                   ")");
          }
          break;
        case fusion::Route::kControl: {
          const ir::Op* op = controlOpOf(body, group);
          auto nested = code.nested.find(g);
          if (op == nullptr || nested == code.nested.end() ||
              nested->second.size() != op->regions.size())
            return internalError(group.name + " is a control group without its regions");
          JFT_RETURN_IF_ERROR(op->kind == ir::OpKind::While
                                  ? addWhile(*op, nested->second, out)
                                  : addConditional(*op, nested->second, out));
          break;
        }
        default: {
          const codegen::GroupCode* made =
              g < code.groups.size() ? &code.groups[g] : nullptr;
          if (made != nullptr && !made->empty()) {
            JFT_RETURN_IF_ERROR(addGroupCode(group.name, *made, out));
            break;
          }
          if (made != nullptr && !made->joined.empty()) break;  // a later group runs it
          if (hasBackend(group.route))
            return internalError(group.name + " is a " + fusion::routeName(group.route) +
                                 " group without its code");
          return unimplemented(group.name + ": route " + fusion::routeName(group.route) +
                               " cannot be executed yet");
        }
      }
    }
    return Status::ok();
  }

  // A group's kernels before its call, the call, the kernels after it.
  Status addGroupCode(const std::string& name, const codegen::GroupCode& code,
                      std::vector<Thunk>& out) {
    if (!code.kernels.empty() && code.first_kernel < 0)
      return internalError(name + ": its kernels have no place among the program's");
    const size_t before =
        code.call ? std::min(code.after_call, code.kernels.size()) : code.kernels.size();
    for (size_t k = 0; k < before; ++k)
      JFT_RETURN_IF_ERROR(
          addLaunch(name, code.kernels[k], code.first_kernel + static_cast<int>(k), out));
    if (code.call) JFT_RETURN_IF_ERROR(addCall(name, *code.call, out));
    for (size_t k = before; k < code.kernels.size(); ++k)
      JFT_RETURN_IF_ERROR(
          addLaunch(name, code.kernels[k], code.first_kernel + static_cast<int>(k), out));
    return Status::ok();
  }

  // A thunk's buffers: inputs read, then outputs written (their bound slot
  // or a new temp).
  Status addBuffers(const std::string& name, const std::vector<ir::ValueId>& inputs,
                    const std::vector<ir::ValueId>& outputs, std::vector<int>& buffers) {
    for (ir::ValueId input : inputs) {
      JFT_ASSIGN_OR_RETURN(int slot, slots_->read(input, name));
      buffers.push_back(slot);
    }
    for (ir::ValueId output : outputs) {
      JFT_ASSIGN_OR_RETURN(int slot, slots_->write(output, name));
      buffers.push_back(slot);
    }
    return Status::ok();
  }

  Status addLaunch(const std::string& name, const codegen::ttir::TtirKernel& launch,
                   int kernel, std::vector<Thunk>& out) {
    runtime::LaunchThunk thunk;
    thunk.kernel = kernel;
    thunk.grid = launch.grid;
    JFT_RETURN_IF_ERROR(addBuffers(name, launch.inputs, launch.outputs, thunk.buffers));
    // The group's scratch temps: made by its first stage, passed to every stage.
    if (launch.stage == 0) {
      group_scratch_.clear();
      for (uint64_t bytes : launch.scratch)
        group_scratch_.push_back(slots_->newTemp(bytes));
    } else if (group_scratch_.size() != launch.scratch.size()) {
      return internalError(name + ": its stages disagree on the scratch buffers");
    }
    for (int slot : group_scratch_) {
      slots_->touch(slot);
      thunk.buffers.push_back(slot);
    }
    out.push_back(std::move(thunk));
    slots_->tick();
    return Status::ok();
  }

  // A call's reads, then its writes, get slots (a collective's input and
  // output are both in use during the call, so they never share one), then
  // a workspace temp; the thunk's buffer fields take them.
  Status addCall(const std::string& name, const codegen::Call& call,
                 std::vector<Thunk>& out) {
    std::vector<int> buffers;
    JFT_RETURN_IF_ERROR(addBuffers(name, call.reads, call.writes, buffers));
    if (call.workspace_bytes != 0)
      buffers.push_back(slots_->newTemp(call.workspace_bytes));
    for (const codegen::Call::InPlace& alias : call.in_place) {
      if (alias.read >= call.reads.size() || alias.write >= call.writes.size())
        return internalError(name + ": an in-place write names a buffer the call lacks");
      int& read = buffers[alias.read];
      const int write = buffers[call.reads.size() + alias.write];
      if (read != write) out.push_back(runtime::CopyThunk{read, write, alias.bytes});
      read = write;
    }
    Thunk thunk = call.thunk;
    JFT_RETURN_IF_ERROR(
        placeBuffers(name, call.reads.size(), call.writes.size(), buffers, thunk));
    out.push_back(std::move(thunk));
    slots_->tick();
    return Status::ok();
  }

  // `buffers` (`reads` read, `writes` written, then any workspace) into the
  // fields of `thunk`.
  static Status placeBuffers(const std::string& name, size_t reads, size_t writes,
                             const std::vector<int>& buffers, Thunk& thunk) {
    auto wrong = [&](const char* what) {
      return internalError(name + ": " + what + " with " + std::to_string(reads) +
                           " reads and " + std::to_string(writes) + " writes");
    };
    if (auto* gemm = std::get_if<runtime::GemmThunk>(&thunk)) {
      if (writes != 1 || reads != (gemm->gemm.bias ? 3u : 2u))
        return wrong("a gemm (with a bias vector exactly when its description has one)");
      gemm->a = buffers[0];
      gemm->b = buffers[1];
      if (gemm->gemm.bias) gemm->bias = buffers[2];
      gemm->d = buffers[reads];
    } else if (auto* library = std::get_if<runtime::LibraryThunk>(&thunk)) {
      library->buffers = buffers;
    } else if (auto* collective = std::get_if<runtime::CollectiveThunk>(&thunk)) {
      if (reads != 1 || writes != 1) return wrong("a collective");
      if (buffers[0] == buffers[1])
        return internalError(name + ": a collective's input and output share a slot");
      collective->input = buffers[0];
      collective->output = buffers[1];
    } else if (auto* id = std::get_if<runtime::ParticipantIdThunk>(&thunk)) {
      if (reads != 0 || writes != 1) return wrong("a participant id");
      id->destination = buffers[0];
    } else if (auto* ffi = std::get_if<runtime::FfiThunk>(&thunk)) {
      ffi->arguments.assign(buffers.begin(), buffers.begin() + static_cast<long>(reads));
      ffi->results.assign(buffers.begin() + static_cast<long>(reads),
                          buffers.begin() + static_cast<long>(reads + writes));
    } else {
      return internalError(name + ": a call of a thunk kind no backend makes");
    }
    return Status::ok();
  }

  int newList() {
    program_.lists.emplace_back();
    return static_cast<int>(program_.lists.size() - 1);
  }

  // The operands a region's return hands back, checked against `count`.
  StatusOr<const ir::Op*> regionReturn(const ir::Op& op, const RegionCode& region,
                                       size_t count) {
    const ir::Region& body = region.scope.body;
    if (body.ops.empty() || body.ops.back().kind != ir::OpKind::Return ||
        body.ops.back().operands.size() != count)
      return internalError(where(op) + ": a region does not return " +
                           std::to_string(count) + " values");
    return &body.ops.back();
  }

  // Loops nested deeper than this keep one set of carried slots: each level
  // of two sets assembles the lists below it twice.
  static constexpr int kMaxPingPongDepth = 3;

  // One parity of a loop (runtime::WhileThunk): its condition and body read
  // the carried values from `from`; the body leaves the next values in `to`,
  // written there by the thunks computing `direct` roots (none: -1), copied
  // for the others.
  struct LoopPass {
    int cond = -1, predicate = -1, body = -1;
  };
  StatusOr<LoopPass> addLoopPass(const ir::Op& op, const RegionCode& cond,
                                 const RegionCode& body, const ir::Op& ret,
                                 const std::vector<int>& from, const std::vector<int>& to,
                                 const std::vector<std::optional<ir::ValueId>>& direct) {
    const std::string name = where(op);
    for (size_t k = 0; k < from.size(); ++k) {
      slots_->bind(cond.scope.body.args[k], from[k]);
      slots_->bind(body.scope.body.args[k], from[k]);
      if (direct[k]) slots_->bind(*direct[k], to[k]);
    }
    LoopPass pass;
    pass.cond = newList();
    std::vector<Thunk> cond_list;
    JFT_RETURN_IF_ERROR(addRegion(cond, cond.scope.body, cond_list));
    JFT_ASSIGN_OR_RETURN(const ir::Op* cond_ret, regionReturn(op, cond, 1));
    JFT_ASSIGN_OR_RETURN(pass.predicate, slots_->read(cond_ret->operands[0], name));
    slots_->tick();  // the host read
    program_.lists[static_cast<size_t>(pass.cond)] = std::move(cond_list);
    pass.body = newList();
    std::vector<Thunk> body_list;
    JFT_RETURN_IF_ERROR(addRegion(body, body.scope.body, body_list));
    // Next values into `to`, as one parallel assignment: a source that an
    // earlier copy of it overwrites is staged in a temp first.
    std::vector<int> sources;
    for (size_t k = 0; k < to.size(); ++k) {
      JFT_ASSIGN_OR_RETURN(int source, slots_->read(ret.operands[k], name));
      const bool overwritten = source != to[k] &&
                               std::find(to.begin(), to.end(), source) != to.end() &&
                               std::find(from.begin(), from.end(), source) != from.end();
      if (overwritten) {
        const int staged =
            slots_->newTemp(program_.slots[static_cast<size_t>(source)].bytes);
        slots_->copy(source, staged, body_list);
        source = staged;
      }
      sources.push_back(source);
    }
    for (size_t k = 0; k < to.size(); ++k) slots_->copy(sources[k], to[k], body_list);
    program_.lists[static_cast<size_t>(pass.body)] = std::move(body_list);
    return pass;
  }

  Status addWhile(const ir::Op& op, const std::vector<RegionCode>& regions,
                  std::vector<Thunk>& out) {
    const std::string name = where(op);
    const RegionCode& cond = regions[0];
    const RegionCode& body = regions[1];
    if (op.operands.size() != op.results.size() ||
        cond.scope.body.args.size() != op.results.size() ||
        body.scope.body.args.size() != op.results.size())
      return internalError(name + ": operands, results and region arguments differ");
    // Carried slots: the result's claimed (output) slot or a new temp.
    const size_t n = op.results.size();
    std::vector<int> carried;
    for (size_t k = 0; k < n; ++k) {
      JFT_ASSIGN_OR_RETURN(int init, slots_->read(op.operands[k], name));
      JFT_ASSIGN_OR_RETURN(int slot, slots_->write(op.results[k], name));
      slots_->copy(init, slot, out);
      carried.push_back(slot);
    }
    JFT_ASSIGN_OR_RETURN(const ir::Op* ret, regionReturn(op, body, n));
    // A second set of slots where the body computes a next value itself
    // (not a value it hands back unchanged, a constant or one from outside);
    // the first position returning a root claims it.
    std::vector<std::optional<ir::ValueId>> direct(n);
    std::vector<int> second = carried;
    if (loop_depth_ < kMaxPingPongDepth) {
      const std::unordered_set<ir::ValueId> computed = computedIn(body, body.scope.body);
      std::unordered_set<ir::ValueId> claimed;
      for (size_t k = 0; k < n; ++k) {
        const ir::ValueId root = slots_->resolve(ret->operands[k]);
        if (computed.count(root) != 0 && claimed.insert(root).second &&
            program_.slots[static_cast<size_t>(carried[k])].bytes != 0)
          direct[k] = root;
      }
    }
    const bool ping_pong = std::any_of(direct.begin(), direct.end(),
                                       [](const auto& d) { return d.has_value(); });
    if (ping_pong) {
      for (size_t k = 0; k < n; ++k) {
        const ir::ValueId root = slots_->resolve(ret->operands[k]);
        if (root != slots_->resolve(body.scope.body.args[k]))
          second[k] =
              slots_->newTemp(program_.slots[static_cast<size_t>(carried[k])].bytes);
      }
    }
    const int start = slots_->now();
    runtime::WhileThunk loop;
    loop.trip_count = knownTripCount(module_, op, [&](ir::ValueId v) {
      return slots_->constantOf(slots_->resolve(v));
    });
    ++loop_depth_;
    StatusOr<LoopPass> even =
        addLoopPass(op, cond, body, *ret, carried, ping_pong ? second : carried, direct);
    if (even.isOk() && ping_pong) {
      StatusOr<LoopPass> odd = addLoopPass(op, cond, body, *ret, second, carried, direct);
      if (!odd.isOk()) {
        --loop_depth_;
        return odd.status();
      }
      loop.odd_cond = odd->cond;
      loop.odd_predicate = odd->predicate;
      loop.odd_body = odd->body;
      loop.odd_exit = newList();
      std::vector<Thunk> exit_list;
      for (size_t k = 0; k < n; ++k) slots_->copy(second[k], carried[k], exit_list);
      program_.lists[static_cast<size_t>(loop.odd_exit)] = std::move(exit_list);
    }
    --loop_depth_;
    if (!even.isOk()) return even.status();
    loop.cond = even->cond;
    loop.predicate = even->predicate;
    loop.body = even->body;
    slots_->holdAcross(start, slots_->now());
    for (size_t k = 0; k < n; ++k) slots_->touch(second[k]);
    out.push_back(loop);
    slots_->tick();
    return Status::ok();
  }

  Status addConditional(const ir::Op& op, const std::vector<RegionCode>& regions,
                        std::vector<Thunk>& out) {
    const std::string name = where(op);
    runtime::ConditionalThunk conditional;
    conditional.predicate = op.kind == ir::OpKind::If;
    if (op.operands.empty()) return internalError(name + " has no index operand");
    JFT_ASSIGN_OR_RETURN(conditional.index, slots_->read(op.operands[0], name));
    std::vector<int> results;
    for (ir::ValueId result : op.results) {
      JFT_ASSIGN_OR_RETURN(int slot, slots_->write(result, name));
      results.push_back(slot);
    }
    slots_->tick();  // the host read
    for (const RegionCode& branch : regions) {
      const int list = newList();
      conditional.branches.push_back(list);
      JFT_ASSIGN_OR_RETURN(const ir::Op* ret, regionReturn(op, branch, results.size()));
      // What the branch computes itself is written straight into the
      // result's slot (bound anew each time: inside a loop the slot may
      // differ between parities); the rest is copied at its end.
      const std::unordered_set<ir::ValueId> computed =
          computedIn(branch, branch.scope.body);
      std::unordered_set<ir::ValueId> claimed;
      for (size_t k = 0; k < results.size(); ++k) {
        const ir::ValueId root = slots_->resolve(ret->operands[k]);
        if (computed.count(root) != 0 && claimed.insert(root).second &&
            program_.slots[static_cast<size_t>(results[k])].bytes != 0)
          slots_->bind(root, results[k]);
      }
      std::vector<Thunk> thunks;
      JFT_RETURN_IF_ERROR(addRegion(branch, branch.scope.body, thunks));
      for (size_t k = 0; k < results.size(); ++k) {
        JFT_ASSIGN_OR_RETURN(int source, slots_->read(ret->operands[k], name));
        slots_->copy(source, results[k], thunks);
      }
      program_.lists[static_cast<size_t>(list)] = std::move(thunks);
    }
    for (int slot : results) slots_->touch(slot);
    out.push_back(std::move(conditional));
    slots_->tick();
    return Status::ok();
  }

  const ir::Module& module_;
  runtime::Program& program_;
  ValueForwarding forwarding_;
  std::optional<SlotTable> slots_;
  std::vector<std::pair<ir::ValueId, int>> copies_;  // after everything else
  std::vector<int> group_scratch_;  // the current multi-kernel group's scratch slots
  int loop_depth_ = 0;              // loops being assembled around the current list
};

}  // namespace

Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const RegionCode& top, runtime::Program& program) {
  return Assembler(module, program).run(function, top);
}

Status assembleProgram(const ir::Module& module, const ir::Function& function,
                       const fusion::Plan& plan, std::vector<codegen::GroupCode> groups,
                       runtime::Program& program) {
  RegionCode top;
  top.plan = plan;
  top.groups = std::move(groups);
  return assembleProgram(module, function, top, program);
}

}  // namespace jft::compiler
