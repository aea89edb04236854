// Executable: load-time planning and the per-execution enqueue path.
#include "runtime/executable.h"

#include <algorithm>
#include <array>
#include <string>
#include <variant>

#include "runtime/control_flow.h"
#include "runtime/ffi_call.h"
#include "runtime/program_check.h"

namespace jft::runtime {
namespace {

// false when the result does not fit in 64 bits.
bool roundUp(uint64_t value, uint64_t align, uint64_t* out) {
  uint64_t sum = 0;
  if (__builtin_add_overflow(value, align - 1, &sum)) return false;
  *out = sum / align * align;
  return true;
}

bool add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

bool multiply(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

bool skipped(const LaunchThunk& launch) {
  return launch.grid[0] == 0 || launch.grid[1] == 0 || launch.grid[2] == 0;
}

}  // namespace

StatusOr<std::unique_ptr<Executable>> Executable::load(Device& device, Program program) {
  JFT_RETURN_IF_ERROR(checkProgram(program, device.info().warp_size));
  std::unique_ptr<Executable> executable(new Executable(device, program.name));
  Executable& e = *executable;
  e.parameter_bytes_ = program.parameter_bytes;
  for (int slot : program.output_slots)
    e.output_bytes_.push_back(program.slots[slot].bytes);
  e.output_aliases_ = program.output_aliases;
  e.output_aliases_.resize(e.output_bytes_.size(), -1);
  for (size_t s = 0; s < program.slots.size(); ++s) {
    const BufferSlot& slot = program.slots[s];
    e.slot_kinds_.push_back(slot.kind);
    e.slot_indices_.push_back(slot.index);
    e.slot_bytes_.push_back(slot.bytes);
    if (slot.kind == BufferSlot::Kind::kParameter ||
        slot.kind == BufferSlot::Kind::kOutput)
      e.dynamic_slots_.push_back(static_cast<int>(s));
  }
  e.slot_addresses_.assign(program.slots.size(), 0);
  // The destructor releases whatever was acquired when a later step fails.
  JFT_RETURN_IF_ERROR(e.placeMemory(program));
  JFT_RETURN_IF_ERROR(e.uploadConstants(program));
  JFT_RETURN_IF_ERROR(e.loadKernels(program));
  e.planThunks(program, program.thunks, e.steps_);
  {
    auto labels = std::make_shared<std::vector<std::string>>();
    for (const Step& step : e.steps_) labels->push_back(e.stepLabel(program, step));
    e.step_labels_ = std::move(labels);
  }
  JFT_RETURN_IF_ERROR(e.loadFfiCalls());
  e.planGraphRuns();
  return executable;
}

Executable::~Executable() {
  destroyGraphs();
  for (KernelHandle kernel : kernels_) device_.unloadKernel(kernel);
  device_.deallocate(arena_, arena_bytes_);
  device_.deallocate(constants_, constant_bytes_);
}

// The arena: temps at [0, temp_bytes), then one global and one profile scratch
// region, each as large as the largest launch needs. Launches run one after
// another on the device queue, so they can all share the same regions.
Status Executable::placeMemory(const Program& program) {
  auto tooLarge = [&] {
    return invalidArgument("program '" + program.name +
                           "': the temp arena with scratch exceeds 64-bit sizes");
  };
  uint64_t maxGlobal = 0, maxProfile = 0;
  uint64_t globalAlign = kArenaAlignment, profileAlign = kArenaAlignment;
  for (const LaunchThunk* launch : launchesIn(program)) {
    if (skipped(*launch)) continue;
    const KernelImage& image = program.kernels[launch->kernel];
    uint64_t ctas = 0, global = 0, profile = 0;
    if (!multiply(launch->grid[0], launch->grid[1], &ctas) ||
        !multiply(ctas, launch->grid[2], &ctas) ||
        !multiply(image.global_scratch_size, ctas, &global) ||
        !multiply(image.profile_scratch_size, ctas, &profile))
      return tooLarge();
    maxGlobal = std::max(maxGlobal, global);
    maxProfile = std::max(maxProfile, profile);
    if (global != 0) globalAlign = std::max(globalAlign, image.global_scratch_align);
    if (profile != 0) profileAlign = std::max(profileAlign, image.profile_scratch_align);
  }
  uint64_t globalOffset = 0, profileOffset = 0, end = 0;
  if (!roundUp(program.temp_bytes, globalAlign, &globalOffset) ||
      !add(globalOffset, maxGlobal, &end) ||
      !roundUp(end, profileAlign, &profileOffset) ||
      !add(profileOffset, maxProfile, &end))
    return tooLarge();
  if (maxProfile == 0) end = globalOffset + maxGlobal;
  if (maxGlobal == 0 && maxProfile == 0) end = program.temp_bytes;
  // Allocations are 256-byte aligned; a stricter scratch alignment is met by
  // over-allocating and moving the base up.
  uint64_t baseAlign = std::max(globalAlign, profileAlign);
  uint64_t slack = baseAlign - kArenaAlignment;
  if (end != 0 && !add(end, slack, &arena_bytes_)) return tooLarge();
  if (arena_bytes_ != 0) {
    auto arena = device_.allocate(arena_bytes_);
    if (!arena.isOk()) {
      arena_bytes_ = 0;
      return arena.status().withContext("temp arena of program '" + program.name + "'");
    }
    arena_ = *arena;
  }
  uint64_t base = 0;
  roundUp(arena_, baseAlign, &base);
  if (maxGlobal != 0) global_scratch_ = base + globalOffset;
  if (maxProfile != 0) profile_scratch_ = base + profileOffset;
  for (size_t s = 0; s < program.slots.size(); ++s) {
    if (program.slots[s].kind == BufferSlot::Kind::kTemp)
      slot_addresses_[s] = base + program.slots[s].offset;
  }
  return Status::ok();
}

// Constants share one allocation, each at a 256-byte boundary; load waits for
// the upload so a failed copy is reported here rather than by a later run.
Status Executable::uploadConstants(const Program& program) {
  std::vector<uint64_t> offsets(program.slots.size(), 0);
  uint64_t total = 0;
  for (size_t s = 0; s < program.slots.size(); ++s) {
    const BufferSlot& slot = program.slots[s];
    if (slot.kind != BufferSlot::Kind::kConstant) continue;
    if (!roundUp(total, kArenaAlignment, &offsets[s]) ||
        !add(offsets[s], slot.bytes, &total))
      return invalidArgument("program '" + program.name +
                             "': constants exceed 64-bit sizes");
  }
  if (total == 0) return Status::ok();
  auto block = device_.allocate(total);
  if (!block.isOk())
    return block.status().withContext("constants of program '" + program.name + "'");
  constants_ = *block;
  constant_bytes_ = total;
  std::vector<EventPtr> uploads;
  for (size_t s = 0; s < program.slots.size(); ++s) {
    const BufferSlot& slot = program.slots[s];
    if (slot.kind != BufferSlot::Kind::kConstant) continue;
    slot_addresses_[s] = constants_ + offsets[s];
    if (slot.bytes == 0) continue;
    JFT_ASSIGN_OR_RETURN(
        EventPtr uploaded,
        device_.copyToDevice(slot_addresses_[s], slot.data.data(), slot.bytes,
                             /*waitForSource=*/true));
    uploads.push_back(std::move(uploaded));
  }
  Status status = whenAll(uploads)->await();
  if (!status.isOk())
    return status.withContext("uploading constants of '" + program.name + "'");
  return Status::ok();
}

Status Executable::loadKernels(const Program& program) {
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    auto kernel = device_.loadKernel(program.kernels[k]);
    if (!kernel.isOk()) {
      return kernel.status().withContext("program '" + program.name + "', kernel " +
                                         std::to_string(k) + " ('" +
                                         program.kernels[k].name + "')");
    }
    kernels_.push_back(*kernel);
  }
  return Status::ok();
}

void Executable::planThunks(const Program& program, const std::vector<Thunk>& thunks,
                            std::vector<Step>& steps) {
  for (size_t t = 0; t < thunks.size(); ++t) {
    Step step{};
    step.thunk = static_cast<int>(t);
    if (const auto* launch = std::get_if<LaunchThunk>(&thunks[t])) {
      if (skipped(*launch)) continue;
      const KernelImage& image = program.kernels[launch->kernel];
      Launch planned;
      planned.kernel = kernels_[launch->kernel];
      planned.dims.grid = launch->grid;
      planned.dims.block_threads =
          static_cast<uint32_t>(image.num_warps * device_.info().warp_size);
      planned.dims.shared_mem = image.shared_mem;
      int launchIndex = static_cast<int>(launches_.size());
      size_t nextBuffer = 0;
      for (KernelImage::Param param : image.params) {
        uint64_t value = 0;
        if (param == KernelImage::Param::kBuffer) {
          int slot = launch->buffers[nextBuffer++];
          value = slot_addresses_[slot];
          if (dynamicSlot(slot))
            patches_.push_back(
                Patch{launchIndex, static_cast<int>(planned.values.size()), slot});
        } else if (param == KernelImage::Param::kGlobalScratch) {
          value = image.global_scratch_size != 0 ? global_scratch_ : 0;
        } else {
          value = image.profile_scratch_size != 0 ? profile_scratch_ : 0;
        }
        planned.values.push_back(value);
      }
      launches_.push_back(std::move(planned));
      Launch& stored = launches_.back();
      for (uint64_t& value : stored.values) stored.pointers.push_back(&value);
      step.kind = Step::Kind::kLaunch;
      step.launch = launchIndex;
    } else if (const auto* copy = std::get_if<CopyThunk>(&thunks[t])) {
      if (copy->bytes == 0) continue;
      step.kind = Step::Kind::kCopy;
      step.source = copy->source;
      step.destination = copy->destination;
      step.bytes = copy->bytes;
    } else if (const auto* gemm = std::get_if<GemmThunk>(&thunks[t])) {
      step.kind = Step::Kind::kGemm;
      step.gemm = static_cast<int>(gemms_.size());
      gemms_.push_back(*gemm);
    } else if (const auto* id = std::get_if<ParticipantIdThunk>(&thunks[t])) {
      step.kind = Step::Kind::kParticipantId;
      step.destination = id->destination;
      step.partition = id->partition;
    } else if (const auto* collective = std::get_if<CollectiveThunk>(&thunks[t])) {
      step.kind = Step::Kind::kCollective;
      step.gemm = static_cast<int>(collectives_.size());
      collectives_.push_back(*collective);
    } else if (const auto* ffi = std::get_if<FfiThunk>(&thunks[t])) {
      step.kind = Step::Kind::kFfi;
      step.gemm = static_cast<int>(ffi_calls_.size());
      ffi_calls_.push_back(newFfiCall(*ffi));
    } else if (const auto* library = std::get_if<LibraryThunk>(&thunks[t])) {
      step.kind = Step::Kind::kLibrary;
      step.gemm = static_cast<int>(libraries_.size());
      libraries_.push_back(*library);
    } else if (!std::holds_alternative<MemsetThunk>(thunks[t])) {
      planControl(program, thunks[t], step);  // while / conditional
    } else {
      const auto& memset = std::get<MemsetThunk>(thunks[t]);
      if (memset.bytes == 0) continue;
      step.kind = Step::Kind::kMemset;
      step.destination = memset.destination;
      step.value = memset.value;
      step.bytes = memset.bytes;
    }
    steps.push_back(step);
  }
}

StatusOr<ExecuteResult> Executable::execute(std::span<const ExecuteArgument> arguments,
                                            const ParticipantContext* participant) {
  if (arguments.size() != parameter_bytes_.size()) {
    return invalidArgument("program '" + name_ + "' takes " +
                           std::to_string(parameter_bytes_.size()) + " arguments, got " +
                           std::to_string(arguments.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].bytes != parameter_bytes_[i]) {
      return invalidArgument("argument " + std::to_string(i) + " of program '" + name_ +
                             "' has " + std::to_string(arguments[i].bytes) +
                             " bytes, expected " + std::to_string(parameter_bytes_[i]));
    }
    if (arguments[i].address == 0 && arguments[i].bytes != 0) {
      return invalidArgument("argument " + std::to_string(i) + " of program '" + name_ +
                             "' has no device memory");
    }
  }
  // Refused before anything is queued: a collective reached halfway would
  // leave the participants that do run it waiting for this one.
  if (!collectives_.empty() &&
      (participant == nullptr || participant->layout == nullptr ||
       participant->runner == nullptr))
    return failedPrecondition(
        "program '" + name_ + "' holds " + std::to_string(collectives_.size()) +
        " collective(s) (the first: " + collectiveText(collectives_[0].desc) +
        ") and needs the participants of a multi-device execution, but this one runs "
        "alone");
  ExecuteResult result;
  JFT_RETURN_IF_ERROR(allocateOutputs(arguments, result.outputs));
  Status status = enqueue(arguments, result.outputs, participant);
  if (status.isOk()) {
    auto done = device_.recordEvent();
    if (done.isOk()) {
      result.done = std::move(done).value();
      return result;
    }
    status = done.status();
  }
  releaseOutputs(result.outputs);
  return status;
}

Status Executable::allocateOutputs(std::span<const ExecuteArgument> arguments,
                                   std::vector<ExecuteOutput>& outputs) {
  outputs.resize(output_bytes_.size());
  for (size_t i = 0; i < output_bytes_.size(); ++i) {
    ExecuteOutput& output = outputs[i];
    output.bytes = output_bytes_[i];
    int alias = output_aliases_[i];
    if (alias >= 0 && arguments[alias].donated) {
      output.address = arguments[alias].address;
      output.taken_from = alias;
      continue;
    }
    auto address = device_.allocate(output.bytes);
    if (!address.isOk()) {
      outputs.resize(i);
      releaseOutputs(outputs);
      return address.status().withContext("output " + std::to_string(i) +
                                          " of program '" + name_ + "'");
    }
    output.address = *address;
  }
  return Status::ok();
}

void Executable::releaseOutputs(const std::vector<ExecuteOutput>& outputs) {
  for (const ExecuteOutput& output : outputs) {
    if (output.taken_from < 0) device_.deallocate(output.address, output.bytes);
  }
}

Status Executable::enqueue(std::span<const ExecuteArgument> arguments,
                           const std::vector<ExecuteOutput>& outputs,
                           const ParticipantContext* participant) {
  std::lock_guard<std::mutex> lock(mutex_);
  participant_ = participant;
  for (int slot : dynamic_slots_) {
    int index = slot_indices_[slot];
    slot_addresses_[slot] = slot_kinds_[slot] == BufferSlot::Kind::kParameter
                                ? arguments[index].address
                                : outputs[index].address;
  }
  for (const Patch& patch : patches_)
    launches_[patch.launch].values[patch.param] = slot_addresses_[patch.slot];
  const std::string where = "program '" + name_ + "', ";
  const ActivityScopeHooks* hooks = activityScopeHooks();
  ++executions_;
  replaying_ = hooks == nullptr && !graphs_refused_ && !graph_runs_.empty() &&
               executions_ >= device_.launchGraphsFrom();
  Status status =
      hooks == nullptr ? enqueueList(steps_, where) : enqueueTraced(*hooks, where);
  participant_ = nullptr;
  return status;
}

// A program run alone is participant (0, 0) of one. The id goes in as four
// one-byte fills, queue-ordered like every other step: a host copy would have
// to wait for its source to be read, i.e. for the queue (a collective queued
// before it included) to drain.
Status Executable::writeParticipantId(const Step& step) {
  int64_t id = 0;
  if (participant_ != nullptr)
    id = step.partition ? participant_->partition : participant_->replica;
  const uint32_t value = static_cast<uint32_t>(id);
  const uint64_t address = slot_addresses_[step.destination];
  for (int byte = 0; byte < 4; ++byte)
    JFT_RETURN_IF_ERROR(
        device_.fill(address + byte, static_cast<uint8_t>(value >> (8 * byte)), 1));
  return Status::ok();
}

Status Executable::runCollective(const CollectiveThunk& collective) {
  const ParticipantContext* p = participant_;
  if (p == nullptr || p->layout == nullptr || p->runner == nullptr)
    return failedPrecondition(collectiveText(collective.desc) +
                              " needs the participants of a multi-device execution, "
                              "but this one runs alone");
  JFT_ASSIGN_OR_RETURN(ResolvedCollective resolved,
                       resolveCollective(collective.desc, collective.groups, *p->layout,
                                         p->replica, p->partition));
  // Load time checked what the groups fix without the layout; the sizes that
  // follow the replica and partition counts are checked here.
  const std::string participant = " (replica " + std::to_string(p->replica) +
                                  ", partition " + std::to_string(p->partition) + ")";
  if (collectiveInputBytes(resolved.desc) > slot_bytes_[collective.input])
    return invalidArgument(collectiveText(resolved.desc) + participant + " sends " +
                           std::to_string(collectiveInputBytes(resolved.desc)) +
                           " bytes, its input slot " + std::to_string(collective.input) +
                           " holds " + std::to_string(slot_bytes_[collective.input]));
  if (collectiveOutputBytes(resolved.desc) > slot_bytes_[collective.output])
    return invalidArgument(collectiveText(resolved.desc) + participant + " receives " +
                           std::to_string(collectiveOutputBytes(resolved.desc)) +
                           " bytes, its output slot " +
                           std::to_string(collective.output) + " holds " +
                           std::to_string(slot_bytes_[collective.output]));
  // An output that took over its donated argument may be the input itself:
  // NCCL runs all_reduce and broadcast in place, the send/receive kinds not.
  const uint64_t input = slot_addresses_[collective.input];
  const uint64_t output = slot_addresses_[collective.output];
  const uint64_t inputBytes = collectiveInputBytes(resolved.desc);
  const uint64_t output_bytes = collectiveOutputBytes(resolved.desc);
  const bool overlap = inputBytes != 0 && output_bytes != 0 &&
                       input < output + output_bytes && output < input + inputBytes;
  const bool inPlace = input == output && inputBytes == output_bytes &&
                       (resolved.desc.kind == CollectiveKind::kAllReduce ||
                        resolved.desc.kind == CollectiveKind::kCollectiveBroadcast);
  if (overlap && !inPlace)
    return invalidArgument(collectiveText(resolved.desc) + participant +
                           ": its input and output share memory (an output that took "
                           "over a donated argument?); only all_reduce and "
                           "collective_broadcast run in place");
  return p->runner->run(resolved.desc, resolved.clique, resolved.rank, input, output);
}

bool Executable::dynamicSlot(int slot) const {
  if (slot < 0) return false;
  const BufferSlot::Kind kind = slot_kinds_[static_cast<size_t>(slot)];
  return kind == BufferSlot::Kind::kParameter || kind == BufferSlot::Kind::kOutput;
}

std::array<uint64_t, 4> Executable::gemmAddresses(const GemmThunk& gemm) const {
  return {slot_addresses_[gemm.a], slot_addresses_[gemm.b], slot_addresses_[gemm.d],
          gemm.bias >= 0 ? slot_addresses_[gemm.bias] : 0};
}

Status Executable::enqueueGemm(const GemmThunk& gemm) {
  const std::array<uint64_t, 4> at = gemmAddresses(gemm);
  return device_.gemm(gemm.gemm, at[0], at[1], at[2], at[3]);
}

Status Executable::enqueueStep(const Step& step) {
  switch (step.kind) {
    case Step::Kind::kLaunch: {
      Launch& launch = launches_[step.launch];
      return device_.launchKernel(launch.kernel, launch.dims, launch.pointers.data());
    }
    case Step::Kind::kCopy: {
      uint64_t source = slot_addresses_[step.source];
      uint64_t destination = slot_addresses_[step.destination];
      if (source == destination) return Status::ok();
      return device_.copyOnDevice(destination, source, step.bytes);
    }
    case Step::Kind::kMemset:
      return device_.fill(slot_addresses_[step.destination], step.value, step.bytes);
    case Step::Kind::kGemm:
      return enqueueGemm(gemms_[step.gemm]);
    case Step::Kind::kLibrary: {
      const LibraryThunk& library = libraries_[step.gemm];
      library_addresses_.clear();
      for (int slot : library.buffers)
        library_addresses_.push_back(slot_addresses_[slot]);
      return device_.library(library.op, library_addresses_);
    }
    case Step::Kind::kWhile:
      return runLoop(loops_[step.control]);
    case Step::Kind::kConditional:
      return runConditional(conditionals_[step.control]);
    case Step::Kind::kCollective:
      return runCollective(collectives_[step.gemm]);
    case Step::Kind::kParticipantId:
      return writeParticipantId(step);
    case Step::Kind::kFfi:
      return runFfiCall(*ffi_calls_[step.gemm]);
  }
  return internalError("unknown step kind");
}

}  // namespace jft::runtime
