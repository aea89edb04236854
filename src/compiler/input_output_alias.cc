// Output aliases from donation attributes, granted where in-place is safe.
#include "compiler/input_output_alias.h"

#include <algorithm>
#include <limits>
#include <variant>

namespace jft::compiler {
namespace {

constexpr int kNever = std::numeric_limits<int>::max();

bool truthy(const ir::Attribute& attr) {
  if (attr.is<bool>()) return attr.as<bool>();
  if (attr.is<ir::UnitAttr>()) return true;
  if (attr.is<int64_t>()) return attr.as<int64_t>() != 0;
  return false;
}

bool touchesSlot(const runtime::Program& program, const runtime::Thunk& thunk, int slot);

bool listTouchesSlot(const runtime::Program& program, int list, int slot) {
  if (list < 0) return false;  // none (a counted loop's unused condition)
  if (static_cast<size_t>(list) >= program.lists.size()) return true;
  for (const runtime::Thunk& thunk : program.lists[static_cast<size_t>(list)])
    if (touchesSlot(program, thunk, slot)) return true;
  return false;
}

// Whether `thunk` reads or writes `slot`; a loop or conditional touches what
// its lists do.
bool touchesSlot(const runtime::Program& program, const runtime::Thunk& thunk, int slot) {
  auto names = [slot](const std::vector<int>& buffers) {
    return std::find(buffers.begin(), buffers.end(), slot) != buffers.end();
  };
  if (const auto* launch = std::get_if<runtime::LaunchThunk>(&thunk))
    return names(launch->buffers);
  if (const auto* library = std::get_if<runtime::LibraryThunk>(&thunk))
    return names(library->buffers);
  if (const auto* copy = std::get_if<runtime::CopyThunk>(&thunk))
    return copy->source == slot || copy->destination == slot;
  if (const auto* memset = std::get_if<runtime::MemsetThunk>(&thunk))
    return memset->destination == slot;
  if (const auto* gemm = std::get_if<runtime::GemmThunk>(&thunk))
    return gemm->a == slot || gemm->b == slot || gemm->d == slot || gemm->bias == slot;
  if (const auto* collective = std::get_if<runtime::CollectiveThunk>(&thunk))
    return collective->input == slot || collective->output == slot;
  if (const auto* id = std::get_if<runtime::ParticipantIdThunk>(&thunk))
    return id->destination == slot;
  if (const auto* loop = std::get_if<runtime::WhileThunk>(&thunk)) {
    if (loop->predicate == slot || loop->odd_predicate == slot) return true;
    for (int list : loop->lists())
      if (listTouchesSlot(program, list, slot)) return true;
    return false;
  }
  if (const auto* conditional = std::get_if<runtime::ConditionalThunk>(&thunk)) {
    if (conditional->index == slot) return true;
    for (int branch : conditional->branches)
      if (listTouchesSlot(program, branch, slot)) return true;
    return false;
  }
  return true;  // a thunk kind unknown here: assume the worst
}

// The first top-level thunk after `after` touching `slot`.
int nextTouch(const runtime::Program& program, int slot, int after) {
  for (size_t i = static_cast<size_t>(after) + 1; i < program.thunks.size(); ++i)
    if (touchesSlot(program, program.thunks[i], slot)) return static_cast<int>(i);
  return kNever;
}

int lastTouch(const runtime::Program& program, int slot) {
  for (size_t i = program.thunks.size(); i-- > 0;)
    if (touchesSlot(program, program.thunks[i], slot)) return static_cast<int>(i);
  return -1;
}

int parameterSlot(const runtime::Program& program, int parameter) {
  for (size_t s = 0; s < program.slots.size(); ++s)
    if (program.slots[s].kind == runtime::BufferSlot::Kind::kParameter &&
        program.slots[s].index == parameter)
      return static_cast<int>(s);
  return -1;
}

}  // namespace

std::vector<int> donationRequests(const ir::Function& function) {
  std::vector<int> requests(function.body.args.size(), -1);
  for (size_t p = 0; p < requests.size() && p < function.arg_attrs.size(); ++p) {
    const ir::NamedAttrs& attrs = function.arg_attrs[p];
    if (const int64_t* output = ir::findAttrAs<int64_t>(attrs, "tf.aliasing_output")) {
      if (*output >= 0 && *output < std::numeric_limits<int>::max())
        requests[p] = static_cast<int>(*output);
    } else if (const ir::Attribute* donor = ir::findAttr(attrs, "jax.buffer_donor")) {
      if (truthy(*donor)) requests[p] = kAnyOutput;
    }
  }
  return requests;
}

void assignOutputAliases(const std::vector<int>& requests, runtime::Program& program) {
  const size_t outputs = program.output_slots.size();
  program.output_aliases.assign(outputs, -1);
  program.donated_parameters.assign(requests.size(), false);
  for (size_t p = 0; p < requests.size(); ++p)
    program.donated_parameters[p] = requests[p] != -1;
  auto safe = [&](int parameter, size_t output) {
    int param_slot = parameterSlot(program, parameter);
    int out_slot = program.output_slots[output];
    if (param_slot < 0 || out_slot < 0 ||
        static_cast<size_t>(out_slot) >= program.slots.size())
      return false;
    if (program.slots[static_cast<size_t>(param_slot)].bytes !=
            program.slots[static_cast<size_t>(out_slot)].bytes ||
        program.slots[static_cast<size_t>(out_slot)].bytes == 0)
      return false;
    // The first thunk touching an output slot writes it.
    int writer = nextTouch(program, out_slot, -1);
    if (writer == kNever) return false;
    // Returning the donated parameter itself (or carrying it in a loop): the
    // copy becomes a no-op, and the parameter keeps its data until the next
    // thunk touching the output (a loop carrying it) changes it.
    const auto* copy =
        std::get_if<runtime::CopyThunk>(&program.thunks[static_cast<size_t>(writer)]);
    if (copy != nullptr && copy->source == param_slot && copy->destination == out_slot)
      return lastTouch(program, param_slot) < nextTouch(program, out_slot, writer);
    return lastTouch(program, param_slot) < writer;
  };
  // Explicit requests first, so that a buffer donor never takes an output
  // that a parameter asked for by index.
  for (size_t p = 0; p < requests.size(); ++p) {
    int output = requests[p];
    if (output < 0 || static_cast<size_t>(output) >= outputs) continue;
    if (program.output_aliases[static_cast<size_t>(output)] != -1) continue;
    if (safe(static_cast<int>(p), static_cast<size_t>(output)))
      program.output_aliases[static_cast<size_t>(output)] = static_cast<int>(p);
  }
  for (size_t p = 0; p < requests.size(); ++p) {
    if (requests[p] != kAnyOutput) continue;
    for (size_t o = 0; o < outputs; ++o) {
      if (program.output_aliases[o] != -1) continue;
      bool asked_for = false;
      for (int r : requests) asked_for = asked_for || r == static_cast<int>(o);
      if (asked_for) continue;
      if (safe(static_cast<int>(p), o)) {
        program.output_aliases[o] = static_cast<int>(p);
        break;
      }
    }
  }
}

}  // namespace jft::compiler
