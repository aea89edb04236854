// Splat constants stay one element from import to the Program, and are spelled
// out only for a constant buffer.
//
// The program is what JAX sends for jax.random.normal(key, (1 << 26,))
// (tests/fixtures/jax_dumps/rng_normal_2p26.mlirbc): its @_normal_real holds
// 23 constants of tensor<67108864xf32>, each dense<v> in the text (inf, 1.0,
// then the erfinv polynomial's coefficients). Spelled out they were 256 MiB
// each, copied by every pass; kept as one element the whole compile fits in a
// few MiB.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>

#include "compiler/compiler.h"
#include "compiler/constant_data.h"
#include "compiler/program_assembly.h"
#include "compiler/zoo_fixture.h"
#include "frontend/vhlo/import.h"
#include "ir/builder.h"
#include "passes/pipeline.h"

namespace jft::compiler {
namespace {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

std::string rngNormalArtifact() {
  return testing::readBytes(testing::fixtureDir().parent_path() / "jax_dumps" /
                            "rng_normal_2p26.mlirbc");
}

// A field of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 where the
// file or the field is missing.
int64_t statusKiB(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1));
  return -1;
}

// How far resident memory rises above where it is now while `run` runs: the
// peak is reset first (clear_refs 5), so earlier tests of the binary and a
// sanitizer's own memory do not count.
template <typename Run>
int64_t residentGrowthKiB(Run run) {
  std::ofstream("/proc/self/clear_refs") << "5";
  const int64_t before = statusKiB("VmRSS");
  run();
  const int64_t peak = statusKiB("VmHWM");
  return before < 0 || peak < 0 ? -1 : peak - before;
}

// The constants of `elements` elements in every function body.
std::vector<const ir::DenseElements*> constantsOf(const ir::Module& m, int64_t elements) {
  std::vector<const ir::DenseElements*> out;
  for (const ir::Function& f : m.functions)
    for (const ir::Op& op : f.body.ops) {
      if (op.kind != OpKind::Constant) continue;
      const auto* value = ir::findAttrAs<ir::DenseElements>(op.attrs, "value");
      if (value && value->numElements() == elements) out.push_back(value);
    }
  return out;
}

TEST(SplatConstants, RngNormalImportsTwentyThreeOneElementSplats) {
  const std::string bytes = rngNormalArtifact();
  ASSERT_FALSE(bytes.empty());
  StatusOr<ir::Module> m = frontend::importStableHlo(
      reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  ASSERT_TRUE(m.isOk()) << m.status().toString();
  std::vector<const ir::DenseElements*> big = constantsOf(*m, int64_t{1} << 26);
  ASSERT_EQ(big.size(), 23u);
  for (const ir::DenseElements* value : big) {
    EXPECT_TRUE(value->splat);
    EXPECT_EQ(value->bytes.size(), 4u);
  }
  // dense<inf> (0x7F800000) and dense<1.0> (0x3F800000), little endian.
  EXPECT_EQ(big[0]->bytes, (std::vector<uint8_t>{0, 0, 0x80, 0x7F}));
  EXPECT_EQ(big[1]->bytes, (std::vector<uint8_t>{0, 0, 0x80, 0x3F}));
  EXPECT_TRUE(passes::runPasses(*m).isOk());
}

TEST(SplatConstants, RngNormalCompilesToOneKernelInLittleMemory) {
  const std::string bytes = rngNormalArtifact();
  ASSERT_FALSE(bytes.empty());
  Options options;
  options.mode = Mode::kFlOnly;
  Stages stages;
  std::optional<StatusOr<Executable>> compiled;
  const int64_t growth = residentGrowthKiB(
      [&] { compiled.emplace(compile(bytes, options, nullptr, &stages)); });
  StatusOr<Executable>& built = *compiled;
  ASSERT_TRUE(built.isOk()) << built.status().toString();
  EXPECT_EQ(stages.ttir.size(), 1u);
  EXPECT_EQ(built->output_types,
            (std::vector<Type>{Type::tensor(ElementType::F32, {int64_t{1} << 26})}));
  // Every splat is a scalar in the kernel, none a buffer.
  for (const runtime::BufferSlot& slot : built->program.slots)
    EXPECT_NE(slot.kind, runtime::BufferSlot::Kind::kConstant);
  // One constant spelled out would be 256 MiB.
  if (growth >= 0) {
    EXPECT_LT(growth, 128 * 1024);
  }
}

// A plan whose only group returns the constant (op 0) as a buffer.
StatusOr<runtime::Program> assembleReturnedConstant(const ir::Module& m, ValueId c) {
  fusion::Plan plan;
  fusion::Fusion group;
  group.name = "group_0";
  group.route = fusion::Route::kNone;
  group.ops = {0};
  group.outputs = {c};
  plan.fusions.push_back(std::move(group));
  runtime::Program program;
  JFT_RETURN_IF_ERROR(assembleProgram(m, m.functions.at(0), plan, {}, program));
  return program;
}

TEST(SplatConstants, AReturnedSplatIsSpelledOutInItsBuffer) {
  // 1001 i16 elements of 0x1234 (an odd count: the last copy is partial).
  const Type type = Type::tensor(ElementType::I16, {7, 143});
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {type});
  ValueId c = b.constant(ir::DenseElements::makeSplat(type, {0x34, 0x12}));
  b.ret({c});
  b.endFunction();
  StatusOr<runtime::Program> program = assembleReturnedConstant(m, c);
  ASSERT_TRUE(program.isOk()) << program.status().toString();
  const runtime::CopyThunk& copy = std::get<runtime::CopyThunk>(program->thunks.at(0));
  const runtime::BufferSlot& slot = program->slots.at(static_cast<size_t>(copy.source));
  EXPECT_EQ(slot.kind, runtime::BufferSlot::Kind::kConstant);
  EXPECT_EQ(slot.bytes, 2002u);
  std::string expected;
  for (int i = 0; i < 1001; ++i) expected += "\x34\x12";
  EXPECT_EQ(slot.data, expected);
}

TEST(SplatConstants, ASplatTooLargeForAHostBufferIsAClearError) {
  const Type type = Type::tensor(ElementType::F32, {int64_t{1} << 40});
  ir::Module m;
  ir::Builder b(m);
  b.beginFunction("main", {}, {type});
  b.setLoc(b.fileLoc("model.py", 3, 7));
  ValueId c = b.constant(ir::DenseElements::makeSplat(type, {0, 0, 0x80, 0x3F}));
  b.ret({c});
  b.endFunction();
  Status s = assembleReturnedConstant(m, c).status();
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("stablehlo.constant"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("model.py:3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("tensor<1099511627776xf32>"), std::string::npos)
      << s.message();
}

TEST(SplatConstants, BufferDataOfASpelledOutLiteralIsItsBytes) {
  const Type type = Type::tensor(ElementType::I32, {3});
  ir::Op op;
  op.kind = OpKind::Constant;
  op.attrs = {{"value", ir::denseFromValues(type, {1, -1, 2})}};
  StatusOr<std::string> data = constantBufferData(op, type, "c");
  ASSERT_TRUE(data.isOk());
  EXPECT_EQ(*data, std::string("\x01\0\0\0\xFF\xFF\xFF\xFF\x02\0\0\0", 12));
  // A literal of another type than its result is bad input.
  EXPECT_EQ(
      constantBufferData(op, Type::tensor(ElementType::I32, {4}), "c").status().code(),
      StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::compiler
