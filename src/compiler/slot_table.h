// The program's slot table on one liveness timeline, as the assembler
// (program_assembly.h) fills it: which slot holds each value, constants'
// bytes, temps and when each is used, copies, and the packing of temps into
// the arena.
//
// Time advances by one per thunk appended to any list (and per host read of
// a predicate or branch index), in the order the assembler walks the
// function and its nested regions, so temps of one loop body or branch pack
// against each other like those of a straight-line program.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/buffer_assignment.h"
#include "compiler/value_forwarding.h"
#include "ir/module.h"
#include "runtime/program.h"
#include "support/status.h"

namespace jft::compiler {

class SlotTable {
 public:
  // `forwarding` covers the function and its regions; `program` gets the
  // slots (its slot list is cleared).
  SlotTable(const ir::Module& module, const ir::Function& function,
            const ValueForwarding& forwarding, runtime::Program& program);

  // Bytes of a value's buffer: 0 for tokens; tuples have no buffer form
  // (UNIMPLEMENTED naming `what` and the type).
  StatusOr<uint64_t> bytesOf(ir::ValueId value, const std::string& what) const;

  int addSlot(runtime::BufferSlot::Kind kind, uint64_t bytes, int index = -1);
  // A temp whose life starts now; 0 bytes take no memory.
  int newTemp(uint64_t bytes);
  // Marks a slot used now (read or written).
  void touch(int slot);

  // The value `value` resolves to (through tuple / get_tuple_element /
  // optimization_barrier).
  ir::ValueId resolve(ir::ValueId value) const { return forwarding_.resolve(value); }
  bool hasSlot(ir::ValueId root) const { return slot_of_.count(root) != 0; }
  // Places the resolved value `root` in `slot` (a parameter, an output slot
  // it is computed into, a loop's carried slot).
  void bind(ir::ValueId root, int slot) { slot_of_[root] = slot; }

  // The slot a thunk of `reader` reads `value` from, touched now: its
  // value's slot, or a constant's slot made on first read.
  StatusOr<int> read(ir::ValueId value, const std::string& reader);
  // The slot a computed value is written to: its bound slot or a new temp.
  StatusOr<int> write(ir::ValueId value, const std::string& writer);

  // Appends a copy of `source` into `destination` (the destination's size)
  // to `out`; nothing when they are one slot or empty.
  void copy(int source, int destination, std::vector<runtime::Thunk>& out);

  int now() const { return time_; }
  void tick() { ++time_; }
  // Temps used before `start` and since: a loop reads them again on every
  // iteration, so they live until `end`.
  void holdAcross(int start, int end);

  // The constant op defining a resolved value (in any region), or null.
  const ir::Op* constantOf(ir::ValueId root) const;

  // Arena offsets of the temps and the program's temp_bytes.
  void packTemps();

 private:
  std::string where(const ir::Op& op) const;
  void index(const ir::Region& region);

  const ir::Module& module_;
  const ValueForwarding& forwarding_;
  runtime::Program& program_;
  int time_ = 0;
  std::unordered_map<ir::ValueId, const ir::Op*> defined_by_;  // every op's results
  std::unordered_map<ir::ValueId, int> slot_of_;               // resolved value -> slot
  std::unordered_map<int, size_t> temp_of_slot_;               // slot -> index in temps_
  std::vector<BufferRequest> temps_;
  std::vector<int> temp_slots_;
};

}  // namespace jft::compiler
