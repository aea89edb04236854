// The frame layout is checked byte by byte against the specification in
// compile_protocol.py; messages are hand-written JSON as the worker sends it.
#include "kernel_compiler/protocol.h"

#include <gtest/gtest.h>

namespace jft::kernel_compiler {
namespace {

std::string handMadeFrame(std::string_view header, std::string_view payload) {
  std::string bytes = "JFTW";
  uint32_t h = static_cast<uint32_t>(header.size());
  for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<char>((h >> (8 * i)) & 0xff));
  uint64_t p = payload.size();
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((p >> (8 * i)) & 0xff));
  return bytes + std::string(header) + std::string(payload);
}

Frame frameOf(std::string_view header, std::string_view payload = {}) {
  auto frame = decodeFrame(handMadeFrame(header, payload));
  EXPECT_TRUE(frame.isOk()) << frame.status().toString();
  return frame.isOk() ? *frame : Frame{};
}

constexpr char kIdentity[] =
    R"("compiler": {"name": "flagtree", "version": "0.4.0", "triton_version": "3.5.1",
                    "detected_by": "distribution 'flagtree' provides triton",
                    "build_id": "5f0c2a9e11d3b7a4"})";

TEST(Protocol, EncodesTheDocumentedLayout) {
  Json header;
  header.set("type", "shutdown");
  std::string bytes = encodeFrame(header, std::string("\x00\x01", 2));
  EXPECT_EQ(bytes, handMadeFrame(R"({"type":"shutdown"})", std::string("\x00\x01", 2)));
}

TEST(Protocol, RejectsBadMagicTruncationAndHugeLengths) {
  std::string good = handMadeFrame(R"({"type":"x"})", "pp");
  EXPECT_TRUE(decodeFrame(good).isOk());
  std::string bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_FALSE(decodeFrame(bad_magic).isOk());
  EXPECT_FALSE(decodeFrame(good.substr(0, good.size() - 1)).isOk());
  EXPECT_FALSE(decodeFrame(good + "z").isOk());
  std::string huge = good;
  huge[15] = '\x7f';  // payload length near 2^63
  EXPECT_FALSE(decodeFramePrefix(huge).isOk());
}

TEST(Protocol, CompileRequestCarriesTargetAndOptions) {
  CompileRequest request;
  request.ttir = "module {}";
  request.target = {"hip", "gfx942", 64};
  request.options = {8, 2, 1};
  Json header = compileRequestHeader(7, request);
  EXPECT_EQ(
      header.dump(),
      R"({"id":7,"options":{"num_ctas":1,"num_stages":2,"num_warps":8},)"
      R"("target":{"arch":"gfx942","backend":"hip","warp_size":64},"type":"compile"})");
}

// Protocol 2: a module in MLIR bytecode (a Pallas kernel's) says so; text
// requests stay as protocol 1 wrote them.
TEST(Protocol, BytecodeRequestsNameTheirFormat) {
  CompileRequest request;
  request.ttir = std::string("ML\xEFR\x00\x07", 6) + "rest";
  Json header = compileRequestHeader(3, request);
  EXPECT_NE(header.dump().find(R"("ir_format":"mlir_bytecode")"), std::string::npos)
      << header.dump();
  request.ttir = "module {}";
  EXPECT_EQ(compileRequestHeader(3, request).dump().find("ir_format"), std::string::npos);
  EXPECT_EQ(kProtocolVersion, 2);
}

TEST(Protocol, ParsesHello) {
  auto hello = parseHello(frameOf(
      std::string(R"({"type": "hello", "protocol": 2, "pid": 42, )") + kIdentity + "}"));
  ASSERT_TRUE(hello.isOk()) << hello.status().toString();
  EXPECT_EQ(hello->pid, 42);
  EXPECT_EQ(hello->compiler.name, "flagtree");
  EXPECT_EQ(hello->compiler.version, "0.4.0");
  EXPECT_EQ(hello->compiler.triton_version, "3.5.1");
  EXPECT_EQ(hello->compiler.build_id, "5f0c2a9e11d3b7a4");
  EXPECT_TRUE(hello->error.empty());
}

TEST(Protocol, HelloFromAnotherProtocolVersionIsRefused) {
  auto hello = parseHello(frameOf(
      std::string(R"({"type": "hello", "protocol": 1, "pid": 1, )") + kIdentity + "}"));
  ASSERT_FALSE(hello.isOk());
  EXPECT_EQ(hello.status().code(), StatusCode::kFailedPrecondition);
}

TEST(Protocol, ParsesSuccessfulResult) {
  std::string header = std::string(R"({"type": "result", "id": 5, "ok": true,
      "kernel_name": "add_exp", "binary_format": "cubin", "shared_mem": 0, "num_warps": 4,
      "params": [{"type": "*fp32", "role": "arg", "size": 8, "pointer": true},
                 {"type": "i32", "role": "arg", "size": 4, "pointer": false},
                 {"type": "*i8", "role": "global_scratch", "size": 8, "pointer": true},
                 {"type": "*i8", "role": "profile_scratch", "size": 8, "pointer": true}],
      "global_scratch_size": 0, "global_scratch_align": 1,
      "profile_scratch_size": 0, "profile_scratch_align": 1,
      "compile_seconds": 0.25,
      "stage_seconds": {"ptx": 0.02, "ttgir": 0.1, "zeta": 0.01, "parse": 0.001,
                        "llir": "?", "cubin": 0.05}, )") +
                       kIdentity + "}";
  auto kernel = parseResult(frameOf(header,
                                    "\x7f"
                                    "ELF"),
                            5);
  ASSERT_TRUE(kernel.isOk()) << kernel.status().toString();
  EXPECT_EQ(kernel->name, "add_exp");
  EXPECT_EQ(kernel->binary,
            "\x7f"
            "ELF");
  EXPECT_EQ(kernel->num_warps, 4);
  ASSERT_EQ(kernel->params.size(), 4u);
  EXPECT_EQ(kernel->params[1], (KernelParam{"i32", ParamRole::kArg, 4, false}));
  EXPECT_EQ(kernel->params[2].role, ParamRole::kGlobalScratch);
  EXPECT_EQ(kernel->params[3].role, ParamRole::kProfileScratch);
  EXPECT_EQ(kernel->compiler.name, "flagtree");
  EXPECT_DOUBLE_EQ(kernel->compile_seconds, 0.25);
  // In pipeline order, an unknown stage after the known ones, a value that
  // is not a number left out.
  using Stages = std::vector<std::pair<std::string, double>>;
  EXPECT_EQ(kernel->stage_seconds, (Stages{{"parse", 0.001},
                                           {"ttgir", 0.1},
                                           {"ptx", 0.02},
                                           {"cubin", 0.05},
                                           {"zeta", 0.01}}));
}

TEST(Protocol, ErrorResultBecomesInternalErrorWithStage) {
  auto kernel = parseResult(
      frameOf(
          R"({"type": "result", "id": 3, "ok": false, "error": "bad op", "stage": "ttgir"})"),
      3);
  ASSERT_FALSE(kernel.isOk());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInternal);
  EXPECT_NE(kernel.status().message().find("ttgir"), std::string::npos);
  EXPECT_NE(kernel.status().message().find("bad op"), std::string::npos);
}

TEST(Protocol, ResultForAnotherRequestIsRejected) {
  auto kernel = parseResult(
      frameOf(R"({"type": "result", "id": 4, "ok": false, "error": "x", "stage": "y"})"),
      3);
  ASSERT_FALSE(kernel.isOk());
  EXPECT_EQ(kernel.status().code(), StatusCode::kInvalidArgument);
}

TEST(Protocol, SuccessWithoutBinaryOrFieldsIsRejected) {
  EXPECT_FALSE(
      parseResult(frameOf(R"({"type": "result", "id": 1, "ok": true})", "x"), 1).isOk());
}

}  // namespace
}  // namespace jft::kernel_compiler
