// PJRT_LoadedExecutable_Execute of a program over two participants on the
// two-device host client: each device's enqueue runs on that device's own
// worker thread, all at once (a communicator's creation blocks until every
// member joins, which the stand-in imitates with a rendezvous), each with its
// participant context; each device's outputs land in its own list; a failure
// on one device destroys what the other produced and names the device.
#include <thread>

#include "executable_test_support.h"
#include "pjrt/entry_points.h"

namespace jft::pjrt::testing {
namespace {

// One argument and one output per device.
struct TwoDeviceCall {
  PJRT_ExecuteOptions options{};
  std::vector<PJRT_Buffer*> arguments;  // one per device
  PJRT_Buffer* const* argumentLists[2];
  PJRT_Buffer* outputs[2] = {nullptr, nullptr};
  PJRT_Buffer** outputLists[2];
  PJRT_Event* complete[2] = {nullptr, nullptr};
  PJRT_LoadedExecutable_Execute_Args args{};

  TwoDeviceCall(PJRT_LoadedExecutable* executable, PJRT_Buffer* on0, PJRT_Buffer* on1)
      : arguments{on0, on1} {
    options.struct_size = sizeof(options);
    for (size_t d = 0; d < 2; ++d) {
      argumentLists[d] = &arguments[d];
      outputLists[d] = &outputs[d];
    }
    args.struct_size = sizeof(args);
    args.executable = executable;
    args.options = &options;
    args.argument_lists = argumentLists;
    args.num_devices = 2;
    args.num_args = 1;
    args.output_lists = outputLists;
    args.device_complete_events = complete;
  }
  ~TwoDeviceCall() {
    for (PJRT_Event* event : complete) {
      if (event == nullptr) continue;
      PJRT_Event_Destroy_Args destroy{sizeof(destroy), nullptr, event};
      eventDestroy(&destroy);
    }
  }
  PJRT_Error* run() { return loadedExecutableExecute(&args); }
};

class ParticipantsTest : public ExecutableTest {
 protected:
  PJRT_LoadedExecutable* loadPmapLike() {
    CompileOptions two;
    two.num_replicas = 2;  // default assignment: devices 0 and 1
    return load(doublingExecutable(1, {-1}), two);
  }
  void keep(const TwoDeviceCall& call) {
    for (PJRT_Buffer* output : call.outputs) {
      if (output != nullptr) buffers_.push_back(output);
    }
  }
};

TEST_F(ParticipantsTest, EachDeviceEnqueuesOnItsOwnWorkerWithItsContext) {
  PJRT_LoadedExecutable* executable = loadPmapLike();
  ASSERT_NE(executable, nullptr);
  ASSERT_EQ(loader_.loaded.size(), 2u);  // [0] on device 0, [1] on device 1
  Rendezvous rendezvous(2);
  for (DoublingProgram* program : loader_.loaded) program->rendezvous = &rendezvous;
  TwoDeviceCall call(executable, buffer({1, 2, 3, 4}, 0), buffer({5, 6, 7, 8}, 1));
  ASSERT_EQ(call.run(), nullptr);
  keep(call);

  for (size_t d = 0; d < 2; ++d) {
    SCOPED_TRACE("device " + std::to_string(d));
    DoublingProgram& program = *loader_.loaded[d];
    // Both were inside execute at once: a sequential loop would have left the
    // first waiting alone.
    EXPECT_TRUE(program.metEveryone);
    EXPECT_NE(program.thread, std::this_thread::get_id());
    EXPECT_EQ(program.thread, client_->devices[d]->worker().threadId());
    ASSERT_TRUE(program.hadParticipant);
    EXPECT_EQ(program.lastParticipant.layout, &executable->layout);
    EXPECT_EQ(program.lastParticipant.replica, static_cast<int64_t>(d));
    EXPECT_EQ(program.lastParticipant.partition, 0);
    EXPECT_EQ(program.lastParticipant.runner,
              *device(static_cast<int>(d)).collectiveRunner());
    ASSERT_NE(call.outputs[d], nullptr);
    EXPECT_EQ(call.outputs[d]->device, client_->devices[d]);
    EXPECT_NE(call.complete[d], nullptr);
  }
  EXPECT_NE(loader_.loaded[0]->thread, loader_.loaded[1]->thread);
  EXPECT_EQ(contents(call.outputs[0]), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(contents(call.outputs[1]), (std::vector<float>{10, 12, 14, 16}));
  for (DoublingProgram* program : loader_.loaded) program->done->complete(Status::ok());

  // The workers persist: the next call runs on the same threads.
  std::thread::id first = loader_.loaded[0]->thread;
  for (DoublingProgram* program : loader_.loaded) program->rendezvous = nullptr;
  TwoDeviceCall again(executable, buffer({1, 1, 1, 1}, 0), buffer({2, 2, 2, 2}, 1));
  ASSERT_EQ(again.run(), nullptr);
  keep(again);
  EXPECT_EQ(loader_.loaded[0]->thread, first);
  EXPECT_EQ(contents(again.outputs[1]), (std::vector<float>{4, 4, 4, 4}));
}

TEST_F(ParticipantsTest, OneDeviceProgramsStayOnTheCallersThread) {
  PJRT_LoadedExecutable* executable = load(doublingExecutable(1, {-1}));
  ASSERT_NE(executable, nullptr);
  PJRT_Buffer* x = buffer({1, 2, 3, 4});
  PJRT_Buffer* const list[] = {x};
  PJRT_Buffer* const* lists[] = {list};
  PJRT_Buffer* out = nullptr;
  PJRT_Buffer** outLists[] = {&out};
  PJRT_LoadedExecutable_Execute_Args args{};
  args.struct_size = sizeof(args);
  args.executable = executable;
  args.argument_lists = lists;
  args.num_devices = 1;
  args.num_args = 1;
  args.output_lists = outLists;
  ASSERT_EQ(loadedExecutableExecute(&args), nullptr);
  buffers_.push_back(out);
  EXPECT_EQ(loader_.loaded[0]->thread, std::this_thread::get_id());
  EXPECT_FALSE(loader_.loaded[0]->hadParticipant);
}

TEST_F(ParticipantsTest, AFailureOnOneDeviceDestroysTheOthersOutputs) {
  PJRT_LoadedExecutable* executable = loadPmapLike();
  ASSERT_NE(executable, nullptr);
  TwoDeviceCall call(executable, buffer({1, 2, 3, 4}, 0), buffer({5, 6, 7, 8}, 1));
  const int64_t before = device(0).bytesInUse();
  loader_.loaded[1]->failNext = true;
  std::string message;
  EXPECT_EQ(errorCode(call.run(), &message), StatusCode::kResourceExhausted);
  EXPECT_NE(message.find("device 1"), std::string::npos) << message;
  EXPECT_EQ(loader_.loaded[0]->executions, 1);  // device 0 did produce an output
  EXPECT_EQ(device(0).bytesInUse(), before);    // which is gone again
  EXPECT_EQ(device(0).badFrees(), 0);
  EXPECT_EQ(call.outputs[0], nullptr);
  EXPECT_EQ(call.outputs[1], nullptr);
  EXPECT_EQ(call.complete[0], nullptr);
}

TEST_F(ParticipantsTest, BadArgumentsStopEveryParticipantBeforeAnyLaunch) {
  PJRT_LoadedExecutable* executable = loadPmapLike();
  ASSERT_NE(executable, nullptr);
  // Device 1's argument lives on device 0.
  TwoDeviceCall call(executable, buffer({1, 2, 3, 4}, 0), buffer({5, 6, 7, 8}, 0));
  std::string message;
  EXPECT_EQ(errorCode(call.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("argument 0 of jit_double is on device 0 but the program runs "
                         "on device 1"),
            std::string::npos)
      << message;
  EXPECT_EQ(loader_.loaded[0]->executions, 0);  // a collective would have waited
  EXPECT_EQ(loader_.loaded[1]->executions, 0);

  // One participant cannot run alone.
  TwoDeviceCall alone(executable, buffer({1, 2, 3, 4}, 0), nullptr);
  alone.args.num_devices = 1;
  alone.args.execute_device = client_->devices[0];
  EXPECT_EQ(errorCode(alone.run(), &message), StatusCode::kInvalidArgument);
  EXPECT_NE(message.find("2 participants together"), std::string::npos) << message;
}

}  // namespace
}  // namespace jft::pjrt::testing
