#include "pjrt/executable_cost.h"

#include <type_traits>
#include <variant>

#include "runtime/collective.h"

namespace jft::pjrt {
namespace {

class ByteCounter {
 public:
  explicit ByteCounter(const runtime::Program& program) : program_(program) {}

  void list(const std::vector<runtime::Thunk>& thunks) {
    for (const runtime::Thunk& thunk : thunks)
      std::visit([this](const auto& t) { count(t); }, thunk);
  }
  uint64_t total = 0;

 private:
  uint64_t slot(int index) const {
    if (index < 0 || static_cast<size_t>(index) >= program_.slots.size()) return 0;
    return program_.slots[static_cast<size_t>(index)].bytes;
  }
  void slots(const std::vector<int>& indices) {
    for (int index : indices) total += slot(index);
  }
  void nested(int index) {
    if (index < 0 || static_cast<size_t>(index) >= program_.lists.size()) return;
    if (depth_ > 64)
      return;  // a malformed program's cycle; the checker refuses it anyway
    ++depth_;
    list(program_.lists[static_cast<size_t>(index)]);
    --depth_;
  }

  void count(const runtime::LaunchThunk& t) { slots(t.buffers); }
  void count(const runtime::CopyThunk& t) { total += 2 * t.bytes; }
  void count(const runtime::MemsetThunk& t) { total += t.bytes; }
  void count(const runtime::GemmThunk& t) {
    total += slot(t.a) + slot(t.b) + slot(t.d) + slot(t.bias);
  }
  void count(const runtime::LibraryThunk& t) { slots(t.buffers); }
  void count(const runtime::CollectiveThunk& t) {
    total +=
        runtime::collectiveInputBytes(t.desc) + runtime::collectiveOutputBytes(t.desc);
  }
  void count(const runtime::ParticipantIdThunk&) { total += 4; }
  void count(const runtime::FfiThunk& t) {
    slots(t.arguments);
    slots(t.results);
  }
  void count(const runtime::WhileThunk& t) {
    nested(t.cond);
    nested(t.body);
  }
  void count(const runtime::ConditionalThunk& t) {
    for (int branch : t.branches) nested(branch);
  }

  const runtime::Program& program_;
  int depth_ = 0;
};

}  // namespace

uint64_t bytesAccessed(const runtime::Program& program) {
  ByteCounter counter(program);
  counter.list(program.thunks);
  return counter.total;
}

std::shared_ptr<const NamedValues> costProperties(double flops, double transcendentals,
                                                  const runtime::Program& program) {
  auto values = std::make_shared<NamedValues>();
  values->addFloat("flops", static_cast<float>(flops));
  values->addFloat("transcendentals", static_cast<float>(transcendentals));
  values->addFloat("bytes accessed", static_cast<float>(bytesAccessed(program)));
  return values;
}

}  // namespace jft::pjrt
