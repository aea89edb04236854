// FfiThunk through a loaded executable on the host stand-in device: the
// handler registered for the target (a plain function with the FFI signature,
// written here) is found at load, instantiated once, and called in thunk order
// with the slots' addresses, the attributes and the execution's user data,
// also from a loop body; its error becomes the execution's.
#include <gtest/gtest.h>

#include <cstring>

#include "ffi/api.h"
#include "ffi/registry.h"
#include "recording_device.h"
#include "runtime/executable.h"
#include "runtime/program_check.h"
#include "test_programs.h"

namespace jft::runtime::testing {
namespace {

using K = BufferSlot::Kind;

constexpr int64_t kUserType = 9001;
int instantiations = 0;

// out[i] = in[i] * factor + *user_data; counts its instantiations.
XLA_FFI_Error* affine(XLA_FFI_CallFrame* frame) {
  if (frame->stage == XLA_FFI_ExecutionStage_INSTANTIATE) {
    ++instantiations;
    return nullptr;
  }
  auto* in = static_cast<XLA_FFI_Buffer*>(frame->args.args[0]);
  auto* out = static_cast<XLA_FFI_Buffer*>(frame->rets.rets[0]);
  auto* factor = static_cast<XLA_FFI_Scalar*>(frame->attrs.attrs[0]);
  float f = 0;
  std::memcpy(&f, factor->value, 4);
  XLA_FFI_TypeId id{kUserType};
  XLA_FFI_ExecutionContext_Get_Args get{};
  get.struct_size = sizeof(get);
  get.ctx = frame->ctx;
  get.type_id = &id;
  if (XLA_FFI_Error* e = frame->api->XLA_FFI_ExecutionContext_Get(&get)) return e;
  const float shift = *static_cast<float*>(get.data);
  for (int64_t i = 0; i < in->dims[0]; ++i)
    static_cast<float*>(out->data)[i] =
        static_cast<const float*>(in->data)[i] * f + shift;
  return nullptr;
}

XLA_FFI_Error* failing(XLA_FFI_CallFrame* frame) {
  XLA_FFI_Error_Create_Args args{};
  args.struct_size = sizeof(args);
  args.message = "the callback raised ValueError: boom";
  args.errc = XLA_FFI_Error_Code_INTERNAL;
  return frame->api->XLA_FFI_Error_Create(&args);
}

FfiThunk affineThunk(const std::string& target, int in, int out) {
  FfiThunk t;
  t.target = target;
  t.argument_shapes = {{XLA_FFI_DataType_F32, {kElements}}};
  t.arguments = {in};
  t.result_shapes = {{XLA_FFI_DataType_F32, {kElements}}};
  t.results = {out};
  const float factor = 3.0f;
  t.attributes = ffi::Attribute::dictionary(
      {"factor"}, {ffi::Attribute::scalar(XLA_FFI_DataType_F32, &factor, 4)});
  t.location = "model.py:7";
  return t;
}

// out = affine(x) (slot 0 parameter, slot 1 output).
Program ffiProgram(const std::string& target) {
  Program p;
  p.name = "ffi";
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.thunks.push_back(affineThunk(target, 0, 1));
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {1};
  p.output_aliases = {-1};
  return p;
}

void registerOnce() {
  ffi::RegisteredHandler h;
  h.bundle.instantiate = &affine;
  h.bundle.execute = &affine;
  ASSERT_TRUE(ffi::registerHandler("test_affine", "CUDA", h).isOk());
  ffi::RegisteredHandler bad;
  bad.bundle.execute = &failing;
  ASSERT_TRUE(ffi::registerHandler("test_failing", "CUDA", bad).isOk());
}

TEST(FfiThunk, RunsTheRegisteredHandlerWithUserData) {
  registerOnce();
  RecordingDevice device;
  EXPECT_TRUE(checkProgram(ffiProgram("test_affine"), 32).isOk());
  instantiations = 0;
  auto loaded = Executable::load(device, ffiProgram("test_affine"));
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  EXPECT_EQ(instantiations, 1);
  uint64_t x = *device.allocate(kVectorBytes);
  for (int i = 0; i < kElements; ++i) floats(x)[i] = static_cast<float>(i);
  ffi::UserData user_data;
  float shift = 0.5f;
  ASSERT_TRUE(user_data.add(kUserType, &shift, nullptr).isOk());
  ParticipantContext context;
  context.ffi_user_data = &user_data;
  ExecuteArgument argument{x, kVectorBytes, false};
  for (int run = 0; run < 2; ++run) {
    auto result = (*loaded)->execute({&argument, 1}, &context);
    ASSERT_TRUE(result.isOk()) << result.status().toString();
    ASSERT_TRUE(result->done->await().isOk());
    const uint64_t out = result->outputs[0].address;
    for (int i = 0; i < kElements; ++i) EXPECT_EQ(floats(out)[i], 3.0f * i + 0.5f) << i;
    device.deallocate(out, kVectorBytes);
  }
  EXPECT_EQ(instantiations, 1);  // once per load, not per execution
  device.deallocate(x, kVectorBytes);
}

TEST(FfiThunk, WithoutUserDataTheHandlerSaysWhatIsMissing) {
  registerOnce();
  RecordingDevice device;
  auto loaded = Executable::load(device, ffiProgram("test_affine"));
  ASSERT_TRUE(loaded.isOk());
  uint64_t x = *device.allocate(kVectorBytes);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*loaded)->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kNotFound);
  EXPECT_NE(result.status().message().find("custom call 'test_affine'"),
            std::string::npos)
      << result.status().message();
  device.deallocate(x, kVectorBytes);
}

TEST(FfiThunk, HandlerErrorsCarryItsMessageAndTheSourceLine) {
  registerOnce();
  RecordingDevice device;
  auto loaded = Executable::load(device, ffiProgram("test_failing"));
  ASSERT_TRUE(loaded.isOk());
  uint64_t x = *device.allocate(kVectorBytes);
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*loaded)->execute({&argument, 1});
  ASSERT_FALSE(result.isOk());
  EXPECT_EQ(result.status().code(), StatusCode::kInternal);
  const std::string& m = result.status().message();
  EXPECT_NE(m.find("the callback raised ValueError: boom"), std::string::npos) << m;
  EXPECT_NE(m.find("model.py:7"), std::string::npos) << m;
  device.deallocate(x, kVectorBytes);
}

TEST(FfiThunk, AnUnregisteredTargetFailsAtLoadSayingWhatToDo) {
  RecordingDevice device;
  auto loaded = Executable::load(device, ffiProgram("test_nobody_registered"));
  ASSERT_FALSE(loaded.isOk());
  EXPECT_EQ(loaded.status().code(), StatusCode::kFailedPrecondition);
  const std::string& m = loaded.status().message();
  EXPECT_NE(m.find("'test_nobody_registered' at model.py:7"), std::string::npos) << m;
  EXPECT_NE(m.find("jax.ffi.register_ffi_target"), std::string::npos) << m;
}

TEST(FfiThunk, RunsInsideALoopBodyEachIteration) {
  registerOnce();
  // slot 0 x (parameter), slot 1 out (output): out = x; 3 times out = affine(out)
  // through a temp (slot 2) and a copy back.
  Program p;
  p.name = "ffi_loop";
  p.slots.push_back(slot(K::kParameter, kVectorBytes, 0));
  p.slots.push_back(slot(K::kOutput, kVectorBytes, 0));
  p.slots.push_back(slot(K::kTemp, kVectorBytes, -1, 0));
  p.temp_bytes = 256;
  p.thunks.push_back(CopyThunk{0, 1, kVectorBytes});
  WhileThunk loop;
  loop.body = 0;
  loop.cond = 1;  // never run: the trip count is known
  loop.trip_count = 3;
  p.thunks.push_back(loop);
  p.lists.push_back({affineThunk("test_affine", 1, 2), CopyThunk{2, 1, kVectorBytes}});
  p.lists.push_back({});
  p.parameter_bytes = {kVectorBytes};
  p.output_slots = {1};
  p.output_aliases = {-1};
  ASSERT_TRUE(checkProgram(p, 32).isOk()) << checkProgram(p, 32).toString();
  RecordingDevice device;
  auto loaded = Executable::load(device, p);
  ASSERT_TRUE(loaded.isOk()) << loaded.status().toString();
  uint64_t x = *device.allocate(kVectorBytes);
  for (int i = 0; i < kElements; ++i) floats(x)[i] = 1.0f;
  ffi::UserData user_data;
  float shift = 1.0f;
  ASSERT_TRUE(user_data.add(kUserType, &shift, nullptr).isOk());
  ParticipantContext context;
  context.ffi_user_data = &user_data;
  ExecuteArgument argument{x, kVectorBytes, false};
  auto result = (*loaded)->execute({&argument, 1}, &context);
  ASSERT_TRUE(result.isOk()) << result.status().toString();
  ASSERT_TRUE(result->done->await().isOk());
  // 1 -> 4 -> 13 -> 40
  for (int i = 0; i < kElements; ++i)
    EXPECT_EQ(floats(result->outputs[0].address)[i], 40.0f);
  device.deallocate(result->outputs[0].address, kVectorBytes);
  device.deallocate(x, kVectorBytes);
}

}  // namespace
}  // namespace jft::runtime::testing
