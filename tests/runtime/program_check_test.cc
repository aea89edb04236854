// Program validation: every structural fault is INVALID_ARGUMENT naming it.
#include "runtime/program_check.h"

#include <gtest/gtest.h>

#include <functional>

#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;

// Applies `breakIt` to the valid vector program and expects `fragment` in
// the INVALID_ARGUMENT message.
void expectRejected(const std::function<void(Program&)>& breakIt,
                    const std::string& fragment, int warp_size = 32) {
  Program program = vectorProgram();
  breakIt(program);
  Status status = checkProgram(program, warp_size);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << fragment;
  EXPECT_NE(status.message().find(fragment), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("program 'vector'"), std::string::npos)
      << status.message();
}

TEST(ProgramCheck, VectorProgramIsValid) {
  EXPECT_TRUE(checkProgram(vectorProgram(), 32).isOk());
  EXPECT_TRUE(checkProgram(vectorProgram(), 64).isOk());
}

TEST(ProgramCheck, LaunchNamesAMissingKernel) {
  expectRejected([](Program& p) { std::get<LaunchThunk>(p.thunks[1]).kernel = 1; },
                 "thunk 1: launch of kernel 1 of 1");
  expectRejected([](Program& p) { std::get<LaunchThunk>(p.thunks[0]).kernel = -1; },
                 "thunk 0: launch of kernel -1");
}

TEST(ProgramCheck, BufferCountMustMatchTheKernelsBufferParams) {
  expectRejected(
      [](Program& p) { std::get<LaunchThunk>(p.thunks[0]).buffers.pop_back(); },
      "kernel 'add' takes 3 buffers, the launch passes 2");
}

TEST(ProgramCheck, LaunchBufferSlotOutOfRange) {
  expectRejected([](Program& p) { std::get<LaunchThunk>(p.thunks[0]).buffers[2] = 9; },
                 "buffer 2 of kernel 'add' is slot 9 of 5");
}

TEST(ProgramCheck, TempSlotsLieInsideTheArenaAtAlignedOffsets) {
  expectRejected([](Program& p) { p.temp_bytes = 300; },
                 "outside the 300-byte temp arena");
  expectRejected([](Program& p) { p.slots[2].offset = 128; }, "not a multiple of 256");
  // An offset near 2^64 must not wrap around the bound check.
  expectRejected([](Program& p) { p.slots[2].offset = ~uint64_t{0} - 255; },
                 "temp arena");
}

TEST(ProgramCheck, OutputSlotsAreOutputsWithTheirIndex) {
  expectRejected([](Program& p) { p.output_slots[0] = 2; }, "output 0 names slot 2");
  expectRejected([](Program& p) { p.output_slots[1] = 7; }, "output 1 names slot 7");
  expectRejected([](Program& p) { p.slots[4].index = 0; }, "output 1 names slot 4");
  expectRejected([](Program& p) { p.slots.push_back(slot(K::kOutput, 8, 1)); },
                 "slot 5 claims output 1");
}

TEST(ProgramCheck, ParameterSlotsNameExistingParameters) {
  expectRejected([](Program& p) { p.slots[0].index = 1; },
                 "slot 0 names parameter 1 of 1");
  expectRejected([](Program& p) { p.slots[0].bytes = kVectorBytes + 4; },
                 "reads 68 bytes of parameter 0, which has 64");
}

TEST(ProgramCheck, ConstantDataMatchesItsSize) {
  expectRejected([](Program& p) { p.slots[1].data.pop_back(); },
                 "constant of 64 bytes with 63 bytes of data");
}

TEST(ProgramCheck, AliasesNameParametersOfTheSameSizeOnce) {
  expectRejected([](Program& p) { p.output_aliases = {-1}; },
                 "1 output aliases for 2 outputs");
  expectRejected([](Program& p) { p.output_aliases[1] = 3; }, "aliases parameter 3 of 1");
  expectRejected(
      [](Program& p) {
        p.output_aliases = {0, 0};
      },
      "parameter 0 is aliased by two outputs");
  expectRejected(
      [](Program& p) {
        p.parameter_bytes[0] = 128;
        p.slots[0].bytes = 128;
      },
      "output 1 (64 bytes) aliases parameter 0 (128 bytes)");
}

TEST(ProgramCheck, CopiesStayInsideSlotsAndWriteOnlyWritableOnes) {
  expectRejected([](Program& p) { std::get<CopyThunk>(p.thunks[2]).destination = 0; },
                 "copy destination slot 0 is read-only");
  expectRejected([](Program& p) { std::get<CopyThunk>(p.thunks[2]).destination = 1; },
                 "read-only");
  expectRejected([](Program& p) { std::get<CopyThunk>(p.thunks[2]).bytes = 65; },
                 "copy of 65 bytes from slot 2 of 64");
  expectRejected([](Program& p) { std::get<CopyThunk>(p.thunks[2]).source = 5; },
                 "copy source slot 5 of 5");
  expectRejected(
      [](Program& p) {
        p.thunks.push_back(MemsetThunk{4, 0, 65});
      },
      "thunk 3: memset destination slot 4 holds 64 bytes, not 65");
}

TEST(ProgramCheck, KernelLaunchContract) {
  expectRejected([](Program& p) { p.kernels[0].num_warps = 33; },
                 "asks for 33 warps; a block holds 1 to 32");
  expectRejected([](Program& p) { p.kernels[0].num_warps = 17; },
                 "asks for 17 warps; a block holds 1 to 16", 64);
  expectRejected([](Program& p) { p.kernels[0].num_warps = 0; }, "asks for 0 warps");
  expectRejected([](Program& p) { p.kernels[0].binary.clear(); }, "empty binary");
  expectRejected([](Program& p) { p.kernels[0].global_scratch_align = 3; },
                 "not a power of two");
}

TEST(ProgramCheck, DeviceWarpSizeMustBeSane) {
  EXPECT_EQ(checkProgram(vectorProgram(), 0).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace jft::runtime::testing
