// Loops and branches whose bodies hold dots, built by hand in the shape JAX
// gives fori_loop / cond / nested loops, compiled (fake-worker binaries) and
// run on the recording device: kernels by host stand-ins of their group's
// ops, products by the device's host GEMM. Every output is checked against
// the same computation done here with plain matrix products (inputs are
// small integers, so all values are exact in f32).
#include <gtest/gtest.h>

#ifdef JFT_FAKE_WORKER

#include <cstring>
#include <filesystem>

#include "compiler/compiler.h"
#include "compiler/ir_shorthands.h"
#include "compiler/program_checks.h"
#include "ir/builder.h"
#include "kernel_compiler/fake_compiler_fixture.h"
#include "runtime/executable.h"
#include "runtime/recording_device.h"

namespace jft::compiler {
namespace {

namespace fs = std::filesystem;
using ir::ComparisonDirection;
using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;
using runtime::testing::floats;
using runtime::testing::ints;
using runtime::testing::RecordedOp;
using runtime::testing::RecordingDevice;
using Body = RecordingDevice::KernelBody;
using Matrix = std::vector<float>;  // 4x4, row-major
using testing::i32Constant;
using testing::kI32;
using testing::kPred;

const Type kM = Type::tensor(ElementType::F32, {4, 4});

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix d(16, 0.0f);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 4; ++k) d[i * 4 + j] += a[i * 4 + k] * b[k * 4 + j];
  return d;
}
Matrix minus(const Matrix& a, const Matrix& b) {
  Matrix d(16);
  for (int i = 0; i < 16; ++i) d[i] = a[i] - b[i];
  return d;
}
Matrix negated(const Matrix& a) {
  return minus(Matrix(16, 0.0f), a);
}

// Entries in {-1, 0, 1, 2}, different for each seed.
Matrix smallInts(int seed) {
  Matrix m(16);
  for (int i = 0; i < 16; ++i) m[i] = static_cast<float>((i * 7 + seed * 3) % 4 - 1);
  return m;
}

// Host stand-ins; buffers come in the kernel's order, inputs then outputs
// (the regions' scalar constants are inlined into the kernels).
Body increment() {
  return [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
    *ints(p[1]) = *ints(p[0]) + 1;
  };
}
// The loops here are counted: their conditions never run.
Body unexpected() {
  return [](const std::vector<uint64_t>&, const runtime::LaunchDims&) {
    ADD_FAILURE() << "a counted loop ran its condition";
  };
}
Body subtract() {
  return [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
    for (int e = 0; e < 16; ++e) floats(p[2])[e] = floats(p[0])[e] - floats(p[1])[e];
  };
}
Body negate() {
  return [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
    for (int e = 0; e < 16; ++e) floats(p[1])[e] = -floats(p[0])[e];
  };
}

ValueId dot(ir::Builder& b, ValueId lhs, ValueId rhs) {
  return b.op1(OpKind::DotGeneral, {lhs, rhs}, kM,
               {{"dot_dimension_numbers", ir::DotDimensionNumbers{{}, {}, {1}, {0}}}});
}

// cond(counter, ...) = counter < bound, for a region of `types`.
ir::Region lessThan(ir::Builder& b, const std::vector<Type>& types, int bound) {
  auto args = b.beginRegion(types);
  b.ret({b.op1(OpKind::Compare, {args[0], i32Constant(b, bound)}, kPred,
               {{"comparison_direction", ComparisonDirection::LT}})});
  return b.endRegion();
}

// A loop (counter, w, h) for i in 0..trips whose body `next(b, i, w, h)`
// gives the next h; returns the final h.
template <typename Next>
ValueId foriLoop(ir::Builder& b, ValueId w, ValueId h, int trips, Next next) {
  const std::vector<Type> types = {kI32, kM, kM};
  ValueId zero = i32Constant(b, 0);
  ir::Region cond = lessThan(b, types, trips);
  auto args = b.beginRegion(types);
  ValueId h_next = next(b, args[0], args[1], args[2]);
  ValueId i_next = b.op1(OpKind::Add, {args[0], i32Constant(b, 1)}, kI32);
  b.ret({i_next, args[1], h_next});
  ir::Region body = b.endRegion();
  return b.op(OpKind::While, {zero, w, h}, types, {}, {cond, body})[2];
}

class ControlLibraryRun : public kernel_compiler::testing::FakeCompilerFixture<> {
 protected:
  // Compiles `module`, with the host body whose key each kernel's name ends
  // with (the most specific key, the longest, wins).
  void build(ir::Module module, const std::vector<std::pair<std::string, Body>>& bodies) {
    Options options;
    options.mode = Mode::kFlOnly;
    options.matmul = fusion::MatmulRoute::kLibrary;  // the library route under test
    options.horizontal = false;  // the host bodies are per group's kernel
    StatusOr<Executable> built =
        compileModule(std::move(module), options, compiler_.get());
    ASSERT_TRUE(built.isOk()) << built.status().toString();
    program_ = built->program;
    for (const runtime::KernelImage& k : program_.kernels) {
      size_t best = 0;
      for (const auto& [key, body] : bodies)
        if (k.name.ends_with(key) && key.size() > best) {
          device_.setKernelBody(k.name, body);
          best = key.size();
        }
      EXPECT_NE(best, 0u) << "no host body for kernel " << k.name;
    }
    testing::expectConsistentProgram(program_, true);
    auto loaded = runtime::Executable::load(device_, program_);
    ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
    executable_ = std::move(loaded).value();
  }

  // Runs the built program on `inputs` (raw bytes); its outputs as f32.
  std::vector<Matrix> run(const std::vector<std::string>& inputs) {
    std::vector<runtime::ExecuteArgument> args;
    for (const std::string& bytes : inputs) {
      uint64_t address = *device_.allocate(bytes.size());
      std::memcpy(reinterpret_cast<void*>(address), bytes.data(), bytes.size());
      args.push_back({address, bytes.size(), false});
    }
    std::vector<Matrix> outputs;
    auto result = executable_->execute(args);
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    if (result.isOk()) {
      EXPECT_TRUE(result->done->await().isOk());
      for (const auto& out : result->outputs) {
        outputs.emplace_back(floats(out.address), floats(out.address) + out.bytes / 4);
        device_.deallocate(out.address, out.bytes);
      }
    }
    for (const auto& a : args) device_.deallocate(a.address, a.bytes);
    return outputs;
  }

  size_t recorded(RecordedOp::Kind kind) { return device_.opsOfKind(kind).size(); }

  RecordingDevice device_;
  runtime::Program program_;
  std::unique_ptr<runtime::Executable> executable_;
};

std::string bytesOf(const Matrix& m) {
  return std::string(reinterpret_cast<const char*>(m.data()), m.size() * sizeof(float));
}
std::string bytesOf(int32_t v) {
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

// fori_loop(0, 3, h -> h @ w - h): a product in every iteration.
TEST_F(ControlLibraryRun, ForiLoopWhoseBodyHasADot) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kM, kM}, {kM});
  ValueId h =
      foriLoop(b, args[1], args[0], 3, [](ir::Builder& b, ValueId, ValueId w, ValueId h) {
        return b.op1(OpKind::Subtract, {dot(b, h, w), h}, kM);
      });
  b.ret({h});
  b.endFunction();
  ASSERT_NO_FATAL_FAILURE(build(std::move(m), {{"loop_compare", unexpected()},
                                               {"loop_add", increment()},
                                               {"loop_subtract", subtract()}}));

  const Matrix x = smallInts(1), w = smallInts(2);
  Matrix want = x;
  for (int i = 0; i < 3; ++i) want = minus(product(want, w), want);
  auto out = run({bytesOf(x), bytesOf(w)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], want);
  EXPECT_EQ(recorded(RecordedOp::Kind::kGemm), 3u);
  EXPECT_EQ(recorded(RecordedOp::Kind::kDownload), 0u) << "a counted loop reads nothing";
}

// cond(index, a @ b, a - b): the product in branch 0 only.
TEST_F(ControlLibraryRun, CaseWithADotInOneBranch) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kI32, kM, kM}, {kM});
  b.beginRegion({});
  b.ret({dot(b, args[1], args[2])});
  ir::Region first = b.endRegion();
  b.beginRegion({});
  b.ret({b.op1(OpKind::Subtract, {args[1], args[2]}, kM)});
  ir::Region second = b.endRegion();
  ValueId r = b.op1(OpKind::Case, {args[0]}, kM, {}, {first, second});
  b.ret({r});
  b.endFunction();
  ASSERT_NO_FATAL_FAILURE(build(
      std::move(m), {{"loop_compare", unexpected()}, {"loop_subtract", subtract()}}));

  const Matrix a = smallInts(3), c = smallInts(4);
  auto out = run({bytesOf(0), bytesOf(a), bytesOf(c)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], product(a, c));
  EXPECT_EQ(recorded(RecordedOp::Kind::kGemm), 1u);
  out = run({bytesOf(1), bytesOf(a), bytesOf(c)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], minus(a, c));
  // An index out of range runs the last branch (StableHLO's rule).
  out = run({bytesOf(7), bytesOf(a), bytesOf(c)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], minus(a, c));
  EXPECT_EQ(recorded(RecordedOp::Kind::kGemm), 1u) << "branch 1 has no product";
}

// for i in 0..2: (for j in 0..3: g = g @ w) then h = g - h.
TEST_F(ControlLibraryRun, NestedLoopsWithADotInTheInnerOne) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kM, kM}, {kM});
  ValueId h =
      foriLoop(b, args[1], args[0], 2, [](ir::Builder& b, ValueId, ValueId w, ValueId h) {
        ValueId g = foriLoop(
            b, w, h, 3,
            [](ir::Builder& b, ValueId, ValueId w, ValueId g) { return dot(b, g, w); });
        return b.op1(OpKind::Subtract, {g, h}, kM);
      });
  b.ret({h});
  b.endFunction();
  ASSERT_NO_FATAL_FAILURE(build(std::move(m), {{"loop_compare", unexpected()},
                                               {"loop_add", increment()},
                                               {"loop_subtract", subtract()}}));

  const Matrix x = smallInts(5), w = smallInts(6);
  Matrix want = x;
  for (int i = 0; i < 2; ++i) {
    Matrix g = want;
    for (int j = 0; j < 3; ++j) g = product(g, w);
    want = minus(g, want);
  }
  auto out = run({bytesOf(x), bytesOf(w)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], want);
  EXPECT_EQ(recorded(RecordedOp::Kind::kGemm), 6u);
}

// for i in 0..3: h = case(i, h @ w, -h); index 2 is out of range, so the
// last branch runs: x @ w, then its negation twice.
TEST_F(ControlLibraryRun, CaseInsideALoop) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kM, kM}, {kM});
  ValueId h = foriLoop(b, args[1], args[0], 3,
                       [](ir::Builder& b, ValueId i, ValueId w, ValueId h) {
                         b.beginRegion({});
                         b.ret({dot(b, h, w)});
                         ir::Region first = b.endRegion();
                         b.beginRegion({});
                         b.ret({b.op1(OpKind::Negate, {h}, kM)});
                         ir::Region second = b.endRegion();
                         return b.op1(OpKind::Case, {i}, kM, {}, {first, second});
                       });
  b.ret({h});
  b.endFunction();
  ASSERT_NO_FATAL_FAILURE(build(std::move(m), {{"loop_compare", unexpected()},
                                               {"loop_add", increment()},
                                               {"loop_negate", negate()}}));

  const Matrix x = smallInts(7), w = smallInts(8);
  auto out = run({bytesOf(x), bytesOf(w)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], negated(negated(product(x, w))));
  EXPECT_EQ(recorded(RecordedOp::Kind::kGemm), 1u);
  EXPECT_EQ(recorded(RecordedOp::Kind::kDownload), 3u)
      << "one branch index per iteration";
}

// for i in 0..3: (a, b) = (b @ w, a). The next b is the carried a, which
// the same iteration overwrites: the copies must act as one assignment.
TEST_F(ControlLibraryRun, CarriedValuesSwappedAroundAProduct) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kM, kM, kM}, {kM, kM});
  const std::vector<Type> types = {kI32, kM, kM, kM};
  ValueId zero = i32Constant(b, 0);
  ir::Region cond = lessThan(b, types, 3);
  auto d = b.beginRegion(types);
  ValueId p = dot(b, d[2], d[3]);
  b.ret({b.op1(OpKind::Add, {d[0], i32Constant(b, 1)}, kI32), p, d[1], d[3]});
  ir::Region body = b.endRegion();
  auto r =
      b.op(OpKind::While, {zero, args[0], args[1], args[2]}, types, {}, {cond, body});
  b.ret({r[1], r[2]});
  b.endFunction();
  ASSERT_NO_FATAL_FAILURE(
      build(std::move(m), {{"loop_compare", unexpected()}, {"loop_add", increment()}}));

  const Matrix x = smallInts(11), y = smallInts(12), w = smallInts(13);
  Matrix a = x, c = y;
  for (int i = 0; i < 3; ++i) {
    Matrix next = product(c, w);
    c = a;
    a = next;
  }
  auto out = run({bytesOf(x), bytesOf(y), bytesOf(w)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], a);
  EXPECT_EQ(out[1], c);
}

// The product's weights reach the loop body through a tuple built before
// the loop (get_tuple_element inside the body).
TEST_F(ControlLibraryRun, TupleBuiltBeforeALoopIsReadInside) {
  ir::Module m;
  ir::Builder b(m);
  auto args = b.beginFunction("main", {kM, kM}, {kM});
  ValueId pair = b.op1(OpKind::Tuple, {args[0], args[1]}, Type::makeTuple({kM, kM}));
  ValueId h = foriLoop(
      b, args[1], args[0], 2, [pair](ir::Builder& b, ValueId, ValueId, ValueId h) {
        ValueId w = b.op1(OpKind::GetTupleElement, {pair}, kM, {{"index", int64_t{1}}});
        return b.op1(OpKind::Subtract, {dot(b, h, w), h}, kM);
      });
  b.ret({h});
  b.endFunction();
  ASSERT_NO_FATAL_FAILURE(build(std::move(m), {{"loop_compare", unexpected()},
                                               {"loop_add", increment()},
                                               {"loop_subtract", subtract()}}));

  const Matrix x = smallInts(9), w = smallInts(10);
  Matrix want = x;
  for (int i = 0; i < 2; ++i) want = minus(product(want, w), want);
  auto out = run({bytesOf(x), bytesOf(w)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], want);
}

}  // namespace
}  // namespace jft::compiler

#endif  // JFT_FAKE_WORKER
