// Helpers for the kernel-family tests: hand-built functions made into one
// fusion, and counting in TTIR text.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "codegen/ttir/kernel.h"
#include "fusion/fusion.h"
#include "ir/builder.h"
#include "launch_dump.h"
#include "ttir_syntax.h"

namespace jft::codegen::ttir::testing {

using ir::ElementType;
using ir::OpKind;
using ir::Type;
using ir::ValueId;

inline Type f32(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::F32, dims);
}
inline Type bf16(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::BF16, dims);
}
inline Type i32(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::I32, dims);
}
inline Type pred(std::vector<int64_t> dims = {}) {
  return Type::tensor(ElementType::PRED, dims);
}

inline ValueId scalarConstant(ir::Builder& b, const Type& type, double value) {
  return b.constant(ir::denseFromValues(type, {value}));
}

// The whole entry function as one group: every op but the return, the
// arguments it reads (first use first) as inputs, the returned values as
// outputs (kernel.h's contract, built independently of the planner).
inline fusion::Fusion wholeFunction(const ir::Module& module, fusion::Family family,
                                    const std::string& name = "fusion_0_test") {
  const ir::Function& f = *module.entry();
  fusion::Fusion fusion;
  fusion.name = name;
  fusion.family = family;
  std::set<ValueId> args(f.body.args.begin(), f.body.args.end()), seen;
  for (size_t i = 0; i + 1 < f.body.ops.size(); ++i) {
    fusion.ops.push_back(i);
    for (ValueId v : f.body.ops[i].operands)
      if (args.count(v) && seen.insert(v).second) fusion.inputs.push_back(v);
  }
  for (ValueId v : f.body.ops.back().operands)
    if (std::find(fusion.outputs.begin(), fusion.outputs.end(), v) ==
        fusion.outputs.end())
      fusion.outputs.push_back(v);
  return fusion;
}

// Where `what` first occurs in `text` at or after `from`; the test fails when
// it does not.
inline size_t at(const std::string& text, const std::string& what, size_t from = 0) {
  const size_t p = text.find(what, from);
  EXPECT_NE(p, std::string::npos) << "no '" << what << "' after " << from << "\n" << text;
  return p;
}

inline int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

// Emits the whole entry function as one kernel; fails the test on an error or
// on text the syntax checker rejects.
// `fusion`'s one kernel, its TTIR syntax checked and, under
// JFT_TTIR_DUMP_DIR, dumped with its launch.
inline TtirKernel emitChecked(const ir::Module& module, const fusion::Fusion& fusion) {
  StatusOr<TtirKernel> kernel = emitKernel(module, *module.entry(), fusion);
  EXPECT_TRUE(kernel.isOk()) << kernel.status().toString();
  if (!kernel.isOk()) return {};
  const Status syntax = checkTtirSyntax(kernel->ttir);
  EXPECT_TRUE(syntax.isOk()) << syntax.toString() << "\n" << kernel->ttir;
  // For compiling and running on a GPU machine: <test name>.ttir and its
  // launch in <test name>.json, always together (a GPU script reads both).
  if (const char* dump = std::getenv("JFT_TTIR_DUMP_DIR"); dump && *dump) {
    std::filesystem::create_directories(dump);
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::ofstream(std::string(dump) + "/" + test->test_suite_name() + "_" + test->name() +
                  ".ttir")
        << kernel->ttir;
    dumpLaunch(*kernel);
  }
  return *kernel;
}

inline TtirKernel emitWhole(const ir::Module& module, fusion::Family family) {
  return emitChecked(module, wholeFunction(module, family));
}

// The same for a group that may run as several kernels; each is checked and,
// under JFT_TTIR_DUMP_DIR, dumped as <suite>_<test>__s<stage>.ttir with its
// launch (grid, num_warps, the group's scratch bytes) in the .json beside it,
// for tests/codegen/run_indexing_check.py.
inline std::vector<TtirKernel> emitWholeStages(const ir::Module& module,
                                               fusion::Family family,
                                               const EmitOptions& options = {}) {
  const fusion::Fusion fusion = wholeFunction(module, family);
  StatusOr<std::vector<TtirKernel>> kernels =
      emitKernels(module, *module.entry(), fusion, options);
  EXPECT_TRUE(kernels.isOk()) << kernels.status().toString();
  if (!kernels.isOk()) return {};
  const char* dump = std::getenv("JFT_TTIR_DUMP_DIR");
  for (const TtirKernel& k : *kernels) {
    const Status syntax = checkTtirSyntax(k.ttir);
    EXPECT_TRUE(syntax.isOk()) << syntax.toString() << "\n" << k.ttir;
    if (!dump || !*dump) continue;
    std::filesystem::create_directories(dump);
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string base = std::string(dump) + "/" + test->test_suite_name() + "_" +
                             test->name() + "__s" + std::to_string(k.stage);
    std::ofstream(base + ".ttir") << k.ttir;
    std::string scratch;
    for (uint64_t bytes : k.scratch)
      scratch += (scratch.empty() ? "" : ", ") + std::to_string(bytes);
    std::ofstream(base + ".json")
        << "{\"grid\": [" << k.grid[0] << ", " << k.grid[1] << ", " << k.grid[2]
        << "], \"num_warps\": " << k.num_warps << ", \"scratch\": [" << scratch << "]}\n";
  }
  return *kernels;
}

}  // namespace jft::codegen::ttir::testing
