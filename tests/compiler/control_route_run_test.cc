// The zoo's loops and conditional, compiled (fake-worker binaries) and run on
// the runtime's recording device, with each kernel replaced by a host
// function of the ops its group holds. The outputs are compared with JAX's
// (out*.npy): the program's slots, carried copies, trip counts, predicate
// reads and branch choice must all be right for them to match.
#include <gtest/gtest.h>

#ifdef JFT_FAKE_WORKER

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>

#include "compiler/compiler.h"
#include "compiler/zoo_fixture.h"
#include "kernel_compiler/fake_compiler_fixture.h"
#include "runtime/executable.h"
#include "runtime/recording_device.h"

namespace jft::compiler {
namespace {

namespace fs = std::filesystem;
using runtime::testing::floats;
using runtime::testing::ints;
using runtime::testing::RecordingDevice;
using Body = RecordingDevice::KernelBody;

// The float32 data of a little-endian .npy file.
std::vector<float> npyFloats(const std::string& zoo, const std::string& file) {
  std::string b = testing::readBytes(testing::fixtureDir() / zoo / file);
  if (b.size() < 10) return {};
  const size_t header = static_cast<uint8_t>(b[8]) | (static_cast<uint8_t>(b[9]) << 8);
  std::vector<float> out((b.size() - 10 - header) / sizeof(float));
  std::memcpy(out.data(), b.data() + 10 + header, out.size() * sizeof(float));
  return out;
}

uint8_t* u8(uint64_t a) {
  return reinterpret_cast<uint8_t*>(a);
}

class ControlRouteRun : public kernel_compiler::testing::FakeCompilerFixture<> {
 protected:
  // Compiles zoo program `name`, gives each kernel the body whose key its
  // name ends with, runs it on in*.npy and returns the outputs.
  // Horizontal fusion stays off unless `horizontal`: the host bodies are
  // per group's kernel, and a combined launch needs a body of its own.
  std::vector<std::vector<float>> run(
      const std::string& name, const std::vector<std::pair<std::string, Body>>& bodies,
      RecordingDevice& device, bool horizontal = false) {
    Options options;
    options.mode = Mode::kFlOnly;
    options.horizontal = horizontal;
    StatusOr<Executable> built =
        compile(testing::zooArtifact(name), options, compiler_.get());
    EXPECT_TRUE(built.isOk()) << built.status().toString();
    if (!built.isOk()) return {};
    for (const runtime::KernelImage& k : built->program.kernels) {
      bool found = false;
      for (const auto& [key, body] : bodies)
        if (k.name.ends_with(key)) {
          device.setKernelBody(k.name, body);
          found = true;
        }
      EXPECT_TRUE(found) << "no host body for kernel " << k.name;
    }
    auto loaded = runtime::Executable::load(device, built->program);
    EXPECT_TRUE(loaded.isOk()) << loaded.status().toString();
    if (!loaded.isOk()) return {};
    std::vector<runtime::ExecuteArgument> args;
    for (size_t i = 0;; ++i) {
      std::vector<float> data = npyFloats(name, "in" + std::to_string(i) + ".npy");
      if (data.empty()) break;
      uint64_t bytes = data.size() * sizeof(float);
      uint64_t address = *device.allocate(bytes);
      std::memcpy(floats(address), data.data(), bytes);
      args.push_back({address, bytes, false});
    }
    auto result = (*loaded)->execute(args);
    EXPECT_TRUE(result.isOk()) << result.status().toString();
    std::vector<std::vector<float>> outputs;
    if (result.isOk()) {
      EXPECT_TRUE(result->done->await().isOk());
      for (const auto& out : result->outputs) {
        outputs.emplace_back(floats(out.address), floats(out.address) + out.bytes / 4);
        device.deallocate(out.address, out.bytes);
      }
    }
    for (const auto& a : args) device.deallocate(a.address, a.bytes);
    return outputs;
  }

  static void expectNear(const std::vector<float>& got, const std::vector<float>& want,
                         float tolerance) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_NEAR(got[i], want[i], tolerance * std::max(1.0f, std::fabs(want[i]))) << i;
  }

  size_t launches(const RecordingDevice& device, const std::string& key) {
    size_t n = 0;
    for (const auto& op : device.opsOfKind(runtime::testing::RecordedOp::Kind::kLaunch))
      n += op.kernel.ends_with(key);
    return n;
  }
};

// Buffers come in the kernel's order: inputs (constants the passes moved out
// of the regions among them), then outputs.
Body addI32() {
  return [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
    *ints(p[2]) = *ints(p[0]) + *ints(p[1]);
  };
}

// x = sin(x) * 0.9 + i for i in 0..9 (the counter is read before it grows).
TEST_F(ControlRouteRun, ForiLoopRunsTenBodiesWithoutReadingTheDevice) {
  RecordingDevice device;
  auto out = run("fori",
                 {{"cond_fusion_0_loop_compare",
                   [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
                     *u8(p[2]) = *ints(p[0]) < *ints(p[1]);
                   }},
                  {"loop_add", addI32()},
                  {"sine_multiply_convert",
                   [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
                     for (int e = 0; e < 128; ++e)
                       floats(p[3])[e] = std::sin(floats(p[0])[e]) * *floats(p[1]) +
                                         static_cast<float>(*ints(p[2]));
                   }}},
                 device);
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], npyFloats("fori", "out0.npy"), 1e-5f);
  EXPECT_EQ(launches(device, "sine_multiply_convert"), 10u);
  EXPECT_EQ(launches(device, "loop_compare"), 0u);
  EXPECT_TRUE(device.opsOfKind(runtime::testing::RecordedOp::Kind::kDownload).empty());
}

// The same loop with the body's three groups (the counter's add, the sine,
// the fori index's add) as one combined launch: each member's body on its
// part of the buffers (every member's inputs, then every member's outputs),
// in the loop's two sets of carried slots.
TEST_F(ControlRouteRun, ForiBodyAsOneCombinedLaunch) {
  RecordingDevice device;
  const Body sine = [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
    for (int e = 0; e < 128; ++e)
      floats(p[3])[e] =
          std::sin(floats(p[0])[e]) * *floats(p[1]) + static_cast<float>(*ints(p[2]));
  };
  const Body combined = [sine](const std::vector<uint64_t>& p,
                               const runtime::LaunchDims& dims) {
    ASSERT_GE(p.size(), 2u + 3u + 2u + 3u);  // then the scratch pointers Triton appends
    addI32()({p[0], p[1], p[7]}, dims);
    sine({p[2], p[3], p[4], p[8]}, dims);
    addI32()({p[5], p[6], p[9]}, dims);
  };
  auto out = run("fori",
                 {{"cond_fusion_0_loop_compare",
                   [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
                     *u8(p[2]) = *ints(p[0]) < *ints(p[1]);
                   }},
                  {"hfusion_while_4_body_fusion_0_loop_add", combined}},
                 device, true);
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], npyFloats("fori", "out0.npy"), 1e-5f);
  EXPECT_EQ(launches(device, "hfusion_while_4_body_fusion_0_loop_add"), 10u);
  EXPECT_EQ(device.opsOfKind(runtime::testing::RecordedOp::Kind::kLaunch).size(), 10u)
      << "one launch per iteration";
}

// (x, s) -> (x * 1.01, s + sum(x)) while s < 100.
TEST_F(ControlRouteRun, DataDependentLoopStopsOnItsPredicate) {
  RecordingDevice device;
  auto out = run("while_dyn",
                 {{"cond_fusion_0_loop_compare",
                   [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
                     *u8(p[2]) = *floats(p[0]) < *floats(p[1]);
                   }},
                  {"loop_multiply",
                   [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
                     for (int e = 0; e < 16; ++e)
                       floats(p[2])[e] = floats(p[1])[e] * *floats(p[0]);
                   }},
                  {"reduction_reduce_add",
                   [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
                     float sum = 0;
                     for (int e = 0; e < 16; ++e) sum += floats(p[0])[e];
                     *floats(p[3]) = *floats(p[2]) + sum + *floats(p[1]);
                   }}},
                 device);
  ASSERT_EQ(out.size(), 2u);
  expectNear(out[0], npyFloats("while_dyn", "out0.npy"), 1e-5f);
  expectNear(out[1], npyFloats("while_dyn", "out1.npy"), 1e-5f);
  const size_t bodies = launches(device, "loop_multiply");
  EXPECT_GE(bodies, 1u);
  EXPECT_EQ(device.opsOfKind(runtime::testing::RecordedOp::Kind::kDownload).size(),
            bodies + 1)
      << "one predicate read per iteration and the last, false one";
}

// case(x > 0) { cos(y) } { exp(y) } on the fixture's x.
TEST_F(ControlRouteRun, CaseRunsTheBranchItsIndexNames) {
  RecordingDevice device;
  const std::vector<std::pair<std::string, Body>> bodies = {
      {"loop_compare_convert",
       [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
         *ints(p[1]) = *floats(p[0]) > 0.0f ? 1 : 0;
       }},
      {"branch0_fusion_0_loop_cosine",
       [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
         for (int e = 0; e < 64; ++e) floats(p[1])[e] = std::cos(floats(p[0])[e]);
       }},
      {"branch1_fusion_0_loop_exponential",
       [](const std::vector<uint64_t>& p, const runtime::LaunchDims&) {
         for (int e = 0; e < 64; ++e) floats(p[1])[e] = std::exp(floats(p[0])[e]);
       }}};
  auto out = run("cond", bodies, device);
  ASSERT_EQ(out.size(), 1u);
  expectNear(out[0], npyFloats("cond", "out0.npy"), 1e-5f);
  EXPECT_EQ(launches(device, "loop_cosine") + launches(device, "loop_exponential"), 1u);
}

}  // namespace
}  // namespace jft::compiler

#endif  // JFT_FAKE_WORKER
