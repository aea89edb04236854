// The control route's planning and assembly (see control_lowering.h).
#include "compiler/control_lowering.h"

#include <algorithm>
#include <unordered_map>

#include "compiler/buffer_assignment.h"
#include "compiler/constant_data.h"
#include "compiler/trip_count.h"
#include "compiler/unsupported_ops.h"
#include "compiler/value_forwarding.h"

namespace jft::compiler {
namespace {

using runtime::BufferSlot;
using runtime::Thunk;

bool isControlOp(ir::OpKind kind) {
  return kind == ir::OpKind::While || kind == ir::OpKind::Case || kind == ir::OpKind::If;
}

// The control op of a kControl group (single-op groups).
const ir::Op* controlOpOf(const ir::Function& scope, const fusion::Fusion& group) {
  for (size_t index : group.ops)
    if (index < scope.body.ops.size() && isControlOp(scope.body.ops[index].kind))
      return &scope.body.ops[index];
  return nullptr;
}

std::string regionName(const ir::Op& op, size_t r) {
  if (op.kind == ir::OpKind::While) return r == 0 ? "cond" : "body";
  if (op.kind == ir::OpKind::If) return r == 0 ? "true" : "false";
  return "branch" + std::to_string(r);
}

bool isNoWorkOp(ir::OpKind kind) {
  return kind == ir::OpKind::Constant || kind == ir::OpKind::AfterAll ||
         kind == ir::OpKind::CreateToken || ValueForwarding::isForwardingOp(kind);
}

class ControlAssembler {
 public:
  ControlAssembler(const ir::Module& module, runtime::Program& program)
      : module_(module), program_(program) {}

  Status run(const ir::Function& function, const RegionCode& top) {
    const ir::Region& body = function.body;
    if (body.ops.empty() || body.ops.back().kind != ir::OpKind::Return)
      return invalidArgument("function @" + function.name + " does not end in a return");
    indexConstants(body);
    program_.slots.clear();
    program_.thunks.clear();
    program_.lists.clear();
    program_.parameter_bytes.clear();
    program_.output_slots.clear();
    JFT_ASSIGN_OR_RETURN(ValueForwarding forwarding,
                         ValueForwarding::build(module_, function));
    forwarding_.push_back(std::move(forwarding));
    for (size_t i = 0; i < body.args.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(uint64_t bytes,
                           bytesOf(body.args[i], "parameter " + std::to_string(i)));
      slot_of_[body.args[i]] = addSlot(BufferSlot::Kind::kParameter, bytes, int(i));
      program_.parameter_bytes.push_back(bytes);
    }
    // Output slots first: a kernel output or control result the function
    // returns is computed straight into it; the first result naming it wins.
    std::unordered_map<ir::ValueId, bool> computed;
    for (const fusion::Fusion& group : top.plan.fusions) {
      if (group.route == fusion::Route::kTtir)
        for (ir::ValueId v : group.outputs) computed[v] = true;
      if (group.route == fusion::Route::kControl)
        if (const ir::Op* op = controlOpOf(top.scope, group))
          for (ir::ValueId v : op->results) computed[v] = true;
    }
    const ir::Op& ret = body.ops.back();
    std::vector<std::pair<ir::ValueId, int>> copies;
    for (size_t i = 0; i < ret.operands.size(); ++i) {
      JFT_ASSIGN_OR_RETURN(uint64_t bytes,
                           bytesOf(ret.operands[i], "result " + std::to_string(i)));
      int output = addSlot(BufferSlot::Kind::kOutput, bytes, static_cast<int>(i));
      program_.output_slots.push_back(output);
      ir::ValueId root = resolve(ret.operands[i]);
      if (computed.count(root) != 0 && slot_of_.count(root) == 0)
        slot_of_[root] = output;
      else if (bytes != 0)
        copies.push_back({root, output});
    }
    JFT_RETURN_IF_ERROR(addRegion(top, program_.thunks, /*forwarding_pushed=*/true));
    for (auto [root, output] : copies) {
      JFT_ASSIGN_OR_RETURN(int source, readSlot(root, "the function's return"));
      program_.thunks.push_back(
          runtime::CopyThunk{source, output, program_.slots[output].bytes});
      ++time_;
    }
    ArenaLayout layout = packArena(temps_);
    for (size_t i = 0; i < temp_slots_.size(); ++i)
      program_.slots[static_cast<size_t>(temp_slots_[i])].offset = layout.offsets[i];
    program_.temp_bytes = layout.size;
    return Status::ok();
  }

 private:
  void indexConstants(const ir::Region& region) {
    for (const ir::Op& op : region.ops) {
      if (op.kind == ir::OpKind::Constant && op.results.size() == 1)
        constants_[op.results[0]] = &op;
      for (const ir::Region& nested : op.regions) indexConstants(nested);
    }
  }

  std::string where(const ir::Op& op) const {
    return "stablehlo." + std::string(ir::opKindName(op.kind)) + " at " +
           module_.locations.describe(op.loc);
  }

  // Innermost region's forwarding first: a region sees its enclosing ones'.
  ir::ValueId resolve(ir::ValueId value) const {
    for (auto it = forwarding_.rbegin(); it != forwarding_.rend(); ++it)
      value = it->resolve(value);
    return value;
  }

  StatusOr<uint64_t> bytesOf(ir::ValueId value, const std::string& what) const {
    const ir::Type& type = module_.typeOf(value);
    if (type.isToken()) return uint64_t{0};
    if (type.isTuple())
      return unimplemented(what + " is a tuple (" + type.str() +
                           "); tuples have no buffer form yet");
    return static_cast<uint64_t>(type.byteSize());
  }

  int addSlot(BufferSlot::Kind kind, uint64_t bytes, int index = -1) {
    BufferSlot slot;
    slot.kind = kind;
    slot.bytes = bytes;
    slot.index = index;
    program_.slots.push_back(std::move(slot));
    return static_cast<int>(program_.slots.size() - 1);
  }

  // A temp whose life starts now; 0 bytes take no memory.
  int newTemp(uint64_t bytes) {
    int slot = addSlot(BufferSlot::Kind::kTemp, bytes);
    if (bytes == 0) return slot;
    temp_of_slot_[slot] = temps_.size();
    temps_.push_back({bytes, time_, time_});
    temp_slots_.push_back(slot);
    return slot;
  }

  // Marks a slot used now (read or written).
  void touch(int slot) {
    if (auto it = temp_of_slot_.find(slot); it != temp_of_slot_.end())
      temps_[it->second].last = std::max(temps_[it->second].last, time_);
  }

  StatusOr<int> readSlot(ir::ValueId value, const std::string& reader) {
    ir::ValueId root = resolve(value);
    if (auto it = slot_of_.find(root); it != slot_of_.end()) {
      touch(it->second);
      return it->second;
    }
    JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(root, "a value read by " + reader));
    if (bytes == 0) return slot_of_[root] = newTemp(0);
    auto def = constants_.find(root);
    if (def == constants_.end())
      return internalError(reader + " reads a value no earlier thunk computes");
    JFT_ASSIGN_OR_RETURN(
        std::string data,
        constantBufferData(*def->second, module_.typeOf(root), where(*def->second)));
    if (data.size() != bytes)
      return internalError(where(*def->second) + ": a constant of " +
                           std::to_string(data.size()) + " bytes where " +
                           std::to_string(bytes) + " were expected");
    int slot = addSlot(BufferSlot::Kind::kConstant, bytes);
    program_.slots[slot].data = std::move(data);
    return slot_of_[root] = slot;
  }

  // The slot a computed value is written to: its claimed slot or a new temp.
  StatusOr<int> writeSlot(ir::ValueId value, const std::string& writer) {
    if (auto it = slot_of_.find(value); it != slot_of_.end()) {
      touch(it->second);
      return it->second;
    }
    JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(value, "an output of " + writer));
    return slot_of_[value] = newTemp(bytes);
  }

  // Appends the region's thunks to `out`.
  Status addRegion(const RegionCode& code, std::vector<Thunk>& out,
                   bool forwarding_pushed) {
    if (!forwarding_pushed) {
      JFT_ASSIGN_OR_RETURN(ValueForwarding forwarding,
                           ValueForwarding::build(module_, code.scope));
      forwarding_.push_back(std::move(forwarding));
    }
    size_t next_launch = 0;
    for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
      const fusion::Fusion& group = code.plan.fusions[g];
      switch (group.route) {
        case fusion::Route::kTtir: {
          if (next_launch >= code.launches.size() ||
              code.launches[next_launch].fusion != g)
            return internalError(group.name +
                                 " is a TTIR group without its kernel launch");
          while (next_launch < code.launches.size() &&
                 code.launches[next_launch].fusion == g)
            JFT_RETURN_IF_ERROR(addLaunch(group.name, code.launches[next_launch++], out));
          break;
        }
        case fusion::Route::kNone:
          for (size_t index : group.ops)
            if (index >= code.scope.body.ops.size() ||
                !isNoWorkOp(code.scope.body.ops[index].kind))
              return unimplemented("group " + group.name + " has work but no route");
          break;
        case fusion::Route::kControl: {
          const ir::Op* op = controlOpOf(code.scope, group);
          auto nested = code.nested.find(g);
          if (op == nullptr || nested == code.nested.end() ||
              nested->second.size() != op->regions.size())
            return internalError(group.name + " is a control group without its regions");
          JFT_RETURN_IF_ERROR(op->kind == ir::OpKind::While
                                  ? addWhile(*op, nested->second, out)
                                  : addConditional(*op, nested->second, out));
          break;
        }
        default:
          return unimplemented(group.name + ": route " + fusion::routeName(group.route) +
                               " cannot run in a program with control flow yet");
      }
    }
    if (next_launch != code.launches.size())
      return internalError("more kernel launches than TTIR groups in a region");
    forwarding_.pop_back();
    return Status::ok();
  }

  Status addLaunch(const std::string& name, const KernelLaunch& launch,
                   std::vector<Thunk>& out) {
    runtime::LaunchThunk thunk;
    thunk.kernel = launch.kernel;
    thunk.grid = launch.grid;
    for (ir::ValueId input : launch.inputs) {
      JFT_ASSIGN_OR_RETURN(int slot, readSlot(input, name));
      thunk.buffers.push_back(slot);
    }
    for (ir::ValueId output : launch.outputs) {
      JFT_ASSIGN_OR_RETURN(int slot, writeSlot(output, name));
      thunk.buffers.push_back(slot);
    }
    // The group's scratch temps: made by its first stage, used by every stage.
    if (launch.stage == 0) {
      group_scratch_.clear();
      for (uint64_t bytes : launch.scratch) group_scratch_.push_back(newTemp(bytes));
    } else if (group_scratch_.size() != launch.scratch.size()) {
      return internalError(name + ": its stages disagree on the scratch buffers");
    }
    for (int slot : group_scratch_) {
      touch(slot);
      thunk.buffers.push_back(slot);
    }
    out.push_back(std::move(thunk));
    ++time_;
    return Status::ok();
  }

  void copy(int source, int destination, std::vector<Thunk>& out) {
    const uint64_t bytes = program_.slots[destination].bytes;
    if (source == destination || bytes == 0) return;
    touch(source);
    touch(destination);
    out.push_back(runtime::CopyThunk{source, destination, bytes});
    ++time_;
  }

  // Temps defined before `start` and used since: a loop reads them again on
  // every iteration, so they live until `end`.
  void holdAcross(int start, int end) {
    for (BufferRequest& temp : temps_)
      if (temp.first < start && temp.last >= start) temp.last = std::max(temp.last, end);
  }

  int newList() {
    program_.lists.emplace_back();
    return static_cast<int>(program_.lists.size() - 1);
  }

  Status addWhile(const ir::Op& op, const std::vector<RegionCode>& regions,
                  std::vector<Thunk>& out) {
    const std::string name = where(op);
    const RegionCode& cond = regions[0];
    const RegionCode& body = regions[1];
    // Carried slots: the result's claimed (output) slot or a new temp.
    std::vector<int> carried;
    for (size_t k = 0; k < op.results.size(); ++k) {
      JFT_ASSIGN_OR_RETURN(int init, readSlot(op.operands[k], name));
      JFT_ASSIGN_OR_RETURN(int slot, writeSlot(op.results[k], name));
      copy(init, slot, out);
      carried.push_back(slot);
      slot_of_[cond.scope.body.args[k]] = slot;
      slot_of_[body.scope.body.args[k]] = slot;
    }
    const int start = time_;
    runtime::WhileThunk loop;
    loop.trip_count = knownTripCount(module_, op, [&](ir::ValueId v) -> const ir::Op* {
      auto it = constants_.find(resolve(v));
      return it == constants_.end() ? nullptr : it->second;
    });
    loop.cond = newList();
    std::vector<Thunk> cond_list;
    JFT_RETURN_IF_ERROR(addRegion(cond, cond_list, false));
    JFT_ASSIGN_OR_RETURN(loop.predicate,
                         readSlot(cond.scope.body.ops.back().operands.at(0), name));
    ++time_;  // the host read
    program_.lists[loop.cond] = std::move(cond_list);
    loop.body = newList();
    std::vector<Thunk> body_list;
    JFT_RETURN_IF_ERROR(addRegion(body, body_list, false));
    // Next values into the carried slots, as one parallel assignment: a
    // carried slot read for another position is staged in a temp first.
    const ir::Op& ret = body.scope.body.ops.back();
    std::vector<int> sources;
    for (size_t k = 0; k < carried.size(); ++k) {
      JFT_ASSIGN_OR_RETURN(int source, readSlot(ret.operands.at(k), name));
      const bool other_carried =
          source != carried[k] &&
          std::find(carried.begin(), carried.end(), source) != carried.end();
      if (other_carried) {
        int staged = newTemp(program_.slots[source].bytes);
        copy(source, staged, body_list);
        source = staged;
      }
      sources.push_back(source);
    }
    for (size_t k = 0; k < carried.size(); ++k) copy(sources[k], carried[k], body_list);
    program_.lists[loop.body] = std::move(body_list);
    holdAcross(start, time_);
    out.push_back(loop);
    ++time_;
    return Status::ok();
  }

  Status addConditional(const ir::Op& op, const std::vector<RegionCode>& regions,
                        std::vector<Thunk>& out) {
    const std::string name = where(op);
    runtime::ConditionalThunk conditional;
    conditional.predicate = op.kind == ir::OpKind::If;
    JFT_ASSIGN_OR_RETURN(conditional.index, readSlot(op.operands.at(0), name));
    std::vector<int> results;
    for (ir::ValueId result : op.results) {
      JFT_ASSIGN_OR_RETURN(int slot, writeSlot(result, name));
      results.push_back(slot);
    }
    ++time_;  // the host read
    for (const RegionCode& branch : regions) {
      int list = newList();
      conditional.branches.push_back(list);
      std::vector<Thunk> thunks;
      JFT_RETURN_IF_ERROR(addRegion(branch, thunks, false));
      const ir::Op& ret = branch.scope.body.ops.back();
      for (size_t k = 0; k < results.size(); ++k) {
        JFT_ASSIGN_OR_RETURN(int source, readSlot(ret.operands.at(k), name));
        copy(source, results[k], thunks);
      }
      program_.lists[list] = std::move(thunks);
    }
    for (int slot : results) touch(slot);
    out.push_back(std::move(conditional));
    ++time_;
    return Status::ok();
  }

  const ir::Module& module_;
  runtime::Program& program_;
  int time_ = 0;  // position on the one timeline through every list
  std::vector<ValueForwarding> forwarding_;
  std::unordered_map<ir::ValueId, const ir::Op*> constants_;
  std::unordered_map<ir::ValueId, int> slot_of_;
  std::unordered_map<int, size_t> temp_of_slot_;
  std::vector<BufferRequest> temps_;
  std::vector<int> temp_slots_;
  std::vector<int> group_scratch_;  // the current group's scratch slots
};

}  // namespace

bool hasControl(const fusion::Plan& plan) {
  return std::any_of(plan.fusions.begin(), plan.fusions.end(), [](const auto& group) {
    return group.route == fusion::Route::kControl;
  });
}

void planControlRegions(const ir::Module& module, RegionCode& code,
                        const fusion::PlanOptions& options,
                        std::vector<fusion::UnsupportedOp>& unsupported, long top_op) {
  for (size_t g = 0; g < code.plan.fusions.size(); ++g) {
    const fusion::Fusion& group = code.plan.fusions[g];
    if (group.route != fusion::Route::kControl) continue;
    const ir::Op* op = controlOpOf(code.scope, group);
    if (op == nullptr) continue;
    const size_t at = static_cast<size_t>(op - code.scope.body.ops.data());
    const long top = top_op >= 0 ? top_op : static_cast<long>(at);
    std::vector<RegionCode>& regions = code.nested[g];
    for (size_t r = 0; r < op->regions.size(); ++r) {
      RegionCode& region = regions.emplace_back();
      region.scope.name = code.scope.name;
      region.scope.body = op->regions[r];
      region.plan = fusion::planFusions(module, region.scope, options);
      const std::string prefix = std::string(ir::opKindName(op->kind)) + "_" +
                                 std::to_string(at) + "_" + regionName(*op, r) + "_";
      for (fusion::Fusion& inner : region.plan.fusions) inner.name = prefix + inner.name;
      for (fusion::UnsupportedOp u : region.plan.unsupported) {
        const ir::Op& bad = region.scope.body.ops[u.op];
        u.what = describeOp(module, bad);
        u.location = module.locations.describe(bad.loc);
        u.op = static_cast<size_t>(top);
        unsupported.push_back(std::move(u));
      }
      planControlRegions(module, region, options, unsupported, top);
    }
  }
}

std::vector<RegionCode*> nestedRegions(RegionCode& code) {
  std::vector<RegionCode*> out;
  for (auto& [group, regions] : code.nested)
    for (RegionCode& region : regions) {
      out.push_back(&region);
      for (RegionCode* inner : nestedRegions(region)) out.push_back(inner);
    }
  return out;
}

Status assembleControlProgram(const ir::Module& module, const ir::Function& function,
                              const RegionCode& top, runtime::Program& program) {
  return ControlAssembler(module, program).run(function, top);
}

}  // namespace jft::compiler
