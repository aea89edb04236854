// PJRT_LoadedExecutable_Execute: checks the arguments, enqueues the program
// and returns at once with output buffers whose ready event is the
// execution's completion.
//
// Donation: a parameter that an output may alias (Program::output_aliases) is
// donated unless the caller lists it in non_donatable_input_indices, passes
// the same buffer twice, or holds an external reference to it. A donated
// argument is consumed: marked deleted without freeing the memory the output
// now owns.
#include <algorithm>
#include <exception>
#include <future>
#include <mutex>
#include <vector>

#include "pjrt/abi_ffi.h"
#include "pjrt/args.h"
#include "pjrt/buffer.h"
#include "pjrt/client.h"
#include "pjrt/device.h"
#include "pjrt/entry_points.h"
#include "pjrt/event.h"
#include "pjrt/executable.h"
#include "pjrt/shape.h"

namespace jft::pjrt {
namespace {

constexpr const char* kName = "PJRT_LoadedExecutable_Execute";

Status fail(const std::string& message) {
  return invalidArgument(std::string(kName) + ": " + message);
}

std::string deviceName(const PJRT_Device* device) {
  return "device " + std::to_string(device->description.id);
}

// Which parameters the caller forbids donating.
StatusOr<std::vector<bool>> nonDonatable(const PJRT_ExecuteOptions* options,
                                         size_t numParameters) {
  std::vector<bool> out(numParameters, false);
  if (options == nullptr) return out;
  JFT_RETURN_IF_ERROR(checkArgs(options,
                                JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, num_recv_ops),
                                "PJRT_ExecuteOptions"));
  if (options->num_send_ops > 0 || options->num_recv_ops > 0)
    return unimplemented(std::string(kName) +
                         ": jax-flagtree does not support host send/recv callbacks");
  // Later options are read only where the caller's struct has them; those we
  // cannot honour are refused rather than silently dropped.
  if (options->struct_size >=
          JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, multi_slice_config) &&
      options->multi_slice_config != nullptr)
    return unimplemented(std::string(kName) +
                         ": jax-flagtree does not support multi-slice execution");
  if (options->struct_size >=
          JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, num_hlo_output_callbacks) &&
      options->num_hlo_output_callbacks > 0)
    return unimplemented(std::string(kName) +
                         ": jax-flagtree does not support HLO output callbacks");
  if (options->struct_size <
      JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, num_non_donatable_input_indices))
    return out;
  if (options->num_non_donatable_input_indices > 0 &&
      options->non_donatable_input_indices == nullptr)
    return fail("non_donatable_input_indices is null");
  for (size_t i = 0; i < options->num_non_donatable_input_indices; ++i) {
    int64_t index = options->non_donatable_input_indices[i];
    if (index < 0 || static_cast<uint64_t>(index) >= numParameters)
      return fail("non_donatable_input_indices holds " + std::to_string(index) +
                  ", not an argument index");
    out[static_cast<size_t>(index)] = true;
  }
  return out;
}

// The execution's FFI user data (jax's host callbacks), when the caller
// passed an execute context.
const ffi::UserData* ffiUserData(const PJRT_ExecuteOptions* options) {
  if (options == nullptr ||
      options->struct_size < JFT_ABI_SIZE_UP_TO(PJRT_ExecuteOptions, context) ||
      options->context == nullptr)
    return nullptr;
  return &options->context->user_data;
}

// The devices the call runs on, one per argument list.
StatusOr<std::vector<PJRT_Device*>> targetDevices(
    const PJRT_LoadedExecutable_Execute_Args& args,
    const PJRT_LoadedExecutable& executable) {
  PJRT_Device* only = nullptr;
  if (args.struct_size >=
      JFT_ABI_SIZE_UP_TO(PJRT_LoadedExecutable_Execute_Args, execute_device))
    only = args.execute_device;
  if (only != nullptr) {
    if (!executable.client->ownsDevice(only))
      return fail("execute_device is not a device of this client");
    if (args.num_devices != 1)
      return fail("with execute_device set, num_devices must be 1, not " +
                  std::to_string(args.num_devices));
    if (executable.participants() > 1)
      return fail(executable.info->name + " runs over " +
                  std::to_string(executable.participants()) +
                  " participants together; execute_device cannot run one alone");
    if (!executable.portable && std::find(executable.addressable_devices.begin(),
                                          executable.addressable_devices.end(),
                                          only) == executable.addressable_devices.end())
      return fail("execute_device is " + deviceName(only) + " but " +
                  executable.info->name + " was compiled for " +
                  deviceName(executable.addressable_devices.front()));
    return std::vector<PJRT_Device*>{only};
  }
  if (executable.portable)
    return fail(executable.info->name +
                " is portable: execute_device must name a device");
  if (args.num_devices != executable.addressable_devices.size())
    return fail(executable.info->name + " runs on " +
                std::to_string(executable.addressable_devices.size()) +
                " device(s) but num_devices is " + std::to_string(args.num_devices));
  return executable.addressable_devices;
}

// Called with the buffer's mutex held.
Status checkArgument(const PJRT_Buffer& buffer, size_t index, const ArraySpec& spec,
                     const PJRT_LoadedExecutable& executable, const PJRT_Device* device) {
  std::string what = "argument " + std::to_string(index) + " of " + executable.info->name;
  if (buffer.client != executable.client)
    return fail(what + " belongs to another client");
  if (buffer.deleted) return fail(what + " has been deleted or donated");
  if (buffer.device != device)
    return fail(what + " is on " + deviceName(buffer.device) +
                " but the program runs on " + deviceName(device));
  if (buffer.incomplete)
    return failedPrecondition(std::string(kName) + ": " + what +
                              " is still receiving its data (its transfer manager's "
                              "last transfer, or the alias's fulfilment, is to come)");
  // JAX keeps a token (jax.lax.create_token) as an empty pred[0] array.
  const bool emptyPred = buffer.type == PJRT_Buffer_Type_PRED && buffer.byte_size == 0;
  if (spec.type == PJRT_Buffer_Type_TOKEN && (buffer.type == spec.type || emptyPred))
    return Status::ok();
  ArraySpec actual{buffer.type, buffer.dims, buffer.byte_size};
  if (buffer.type != spec.type || buffer.dims != spec.dims)
    return fail(what + " is " + actual.text() + " but the program expects " +
                spec.text());
  if (buffer.byte_size != spec.bytes)
    return fail(what + " holds " + std::to_string(buffer.byte_size) +
                " bytes but the program expects " + std::to_string(spec.bytes));
  // The caller holds the buffer's lock.
  if (!sameOrder(buffer.minor_to_major, spec.minor_to_major))
    return fail(what + " has the layout " +
                layoutText(buffer.minor_to_major, buffer.dims.size()) +
                " but the program expects " +
                layoutText(spec.minor_to_major, spec.dims.size()) +
                "; compile for the argument's layout or relayout it first");
  return Status::ok();
}

struct Launched {
  std::vector<PJRT_Buffer*> outputs;
  runtime::EventPtr done;
};

void destroyBuffers(std::vector<PJRT_Buffer*>& buffers) {
  for (PJRT_Buffer* buffer : buffers) {
    buffer->release();
    delete buffer;
  }
  buffers.clear();
}

Status checkNonNull(const ExecutableInfo& info, PJRT_Device* device,
                    PJRT_Buffer* const* arguments) {
  const size_t numArgs = info.parameters.size();
  if (numArgs > 0 && arguments == nullptr)
    return fail("the argument list for " + deviceName(device) + " is null");
  for (size_t i = 0; i < numArgs; ++i) {
    if (arguments[i] == nullptr)
      return fail("argument " + std::to_string(i) + " of " + info.name + " is null");
  }
  return Status::ok();
}

// The checks launchOn makes, before any participant is launched: once one
// has enqueued a collective, the others must follow or it waits for them.
Status precheck(PJRT_LoadedExecutable& executable, PJRT_Device* device,
                PJRT_Buffer* const* arguments) {
  const ExecutableInfo& info = *executable.info;
  JFT_RETURN_IF_ERROR(checkNonNull(info, device, arguments));
  for (size_t i = 0; i < info.parameters.size(); ++i) {
    std::lock_guard<std::mutex> lock(arguments[i]->mutex);
    JFT_RETURN_IF_ERROR(
        checkArgument(*arguments[i], i, info.parameters[i], executable, device));
  }
  return executable.programFor(device).status();
}

// An argument in pinned host memory (jit with a host in_sharding, or a host
// array passed on): the program reads device memory, so it reads a copy made
// on the device's queue, freed once the queued work is done with it.
StatusOr<uint64_t> stageIn(PJRT_Buffer& argument, PJRT_Device* device) {
  if (argument.byte_size == 0) return uint64_t{0};
  // A pending DMA into the argument may be on another device's queue.
  if (argument.ready != nullptr && !argument.ready->isReady())
    JFT_RETURN_IF_ERROR(argument.ready->await());
  JFT_ASSIGN_OR_RETURN(uint64_t copy, device->runtime->allocate(argument.byte_size));
  StatusOr<runtime::EventPtr> copied =
      device->runtime->copyPinnedToDevice(copy, argument.host, argument.byte_size);
  if (!copied.isOk()) {
    device->runtime->deallocate(copy, argument.byte_size);
    return copied.status();
  }
  return copy;
}

// The device copies of pinned host arguments, given back when the launch is
// enqueued (or failed): the device defers each free until the queued work
// that reads it is done.
struct StagedArguments {
  runtime::Device* device;
  std::vector<std::pair<uint64_t, uint64_t>> copies;  // address, bytes
  ~StagedArguments() {
    for (const auto& [address, bytes] : copies) device->deallocate(address, bytes);
  }
};

PJRT_Memory* pinnedMemoryOf(PJRT_Device* device) {
  for (PJRT_Memory* memory : device->memories) {
    if (unwrap(memory)->pinned_host) return memory;
  }
  return nullptr;
}

// An output the program's signature keeps in pinned host memory (a host
// out_sharding): copied there on the device's queue after the program; the
// device memory it was computed in goes back once that copy has read it.
Status stageOut(PJRT_Buffer& output, PJRT_Device* device, runtime::EventPtr& ready) {
  PJRT_Memory* pinned = pinnedMemoryOf(device);
  if (pinned == nullptr)
    return failedPrecondition(deviceName(device) + " has no pinned_host memory");
  void* host = nullptr;
  if (output.byte_size > 0) {
    JFT_ASSIGN_OR_RETURN(host, device->runtime->allocatePinned(output.byte_size));
    StatusOr<runtime::EventPtr> copied =
        device->runtime->copyDeviceToPinned(host, output.address, output.byte_size);
    if (!copied.isOk()) {
      device->runtime->deallocatePinned(host);
      return copied.status();
    }
    ready = runtime::whenAll({ready, *copied});
    device->runtime->deallocate(output.address, output.byte_size);
  }
  output.memory = pinned;
  output.pinned_host = true;
  output.host = host;
  output.address = 0;
  return Status::ok();
}

StatusOr<Launched> launchOn(PJRT_LoadedExecutable& executable, PJRT_Device* device,
                            PJRT_Buffer* const* arguments,
                            const std::vector<bool>& forbidDonation,
                            const runtime::ParticipantContext* participant) {
  const ExecutableInfo& info = *executable.info;
  const size_t numArgs = info.parameters.size();
  JFT_RETURN_IF_ERROR(checkNonNull(info, device, arguments));
  JFT_ASSIGN_OR_RETURN(std::shared_ptr<DeviceProgram> program,
                       executable.programFor(device));

  // Each distinct argument stays locked until the launch is enqueued and the
  // donations are recorded, so no Delete can free memory a kernel is about to read.
  std::vector<PJRT_Buffer*> distinct(arguments, arguments + numArgs);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(distinct.size());
  for (PJRT_Buffer* buffer : distinct) locks.emplace_back(buffer->mutex);

  std::vector<bool> aliased(numArgs, false);
  for (int alias : info.program.output_aliases) {
    if (alias >= 0) aliased[static_cast<size_t>(alias)] = true;
  }
  // A donated argument is given away whether or not an output takes its
  // memory, as JAX expects of donate_argnums.
  std::vector<bool> giveAway(aliased);
  const std::vector<bool>& requested = info.program.donated_parameters;
  for (size_t i = 0; i < numArgs && i < requested.size(); ++i)
    giveAway[i] = giveAway[i] || requested[i];
  std::vector<runtime::ExecuteArgument> runtimeArgs(numArgs);
  std::vector<runtime::EventPtr> pending;
  for (size_t i = 0; i < numArgs; ++i) {
    PJRT_Buffer& buffer = *arguments[i];
    JFT_RETURN_IF_ERROR(checkArgument(buffer, i, info.parameters[i], executable, device));
    if (buffer.pinned_host) {
      runtimeArgs[i] = {0, buffer.byte_size, false};  // staged below
      continue;
    }
    bool passedOnce = std::count(arguments, arguments + numArgs, &buffer) == 1;
    runtimeArgs[i] = {buffer.address, buffer.byte_size,
                      giveAway[i] && !forbidDonation[i] && passedOnce &&
                          buffer.external_references == 0 && !buffer.view};
    if (buffer.ready != nullptr &&
        !(buffer.ready->isReady() && buffer.ready->status().isOk()))
      pending.push_back(buffer.ready);
  }

  // An error buffer, or an input whose transfer failed: nothing is launched
  // (its memory may not exist); the outputs carry the error instead.
  for (size_t i = 0; i < numArgs; ++i) {
    const runtime::EventPtr& ready = arguments[i]->ready;
    if (ready == nullptr || !ready->isReady() || ready->status().isOk()) continue;
    Status failed(ready->status().code(), ready->status().message() + " (argument " +
                                              std::to_string(i) + " of " + info.name +
                                              ")");
    Launched launched;
    launched.done = runtime::Event::ready(failed);
    for (const ArraySpec& spec : info.outputs) {
      auto* buffer = new PJRT_Buffer();
      buffer->client = executable.client;
      buffer->device = device;
      buffer->memory = device->default_memory;
      buffer->type = spec.type;
      buffer->dims = spec.dims;
      buffer->minor_to_major = spec.minor_to_major;
      buffer->byte_size = spec.bytes;
      buffer->ready = launched.done;
      launched.outputs.push_back(buffer);
    }
    return launched;
  }

  StagedArguments staged{device->runtime};
  for (size_t i = 0; i < numArgs; ++i) {
    PJRT_Buffer& buffer = *arguments[i];
    if (!buffer.pinned_host) continue;
    StatusOr<uint64_t> copy = stageIn(buffer, device);
    if (!copy.isOk())
      return copy.status().withContext(std::string(kName) + ": argument " +
                                       std::to_string(i) + " of " + info.name);
    staged.copies.emplace_back(*copy, buffer.byte_size);
    runtimeArgs[i].address = *copy;
  }
  JFT_ASSIGN_OR_RETURN(runtime::ExecuteResult result,
                       program->execute(runtimeArgs, participant));
  Launched launched;
  launched.done = result.done != nullptr ? result.done : runtime::Event::ready();
  // Outputs also carry a failed input transfer, not only the program's own errors.
  runtime::EventPtr ready = launched.done;
  if (!pending.empty()) {
    pending.push_back(launched.done);
    ready = runtime::whenAll(pending);
  }

  auto abandon = [&](const std::string& why) -> Status {
    for (const runtime::ExecuteOutput& output : result.outputs) {
      if (output.taken_from < 0 && output.address != 0)
        device->runtime->deallocate(output.address, output.bytes);
    }
    return internalError(std::string(kName) + ": " + info.name + ": " + why);
  };
  if (result.outputs.size() != info.outputs.size())
    return abandon("the runtime returned " + std::to_string(result.outputs.size()) +
                   " outputs for " + std::to_string(info.outputs.size()));
  for (size_t o = 0; o < result.outputs.size(); ++o) {
    const runtime::ExecuteOutput& output = result.outputs[o];
    if (output.bytes != info.outputs[o].bytes)
      return abandon("output " + std::to_string(o) + " came back with " +
                     std::to_string(output.bytes) + " bytes for " +
                     info.outputs[o].text());
    if (output.taken_from >= 0 &&
        (static_cast<size_t>(output.taken_from) >= numArgs ||
         !runtimeArgs[static_cast<size_t>(output.taken_from)].donated))
      return abandon("output " + std::to_string(o) + " took over argument " +
                     std::to_string(output.taken_from) + ", which was not donated");
  }

  for (size_t o = 0; o < result.outputs.size(); ++o) {
    const runtime::ExecuteOutput& output = result.outputs[o];
    auto* buffer = new PJRT_Buffer();
    buffer->client = executable.client;
    buffer->device = device;
    buffer->memory = device->default_memory;
    buffer->type = info.outputs[o].type;
    buffer->dims = info.outputs[o].dims;
    buffer->minor_to_major = info.outputs[o].minor_to_major;
    buffer->byte_size = output.bytes;
    buffer->address = output.address;
    buffer->ready = ready;
    launched.outputs.push_back(buffer);
  }
  // The donated arguments' memory now belongs to the outputs that took it;
  // the rest is returned once the queued work that reads it is done.
  std::vector<bool> taken(numArgs, false);
  for (const runtime::ExecuteOutput& output : result.outputs) {
    if (output.taken_from >= 0) taken[static_cast<size_t>(output.taken_from)] = true;
  }
  for (size_t i = 0; i < numArgs; ++i) {
    if (!runtimeArgs[i].donated) continue;
    PJRT_Buffer& consumed = *arguments[i];
    if (!taken[i] && consumed.address != 0)
      device->runtime->deallocate(consumed.address, consumed.byte_size);
    consumed.deleted = true;
    consumed.address = 0;
  }
  for (size_t o = 0; o < launched.outputs.size(); ++o) {
    if (!info.outputs[o].onHost()) continue;
    PJRT_Buffer& output = *launched.outputs[o];
    Status moved = stageOut(output, device, output.ready);
    // Not moved (no pinned memory left): the output, still in device memory,
    // carries the error.
    if (!moved.isOk())
      output.ready = runtime::Event::ready(moved.withContext(
          std::string(kName) + ": output " + std::to_string(o) + " of " + info.name));
  }
  return launched;
}

// One device's launch on its worker thread; never throws.
StatusOr<Launched> launchGuarded(PJRT_LoadedExecutable& executable, PJRT_Device* device,
                                 PJRT_Buffer* const* arguments,
                                 const std::vector<bool>& forbidDonation,
                                 const runtime::ParticipantContext* participant) {
  try {
    return launchOn(executable, device, arguments, forbidDonation, participant);
  } catch (const std::exception& e) {
    return internalError(std::string(kName) + ": " + e.what());
  } catch (...) {
    return internalError(std::string(kName) + ": an unknown exception");
  }
}

// A program over several participants: every device's enqueue runs at once,
// each on its device's worker (device_worker.h), since the first collective
// blocks until every member joins. Waits for the enqueues, not the GPU. On
// any failure the outputs the others produced are destroyed and the first
// error (in argument-list order) is returned, naming its device.
StatusOr<std::vector<Launched>> launchParticipants(
    PJRT_LoadedExecutable& executable, const std::vector<PJRT_Device*>& devices,
    PJRT_Buffer* const* const* argumentLists, const std::vector<bool>& forbidDonation,
    const ffi::UserData* user_data) {
  const size_t n = devices.size();
  auto argumentsOf = [&](size_t d) {
    return argumentLists != nullptr ? argumentLists[d] : nullptr;
  };
  std::vector<runtime::ParticipantContext> contexts(n);
  for (size_t d = 0; d < n; ++d) {
    JFT_RETURN_IF_ERROR(precheck(executable, devices[d], argumentsOf(d)));
    const PJRT_LoadedExecutable& e = executable;
    auto at =
        std::find(e.addressable_devices.begin(), e.addressable_devices.end(), devices[d]);
    if (at == e.addressable_devices.end())
      return fail(deviceName(devices[d]) + " is not a participant of " + e.info->name);
    const PJRT_LogicalDeviceIds& ids =
        e.logical_ids[static_cast<size_t>(at - e.addressable_devices.begin())];
    contexts[d].layout = &executable.layout;
    contexts[d].replica = ids.replica;
    contexts[d].partition = ids.partition;
    StatusOr<runtime::CollectiveRunner*> runner = devices[d]->runtime->collectiveRunner();
    if (!runner.isOk())
      return runner.status().withContext(
          std::string(kName) + ": " + deviceName(devices[d]) + " cannot run collectives");
    contexts[d].runner = *runner;
    contexts[d].ffi_user_data = user_data;
  }

  std::vector<std::promise<StatusOr<Launched>>> promises(n);
  std::vector<std::future<StatusOr<Launched>>> futures;
  for (auto& promise : promises) futures.push_back(promise.get_future());
  for (size_t d = 0; d < n; ++d) {
    devices[d]->worker().post([&, d] {
      promises[d].set_value(launchGuarded(executable, devices[d], argumentsOf(d),
                                          forbidDonation, &contexts[d]));
    });
  }
  std::vector<StatusOr<Launched>> results;
  for (auto& future : futures) results.push_back(future.get());

  Status first = Status::ok();
  for (size_t d = 0; d < n && first.isOk(); ++d) {
    if (!results[d].isOk())
      first = results[d].status().withContext("on " + deviceName(devices[d]));
  }
  std::vector<Launched> launched;
  for (StatusOr<Launched>& result : results) {
    if (!result.isOk()) continue;
    launched.push_back(std::move(result).value());
    if (!first.isOk()) destroyBuffers(launched.back().outputs);
  }
  if (!first.isOk()) return first;
  return launched;
}

}  // namespace

PJRT_Error* loadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args* args) {
  return boundary(kName, [&]() -> Status {
    JFT_RETURN_IF_ERROR(checkArgs(
        args,
        JFT_ABI_SIZE_UP_TO(PJRT_LoadedExecutable_Execute_Args, device_complete_events),
        kName));
    JFT_RETURN_IF_ERROR(requireNonNull(args->executable, "executable", kName));
    PJRT_LoadedExecutable& executable = *args->executable;
    if (executable.info == nullptr || executable.client == nullptr)
      return fail("the executable is empty");
    if (executable.isDeleted())
      return failedPrecondition(std::string(kName) + ": " + executable.info->name +
                                " has been deleted");
    const ExecutableInfo& info = *executable.info;
    JFT_ASSIGN_OR_RETURN(std::vector<bool> forbidDonation,
                         nonDonatable(args->options, info.parameters.size()));
    JFT_ASSIGN_OR_RETURN(std::vector<PJRT_Device*> devices,
                         targetDevices(*args, executable));
    if (args->num_args != info.parameters.size())
      return fail(info.name + " takes " + std::to_string(info.parameters.size()) +
                  " arguments but " + std::to_string(args->num_args) + " were passed");
    if (args->argument_lists == nullptr && info.parameters.size() > 0)
      return fail("argument_lists is null");
    if (args->output_lists == nullptr) return fail("output_lists is null");
    for (size_t d = 0; d < devices.size(); ++d) {
      if (args->output_lists[d] == nullptr && !info.outputs.empty())
        return fail("output list " + std::to_string(d) + " is null");
    }

    std::vector<Launched> launched;
    if (executable.participants() > 1) {
      JFT_ASSIGN_OR_RETURN(
          launched, launchParticipants(executable, devices, args->argument_lists,
                                       forbidDonation, ffiUserData(args->options)));
    } else {
      // One participant per device (a portable executable, or one device):
      // today's direct path, no thread hop. A context only carries the
      // execution's FFI user data to custom-call handlers.
      runtime::ParticipantContext alone;
      alone.ffi_user_data = ffiUserData(args->options);
      const runtime::ParticipantContext* context =
          alone.ffi_user_data != nullptr ? &alone : nullptr;
      for (size_t d = 0; d < devices.size(); ++d) {
        PJRT_Buffer* const* arguments =
            args->argument_lists != nullptr ? args->argument_lists[d] : nullptr;
        auto one = launchOn(executable, devices[d], arguments, forbidDonation, context);
        if (!one.isOk()) {
          for (Launched& earlier : launched) destroyBuffers(earlier.outputs);
          return one.status();
        }
        launched.push_back(std::move(one).value());
      }
    }
    for (size_t d = 0; d < devices.size(); ++d) {
      std::copy(launched[d].outputs.begin(), launched[d].outputs.end(),
                args->output_lists[d]);
      if (args->device_complete_events != nullptr)
        args->device_complete_events[d] = wrapEvent(launched[d].done);
    }
    return Status::ok();
  });
}

}  // namespace jft::pjrt
