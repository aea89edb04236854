// The compile entry (compiler/compile_artifact.h) against compile() on the
// zoo fixtures: the bytes are read once and, where nothing is localized,
// give what compile() gives; entry values against the types' definitions.
#include "compiler/compile_artifact.h"

#include <gtest/gtest.h>

#include "compiler/zoo_fixture.h"

namespace jft::compiler {
namespace {

using testing::zooArtifact;

TEST(CompileArtifact, OneParticipantIsCompileOfTheBytes) {
  std::string bytes = zooArtifact("smoke");
  ASSERT_FALSE(bytes.empty());
  Options options;
  StatusOr<Executable> entry = compileArtifact(bytes, options, nullptr);
  StatusOr<Executable> direct = compile(bytes, options, nullptr);
  ASSERT_TRUE(entry.isOk()) << entry.status().toString();
  ASSERT_TRUE(direct.isOk()) << direct.status().toString();
  EXPECT_EQ(entry->name, direct->name);
  EXPECT_EQ(entry->fingerprint, direct->fingerprint);
  EXPECT_EQ(entry->parameter_types, direct->parameter_types);
  EXPECT_EQ(entry->output_types, direct->output_types);
  EXPECT_EQ(entry->report.text(), direct->report.text());
}

TEST(CompileArtifact, AProgramWithoutGlobalViewRunsAsItIsOverTwoPartitions) {
  // No sdy.sharding and no manual computation: nothing to localize, so the
  // fingerprint is the bytes' (a localized program's is its printed body's).
  std::string bytes = zooArtifact("softmax");
  Options options;
  options.num_partitions = 2;
  StatusOr<Executable> entry = compileArtifact(bytes, options, nullptr);
  StatusOr<Executable> direct = compile(bytes, options, nullptr);
  ASSERT_TRUE(entry.isOk()) << entry.status().toString();
  ASSERT_TRUE(direct.isOk()) << direct.status().toString();
  EXPECT_EQ(entry->fingerprint, direct->fingerprint);
}

TEST(CompileArtifact, UnreadableBytesGiveTheReadersError) {
  Options options;
  options.num_partitions = 2;
  StatusOr<Executable> entry = compileArtifact("not bytecode", options, nullptr);
  StatusOr<Executable> direct = compile("not bytecode", options, nullptr);
  ASSERT_FALSE(entry.isOk());
  EXPECT_EQ(entry.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(entry.status().message(), direct.status().message());
}

TEST(EntryValue, ArraysTokensAndTheRest) {
  EntryValue bf16 = describeEntryValue(ir::Type::tensor(ElementType::BF16, {2, 3}));
  EXPECT_EQ(bf16.kind, EntryValue::Kind::kArray);
  EXPECT_EQ(bf16.element, ElementType::BF16);
  EXPECT_EQ(bf16.dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(bf16.bytes, 2 * 3 * 2);  // six 2-byte elements
  EXPECT_EQ(describeEntryValue(ir::Type::token()).kind, EntryValue::Kind::kToken);
  EntryValue tuple = describeEntryValue(
      ir::Type::makeTuple({ir::Type::scalar(ElementType::F32), ir::Type::token()}));
  EXPECT_EQ(tuple.kind, EntryValue::Kind::kOther);
  EXPECT_NE(tuple.text.find("tuple"), std::string::npos) << tuple.text;
}

TEST(KernelWorkers, SettingsBecomeTheWorkerCommand) {
  kernel_compiler::KernelCompilerOptions defaults = kernelCompilerOptions({});
  EXPECT_EQ(defaults.pool.command.argv,
            (std::vector<std::string>{"python3", "-m", "jax_flagtree.worker"}));
  EXPECT_EQ(defaults.dump_dir, "");
  EXPECT_EQ(defaults.pool.num_workers, defaultCompileWorkers());
  EXPECT_GE(defaultCompileWorkers(), 2);
  EXPECT_LE(defaultCompileWorkers(), 8);
  KernelWorkerSettings settings;
  settings.python_executable = "/opt/py/bin/python";
  settings.worker_module = "my.worker";
  settings.dump_dir = "dumps";
  settings.num_workers = 3;
  kernel_compiler::KernelCompilerOptions given = kernelCompilerOptions(settings);
  EXPECT_EQ(given.pool.command.argv,
            (std::vector<std::string>{"/opt/py/bin/python", "-m", "my.worker"}));
  EXPECT_EQ(given.dump_dir, "dumps");
  EXPECT_EQ(given.pool.num_workers, 3);
}

}  // namespace
}  // namespace jft::compiler
