// A pmap-style program over two replicas, from our IR to its execution: the
// compiler lowers its all_reduce and all_gather to collective thunks, each
// replica's copy of the program is loaded on its own host-memory device and
// run on its own thread with its ParticipantContext, and a host stand-in for
// the collective library meets both ranks and computes what
// runtime/collective.h defines. The results are checked against sums and
// concatenations worked out here, so the compiler's descriptions, the
// runtime's group resolution and the participants' wiring must agree.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <variant>
#include <vector>

#include "compiler/compiler.h"
#include "ir/builder.h"
#include "passes/collective_attrs.h"
#include "runtime/collective_context.h"
#include "runtime/executable.h"
#include "runtime/recording_device.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using runtime::CollectiveDesc;
using runtime::CollectiveKind;

// Meets the ranks of a clique on the host: each run() waits until every rank
// has arrived, the last one computes all_reduce sum / all_gather of f32 data
// into every rank's output (addresses are host pointers on the recording
// device).
class HostCollectives final : public runtime::CollectiveRunner {
 public:
  Status run(const CollectiveDesc& desc, std::span<const int64_t> clique, int64_t rank,
             uint64_t input, uint64_t output) override {
    std::unique_lock<std::mutex> lock(mutex_);
    cliques.push_back({clique.begin(), clique.end()});
    Meeting& m = meetings_[generation_];
    m.parts[rank] = {input, output};
    if (static_cast<int64_t>(m.parts.size()) == desc.ranks) {
      compute(desc, m);
      m.done = true;
      ++generation_;
      met_.notify_all();
    } else {
      const int generation = generation_;
      met_.wait(lock, [&] { return meetings_[generation].done; });
    }
    return Status::ok();
  }
  std::vector<std::vector<int64_t>> cliques;

 private:
  struct Meeting {
    std::map<int64_t, std::pair<uint64_t, uint64_t>> parts;  // rank -> (in, out)
    bool done = false;
  };
  static float* at(uint64_t address) { return reinterpret_cast<float*>(address); }
  static void compute(const CollectiveDesc& desc, Meeting& m) {
    const int64_t n = desc.count;
    for (auto& [rank, part] : m.parts) {
      float* out = at(part.second);
      if (desc.kind == CollectiveKind::kAllReduce) {
        for (int64_t i = 0; i < n; ++i) {
          float sum = 0;
          for (auto& [r, p] : m.parts) sum += at(p.first)[i];
          out[i] = sum;
        }
      } else {
        ASSERT_EQ(desc.kind, CollectiveKind::kAllGather);
        for (auto& [r, p] : m.parts)
          std::memcpy(out + r * n, at(p.first), static_cast<size_t>(n) * sizeof(float));
      }
    }
  }
  std::mutex mutex_;
  std::condition_variable met_;
  std::map<int, Meeting> meetings_;
  int generation_ = 0;
};

// main(x: f32[2, 3]) -> (psum(x), all_gather(x, dim 0)) over replicas {0, 1}.
ir::Module psumAndGather() {
  ir::Module m;
  m.name = "jit_pmapped";
  ir::Builder b(m);
  const Type x = Type::tensor(ElementType::F32, {2, 3});
  const Type gathered = Type::tensor(ElementType::F32, {4, 3});
  auto args = b.beginFunction("main", {x}, {x, gathered});
  const ir::NamedAttrs groups = passes::testing::groups(1, 2, {0, 1});
  const Type scalar = Type::scalar(ElementType::F32);
  auto a = b.beginRegion({scalar, scalar});
  b.ret({b.op1(OpKind::Add, {a[0], a[1]}, scalar)});
  std::vector<ir::Region> sum;
  sum.push_back(b.endRegion());
  b.setLoc(b.fileLoc("model.py", 5, 3));
  const ir::ValueId reduced =
      b.op1(OpKind::AllReduce, {args[0]}, x, groups, std::move(sum));
  ir::NamedAttrs gather = groups;
  gather.push_back({"all_gather_dim", int64_t{0}});
  const ir::ValueId all = b.op1(OpKind::AllGather, {args[0]}, gathered, gather);
  b.setLoc(ir::kUnknownLoc);
  b.ret({reduced, all});
  b.endFunction();
  return m;
}

TEST(CollectiveProgramRun, TwoReplicasSumAndGatherThroughTheirParticipants) {
  Options options;
  options.mode = Mode::kFlOnly;
  options.num_replicas = 2;
  StatusOr<Executable> compiled = compileModule(psumAndGather(), options, nullptr);
  ASSERT_TRUE(compiled.isOk()) << compiled.status().toString();
  int collectives = 0;
  for (const runtime::Thunk& t : compiled->program.thunks)
    collectives += std::holds_alternative<runtime::CollectiveThunk>(t);
  EXPECT_EQ(collectives, 2);

  // Replica r runs on global device 10 + r.
  const runtime::ParticipantLayout layout{2, 1, {10, 11}};
  HostCollectives library;
  runtime::testing::RecordingDevice devices[2];
  std::vector<std::unique_ptr<runtime::Executable>> loaded;
  for (auto& device : devices) {
    auto e = runtime::Executable::load(device, compiled->program);
    ASSERT_TRUE(e.isOk()) << e.status().toString();
    loaded.push_back(std::move(*e));
  }
  std::vector<float> inputs[2];
  uint64_t argument[2];
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 6; ++i) inputs[r].push_back(static_cast<float>(10 * r + i + 1));
    auto address = devices[r].allocate(24);
    ASSERT_TRUE(address.isOk());
    argument[r] = *address;
    std::memcpy(reinterpret_cast<void*>(argument[r]), inputs[r].data(), 24);
  }
  StatusOr<runtime::ExecuteResult> results[2] = {internalError("not run"),
                                                 internalError("not run")};
  std::thread threads[2];
  for (int r = 0; r < 2; ++r)
    threads[r] = std::thread([&, r] {
      const runtime::ParticipantContext participant{&layout, r, 0, &library};
      const runtime::ExecuteArgument arg{argument[r], 24, false};
      results[r] = loaded[r]->execute({&arg, 1}, &participant);
    });
  for (auto& t : threads) t.join();

  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(results[r].isOk()) << results[r].status().toString();
    ASSERT_EQ(results[r]->outputs.size(), 2u);
    const auto* sum = reinterpret_cast<const float*>(results[r]->outputs[0].address);
    const auto* all = reinterpret_cast<const float*>(results[r]->outputs[1].address);
    for (int i = 0; i < 6; ++i) {
      EXPECT_EQ(sum[i], inputs[0][i] + inputs[1][i]) << "replica " << r << " sum " << i;
      EXPECT_EQ(all[i], inputs[0][i]) << "replica " << r << " gathered " << i;
      EXPECT_EQ(all[6 + i], inputs[1][i]) << "replica " << r << " gathered " << 6 + i;
    }
  }
  ASSERT_EQ(library.cliques.size(), 4u);
  for (const auto& clique : library.cliques)
    EXPECT_EQ(clique, (std::vector<int64_t>{10, 11}));
}

}  // namespace
}  // namespace jft::compiler
