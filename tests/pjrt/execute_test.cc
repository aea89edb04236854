// PJRT_LoadedExecutable_Execute over host stand-ins: outputs, asynchronous
// completion, argument checks (each naming the argument), donation.

#include "executable_test_support.h"
#include "pjrt/dlpack.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

struct Call {
  PJRT_ExecuteOptions options{};
  std::vector<PJRT_Buffer*> arguments;
  PJRT_Buffer* const* argumentList = nullptr;
  std::vector<PJRT_Buffer*> outputs;
  PJRT_Buffer** outputList = nullptr;
  PJRT_Event* complete = nullptr;
  PJRT_LoadedExecutable_Execute_Args args{};

  Call(PJRT_LoadedExecutable* executable, std::vector<PJRT_Buffer*> in, size_t numOutputs)
      : arguments(std::move(in)), outputs(numOutputs, nullptr) {
    options.struct_size = sizeof(options);
    argumentList = arguments.data();
    outputList = outputs.data();
    args.struct_size = sizeof(args);
    args.executable = executable;
    args.options = &options;
    args.argument_lists = &argumentList;
    args.num_devices = 1;
    args.num_args = arguments.size();
    args.output_lists = &outputList;
    args.device_complete_events = &complete;
  }
  ~Call() {
    if (complete != nullptr) {
      PJRT_Event_Destroy_Args destroy{sizeof(destroy), nullptr, complete};
      eventDestroy(&destroy);
    }
  }
  PJRT_Error* run() { return loadedExecutableExecute(&args); }
};

class ExecuteTest : public ExecutableTest {
 protected:
  // Keeps the outputs so TearDown frees them.
  void keep(const Call& call) {
    for (PJRT_Buffer* output : call.outputs) {
      if (output != nullptr) buffers_.push_back(output);
    }
  }
};

// Host memory at the program's boundary (jit with host in/out shardings):
// a pinned host argument is read through a device copy, and an output the
// signature keeps in pinned_host memory is copied there.
class HostMemoryExecuteTest : public ExecuteTest {
 protected:
  PJRT_Memory* pinned() { return client_->devices[0]->memories.back(); }

  PJRT_Buffer* pinnedBuffer(std::vector<float> values) {
    return buffer(std::move(values), 0, PJRT_Buffer_Type_F32, pinned());
  }

  // Runs the one-argument `executable` on `x` until the stand-in finishes;
  // its output (kept for TearDown).
  PJRT_Buffer* runToCompletion(PJRT_LoadedExecutable* executable, PJRT_Buffer* x) {
    Call call(executable, {x}, 1);
    EXPECT_EQ(call.run(), nullptr);
    keep(call);
    loader_.loaded[0]->done->complete(Status::ok());
    return call.outputs[0];
  }
};

TEST_F(HostMemoryExecuteTest, APinnedHostArgumentIsReadThroughADeviceCopy) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  ASSERT_NE(executable, nullptr);
  PJRT_Buffer* x = pinnedBuffer({1, 2, 3, 4});
  ASSERT_TRUE(x->pinned_host);
  const int64_t inUse = device(0).bytesInUse();
  PJRT_Buffer* out = runToCompletion(executable, x);
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->memory, client_->devices[0]->default_memory);
  EXPECT_EQ(contents(out), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_FALSE(x->isDeleted());
  EXPECT_EQ(readBack(x), (std::vector<float>{1, 2, 3, 4}));
  // Only the output stays: the device copy of x went back.
  EXPECT_EQ(device(0).bytesInUse(), inUse + 16);
  EXPECT_EQ(device(0).badFrees(), 0);
}

TEST_F(HostMemoryExecuteTest, AnOutputKeptInPinnedHostMemoryIsCopiedThere) {
  compiler::Executable compiled = doublingExecutable(1, {-1});
  compiled.output_memory_kinds = {"pinned_host"};
  PJRT_LoadedExecutable* executable = load(std::move(compiled));
  ASSERT_NE(executable, nullptr);
  EXPECT_EQ(std::string(executable->info->output_kinds[0],
                        executable->info->output_kind_sizes[0]),
            "pinned_host");
  EXPECT_EQ(std::string(executable->info->parameter_kinds[0],
                        executable->info->parameter_kind_sizes[0]),
            "device");
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  const int64_t inUse = device(0).bytesInUse();
  PJRT_Buffer* out = runToCompletion(executable, x);
  ASSERT_NE(out, nullptr);
  EXPECT_TRUE(out->pinned_host);
  EXPECT_EQ(out->memory, pinned());
  EXPECT_EQ(out->address, 0u);
  ASSERT_TRUE(out->ready->await().isOk());
  EXPECT_EQ(readBack(out), (std::vector<float>{2, 4, 6, 8}));
  // The device memory the output was computed in went back.
  EXPECT_EQ(device(0).bytesInUse(), inUse);
  EXPECT_EQ(device(0).badFrees(), 0);
}

TEST_F(ExecuteTest, ReturnsOutputsBeforeTheDeviceFinishes) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  ASSERT_NE(executable, nullptr);
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  PJRT_Buffer* out = call.outputs[0];
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->type, PJRT_Buffer_Type_F32);
  EXPECT_EQ(out->dims, (std::vector<int64_t>{4}));
  EXPECT_EQ(out->device, client_->devices[0]);
  EXPECT_EQ(out->memory, client_->devices[0]->default_memory);
  EXPECT_EQ(out->byte_size, 16u);
  EXPECT_NE(out->address, x->address);
  ASSERT_NE(call.complete, nullptr);
  // The stand-in has not signalled completion: nothing may look finished yet.
  EXPECT_FALSE(out->ready->isReady());
  EXPECT_FALSE(call.complete->event->isReady());
  loader_.loaded[0]->done->complete(Status::ok());
  EXPECT_TRUE(out->ready->isReady());
  EXPECT_TRUE(call.complete->event->isReady());
  EXPECT_EQ(contents(out), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_FALSE(x->isDeleted());
}

TEST_F(ExecuteTest, RunsTwiceWithFreshOutputs) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  PJRT_Buffer* x = buffer({1, 1, 1, 1});
  Call first(executable, {x}, 1);
  ASSERT_EQ(first.run(), nullptr);
  keep(first);
  Call second(executable, {first.outputs[0]}, 1);
  ASSERT_EQ(second.run(), nullptr);
  keep(second);
  EXPECT_EQ(loader_.loaded.size(), 1u);  // loaded once, at compile time
  EXPECT_EQ(loader_.loaded[0]->executions, 2);
  EXPECT_NE(first.outputs[0]->address, second.outputs[0]->address);
  EXPECT_EQ(contents(second.outputs[0]), (std::vector<float>{4, 4, 4, 4}));
}

TEST_F(ExecuteTest, WrongArgumentCountIsNamed) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  Call call(executable, {buffer({1, 2, 3, 4}), buffer({1, 2, 3, 4})}, 1);
  std::string message;
  EXPECT_EQ(errorCode(call.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("takes 1 arguments but 2"), std::string::npos) << message;
  EXPECT_EQ(loader_.loaded[0]->executions, 0);
}

TEST_F(ExecuteTest, WrongDeviceIsNamed) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  Call call(executable, {buffer({1, 2, 3, 4}, /*d=*/1)}, 1);
  std::string message;
  EXPECT_EQ(errorCode(call.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("argument 0 of jit_double is on device 1"), std::string::npos)
      << message;
}

TEST_F(ExecuteTest, DeletedArgumentIsNamed) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  x->release();
  Call call(executable, {x}, 1);
  std::string message;
  EXPECT_EQ(errorCode(call.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("argument 0 of jit_double has been deleted"), std::string::npos)
      << message;
}

TEST_F(ExecuteTest, WrongTypeAndShapeAreNamed) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  std::string message;
  Call wrongType(executable, {buffer({1, 2, 3, 4}, 0, PJRT_Buffer_Type_S32)}, 1);
  EXPECT_EQ(errorCode(wrongType.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(
      message.find("argument 0 of jit_double is s32[4] but the program expects f32[4]"),
      std::string::npos)
      << message;
  Call wrongShape(executable, {buffer({1, 2, 3})}, 1);
  EXPECT_EQ(errorCode(wrongShape.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("is f32[3] but the program expects f32[4]"), std::string::npos)
      << message;
}

TEST_F(ExecuteTest, NullPiecesAreInvalidArguments) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  Call nullArgument(executable, {nullptr}, 1);
  EXPECT_EQ(errorCode(nullArgument.run()), StatusCode::kInvalidArgument);
  Call nullOutputs(executable, {buffer({1, 2, 3, 4})}, 1);
  nullOutputs.args.output_lists = nullptr;
  EXPECT_EQ(errorCode(nullOutputs.run()), StatusCode::kInvalidArgument);
  Call small(executable, {buffer({1, 2, 3, 4})}, 1);
  small.args.struct_size = 24;
  EXPECT_EQ(errorCode(small.run()), StatusCode::kInvalidArgument);
  EXPECT_EQ(errorCode(loadedExecutableExecute(nullptr)), StatusCode::kInvalidArgument);
  Call noExecutable(nullptr, {}, 0);
  EXPECT_EQ(errorCode(noExecutable.run()), StatusCode::kInvalidArgument);
  Call badIndex(executable, {buffer({1, 2, 3, 4})}, 1);
  int64_t index = 7;
  badIndex.options.non_donatable_input_indices = &index;
  badIndex.options.num_non_donatable_input_indices = 1;
  EXPECT_EQ(errorCode(badIndex.run()), StatusCode::kInvalidArgument);
  Call twoDevices(executable, {buffer({1, 2, 3, 4})}, 1);
  twoDevices.args.num_devices = 2;
  EXPECT_EQ(errorCode(twoDevices.run()), StatusCode::kInvalidArgument);
  EXPECT_EQ(loader_.loaded[0]->executions, 0);
}

TEST_F(ExecuteTest, DonatedArgumentIsConsumedNotFreed) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  const uint64_t address = x->address;
  const int64_t inUse = device(0).bytesInUse();
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_TRUE(loader_.loaded[0]->lastArguments[0].donated);
  EXPECT_TRUE(x->isDeleted());
  EXPECT_EQ(call.outputs[0]->address, address);
  EXPECT_EQ(device(0).bytesInUse(), inUse);  // no new allocation, nothing freed
  EXPECT_EQ(contents(call.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
  // A donated buffer cannot be passed again.
  Call again(executable, {x}, 1);
  EXPECT_EQ(errorCode(again.run()), StatusCode::kInvalidArgument);
  x->release();  // a no-op: the memory belongs to the output now
  EXPECT_EQ(device(0).badFrees(), 0);
  EXPECT_EQ(device(0).bytesInUse(), inUse);
}

TEST_F(ExecuteTest, DonatedArgumentWithoutAnAliasIsStillConsumedAndFreed) {
  // The program asks for the donation but keeps its output apart (no kernel
  // could promise to run in place): JAX still expects the argument gone.
  compiler::Executable compiled = doublingExecutable(1, {-1});
  compiled.program.donated_parameters = {true};
  PJRT_LoadedExecutable* executable = load(std::move(compiled));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  const int64_t inUse = device(0).bytesInUse();
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_TRUE(loader_.loaded[0]->lastArguments[0].donated);
  EXPECT_TRUE(x->isDeleted());
  EXPECT_EQ(contents(call.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
  // The output is new and the argument's 16 bytes were returned.
  EXPECT_EQ(device(0).bytesInUse(), inUse);
  x->release();  // a no-op: already returned
  EXPECT_EQ(device(0).badFrees(), 0);
}

TEST_F(ExecuteTest, NonDonatableIndicesKeepTheArgument) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  Call call(executable, {x}, 1);
  int64_t index = 0;
  call.options.non_donatable_input_indices = &index;
  call.options.num_non_donatable_input_indices = 1;
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_FALSE(loader_.loaded[0]->lastArguments[0].donated);
  EXPECT_FALSE(x->isDeleted());
  EXPECT_NE(call.outputs[0]->address, x->address);
  EXPECT_EQ(contents(x), (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(ExecuteTest, BufferPassedTwiceIsNotDonated) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(2, {0, 1}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  Call call(executable, {x, x}, 2);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_FALSE(loader_.loaded[0]->lastArguments[0].donated);
  EXPECT_FALSE(loader_.loaded[0]->lastArguments[1].donated);
  EXPECT_FALSE(x->isDeleted());
}

TEST_F(ExecuteTest, ExternallyReferencedBufferIsNotDonated) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  x->external_references = 1;
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_FALSE(x->isDeleted());
  x->external_references = 0;
}

TEST_F(ExecuteTest, RuntimeFailureLeavesArgumentsAlone) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  loader_.loaded[0]->failNext = true;
  Call call(executable, {x}, 1);
  EXPECT_EQ(errorCode(call.run()), StatusCode::kResourceExhausted);
  EXPECT_FALSE(x->isDeleted());
  EXPECT_EQ(call.outputs[0], nullptr);
  EXPECT_EQ(call.complete, nullptr);
}

TEST_F(ExecuteTest, FailedInputTransferReachesTheOutputs) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  x->ready = runtime::Event::ready(Status(StatusCode::kDataLoss, "the copy failed"));
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  // Nothing is launched over memory that never received its data.
  EXPECT_EQ(loader_.loaded[0]->executions, 0);
  ASSERT_TRUE(call.outputs[0]->ready->isReady());
  EXPECT_EQ(call.outputs[0]->ready->status().code(), StatusCode::kDataLoss);
}

TEST_F(ExecuteTest, DeletedExecutableIsFailedPrecondition) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  executable->markDeleted();
  Call call(executable, {buffer({1, 2, 3, 4})}, 1);
  EXPECT_EQ(errorCode(call.run()), StatusCode::kFailedPrecondition);
}

TEST_F(ExecuteTest, SendRecvCallbacksAreUnimplemented) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  Call call(executable, {buffer({1, 2, 3, 4})}, 1);
  call.options.num_send_ops = 1;
  EXPECT_EQ(errorCode(call.run()), StatusCode::kUnimplemented);
}

TEST_F(ExecuteTest, ExecuteDeviceMustBeTheCompiledOne) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  Call call(executable, {buffer({1, 2, 3, 4}, 1)}, 1);
  call.args.execute_device = client_->devices[1];
  std::string message;
  EXPECT_EQ(errorCode(call.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("compiled for device 0"), std::string::npos) << message;
  Call same(executable, {buffer({1, 2, 3, 4})}, 1);
  same.args.execute_device = client_->devices[0];
  ASSERT_EQ(same.run(), nullptr);
  keep(same);
}

TEST_F(ExecuteTest, PortableExecutableRunsWhereAsked) {
  CompileOptions options;
  options.portable = true;
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}), options);
  ASSERT_NE(executable, nullptr);
  EXPECT_TRUE(loader_.loaded.empty());  // nothing to load until a device is named
  Call unnamed(executable, {buffer({1, 2, 3, 4}, 1)}, 1);
  EXPECT_EQ(errorCode(unnamed.run()), StatusCode::kInvalidArgument);
  Call call(executable, {buffer({1, 2, 3, 4}, 1)}, 1);
  call.args.execute_device = client_->devices[1];
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_EQ(call.outputs[0]->device, client_->devices[1]);
  EXPECT_EQ(loader_.loaded.size(), 1u);
  EXPECT_EQ(contents(call.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
}

TEST_F(ExecuteTest, ZeroSizedArraysPassThrough) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}, /*n=*/0));
  PJRT_Buffer* x = buffer({});
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_EQ(call.outputs[0]->byte_size, 0u);
  EXPECT_EQ(call.outputs[0]->dims, (std::vector<int64_t>{0}));
}

// jax.lax.create_token() hands a token to a jitted function as pred[0].
TEST_F(ExecuteTest, ATokenParameterTakesJaxsEmptyPredArray) {
  compiler::Executable compiled = doublingExecutable(1, {-1}, /*n=*/0);
  compiled.parameter_types[0] = ir::Type::token();
  PJRT_LoadedExecutable* executable = load(std::move(compiled));
  Call call(executable, {buffer({}, 0, PJRT_Buffer_Type_PRED)}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  std::string message;
  Call wrong(executable, {buffer({1}, 0, PJRT_Buffer_Type_PRED)}, 1);
  EXPECT_EQ(errorCode(wrong.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("is pred[1] but the program expects"), std::string::npos)
      << message;
}

TEST_F(ExecuteTest, OlderOptionsWithoutDonationFieldsAreAccepted) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  Call call(executable, {x}, 1);
  call.options.struct_size = JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, launch_id);
  call.args.struct_size =
      JFT_ABI_SIZE_UP_TO(PJRT_LoadedExecutable_Execute_Args, device_complete_events);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_TRUE(x->isDeleted());
}

// HLO output callbacks (0.112) and multi-slice configs would be silently
// dropped if we ran anyway; both are refused before anything is donated.
TEST_F(ExecuteTest, OptionsWeCannotHonourAreRefused) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  std::string message;
  PJRT_HloOutputCallbackInfo callback{};
  Call withCallback(executable, {x}, 1);
  withCallback.options.hlo_output_callbacks = &callback;
  withCallback.options.num_hlo_output_callbacks = 1;
  EXPECT_EQ(errorCode(withCallback.run(), &message), StatusCode::kUnimplemented);
  EXPECT_NE(message.find("HLO output callbacks"), std::string::npos) << message;
  Call withSlices(executable, {x}, 1);
  alignas(8) unsigned char config[16] = {};
  withSlices.options.multi_slice_config =
      reinterpret_cast<PJRT_MultiSlice_Config*>(config);
  EXPECT_EQ(errorCode(withSlices.run(), &message), StatusCode::kUnimplemented);
  EXPECT_NE(message.find("multi-slice"), std::string::npos) << message;
  EXPECT_FALSE(x->isDeleted());
}

// A 0.110 caller's options end at use_major_to_minor_data_layout_for_callbacks
// (offset 120, one byte): whatever lies past that is not ours to read.
TEST_F(ExecuteTest, FieldsPastTheCallersOptionsAreNotRead) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  Call call(executable, {x}, 1);
  call.options.struct_size = 121;
  call.options.num_hlo_output_callbacks = 7;
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_TRUE(x->isDeleted());
}

TEST_F(ExecuteTest, ExternallyReferencedOrViewedArgumentsAreNotDonated) {
  // A DLPack consumer still reads an externally referenced buffer, and a view's
  // memory belongs to another framework: neither may be handed to an output.
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {0}));
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  PJRT_Buffer_IncreaseExternalReferenceCount_Args hold{sizeof(hold), nullptr, x};
  ASSERT_EQ(bufferIncreaseExternalReferenceCount(&hold), nullptr);
  Call call(executable, {x}, 1);
  ASSERT_EQ(call.run(), nullptr);
  keep(call);
  EXPECT_FALSE(loader_.loaded[0]->lastArguments[0].donated);
  EXPECT_FALSE(x->isDeleted());
  EXPECT_NE(call.outputs[0]->address, x->address);
  PJRT_Buffer_DecreaseExternalReferenceCount_Args drop{sizeof(drop), nullptr, x};
  ASSERT_EQ(bufferDecreaseExternalReferenceCount(&drop), nullptr);

  std::vector<float> foreign{5, 6, 7, 8};
  std::vector<int64_t> dims{4};
  PJRT_Client_CreateViewOfDeviceBuffer_Args view{};
  view.struct_size = sizeof(view);
  view.client = client_.get();
  view.device_buffer_ptr = foreign.data();
  view.dims = dims.data();
  view.num_dims = 1;
  view.element_type = PJRT_Buffer_Type_F32;
  view.device = client_->devices[0];
  ASSERT_EQ(clientCreateViewOfDeviceBuffer(&view), nullptr);
  buffers_.push_back(view.buffer);
  Call onView(executable, {view.buffer}, 1);
  ASSERT_EQ(onView.run(), nullptr);
  keep(onView);
  EXPECT_FALSE(loader_.loaded[0]->lastArguments[0].donated);
  EXPECT_NE(onView.outputs[0]->address, view.buffer->address);
  EXPECT_EQ(contents(onView.outputs[0]), (std::vector<float>{10, 12, 14, 16}));
  EXPECT_EQ(foreign, (std::vector<float>{5, 6, 7, 8}));
  EXPECT_EQ(device(0).badFrees(), 0);
}

}  // namespace
}  // namespace jft::pjrt::testing
