// Slots, constants, temps and their liveness (see slot_table.h).
#include "compiler/slot_table.h"

#include <algorithm>

#include "compiler/constant_data.h"
#include "ir/printer.h"

namespace jft::compiler {

using runtime::BufferSlot;

SlotTable::SlotTable(const ir::Module& module, const ir::Function& function,
                     const ValueForwarding& forwarding, runtime::Program& program)
    : module_(module), forwarding_(forwarding), program_(program) {
  program_.slots.clear();
  index(function.body);
}

void SlotTable::index(const ir::Region& region) {
  for (const ir::Op& op : region.ops) {
    for (ir::ValueId result : op.results) defined_by_[result] = &op;
    for (const ir::Region& nested : op.regions) index(nested);
  }
}

std::string SlotTable::where(const ir::Op& op) const {
  return "stablehlo." + std::string(ir::opKindName(op.kind)) + " at " +
         module_.locations.describe(op.loc);
}

StatusOr<uint64_t> SlotTable::bytesOf(ir::ValueId value, const std::string& what) const {
  const ir::Type& type = module_.typeOf(value);
  if (type.isToken()) return uint64_t{0};
  if (type.isTuple())
    return unimplemented(what + " is a tuple (" + type.str() +
                         "); tuples have no buffer form yet");
  return static_cast<uint64_t>(type.byteSize());
}

int SlotTable::addSlot(BufferSlot::Kind kind, uint64_t bytes, int index) {
  BufferSlot slot;
  slot.kind = kind;
  slot.bytes = bytes;
  slot.index = index;
  program_.slots.push_back(std::move(slot));
  return static_cast<int>(program_.slots.size() - 1);
}

int SlotTable::newTemp(uint64_t bytes) {
  const int slot = addSlot(BufferSlot::Kind::kTemp, bytes);
  if (bytes == 0) return slot;
  temp_of_slot_[slot] = temps_.size();
  temps_.push_back({bytes, time_, time_});
  temp_slots_.push_back(slot);
  return slot;
}

void SlotTable::touch(int slot) {
  if (auto it = temp_of_slot_.find(slot); it != temp_of_slot_.end())
    temps_[it->second].last = std::max(temps_[it->second].last, time_);
}

const ir::Op* SlotTable::constantOf(ir::ValueId root) const {
  auto it = defined_by_.find(root);
  if (it == defined_by_.end() || it->second->kind != ir::OpKind::Constant) return nullptr;
  return it->second;
}

StatusOr<int> SlotTable::read(ir::ValueId value, const std::string& reader) {
  const ir::ValueId root = resolve(value);
  if (auto it = slot_of_.find(root); it != slot_of_.end()) {
    touch(it->second);
    return it->second;
  }
  JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(root, "a value read by " + reader));
  if (bytes == 0) return slot_of_[root] = newTemp(0);
  auto def = defined_by_.find(root);
  if (def == defined_by_.end())
    return internalError(reader + " reads a value no earlier thunk computes");
  const ir::Op& op = *def->second;
  if (op.kind != ir::OpKind::Constant)
    return internalError(reader + " reads the result of " + where(op) +
                         " before any thunk computes it");
  JFT_ASSIGN_OR_RETURN(std::string data,
                       constantBufferData(op, module_.typeOf(root), where(op)));
  if (data.size() != bytes)
    return internalError(where(op) + ": a constant of " + std::to_string(data.size()) +
                         " bytes where " + std::to_string(bytes) + " were expected");
  const int slot = addSlot(BufferSlot::Kind::kConstant, bytes);
  program_.slots[static_cast<size_t>(slot)].data = std::move(data);
  return slot_of_[root] = slot;
}

StatusOr<int> SlotTable::write(ir::ValueId value, const std::string& writer) {
  if (auto it = slot_of_.find(value); it != slot_of_.end()) {
    touch(it->second);
    return it->second;
  }
  JFT_ASSIGN_OR_RETURN(uint64_t bytes, bytesOf(value, "an output of " + writer));
  return slot_of_[value] = newTemp(bytes);
}

void SlotTable::copy(int source, int destination, std::vector<runtime::Thunk>& out) {
  const uint64_t bytes = program_.slots[static_cast<size_t>(destination)].bytes;
  if (source == destination || bytes == 0) return;
  touch(source);
  touch(destination);
  out.push_back(runtime::CopyThunk{source, destination, bytes});
  tick();
}

void SlotTable::holdAcross(int start, int end) {
  for (BufferRequest& temp : temps_)
    if (temp.first < start && temp.last >= start) temp.last = std::max(temp.last, end);
}

void SlotTable::packTemps() {
  ArenaLayout layout = packArena(temps_);
  for (size_t i = 0; i < temp_slots_.size(); ++i)
    program_.slots[static_cast<size_t>(temp_slots_[i])].offset = layout.offsets[i];
  program_.temp_bytes = layout.size;
}

}  // namespace jft::compiler
