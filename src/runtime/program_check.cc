// Program validation. Every message names the offending slot, kernel or thunk
// by index so a compiler bug can be traced back to the thunk list.
#include "runtime/program_check.h"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "runtime/collective_groups.h"
#include "runtime/fft.h"
#include "runtime/gemm.h"
#include "runtime/library_op.h"

namespace jft::runtime {
namespace {

constexpr uint32_t kMaxBlockThreads = 1024;

std::string str(uint64_t v) {
  return std::to_string(v);
}

class Checker {
 public:
  Checker(const Program& program, int warp_size) : p_(program), warp_size_(warp_size) {}

  Status run() {
    JFT_RETURN_IF_ERROR(checkKernels());
    JFT_RETURN_IF_ERROR(checkOutputs());
    JFT_RETURN_IF_ERROR(checkSlots());
    Status status = checkList(p_.thunks, -1, "");
    return status.isOk() ? status : fail(status.message());
  }

 private:
  Status fail(const std::string& what) const {
    return invalidArgument("program '" + p_.name + "': " + what);
  }
  static bool powerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

  Status checkKernels() const {
    for (size_t k = 0; k < p_.kernels.size(); ++k) {
      const KernelImage& image = p_.kernels[k];
      std::string where = "kernel " + str(k) + " ('" + image.name + "')";
      if (image.binary.empty()) return fail(where + " has an empty binary");
      if (image.name.empty())
        return fail("kernel " + str(k) + " has no entry point name");
      if (image.num_warps <= 0 ||
          static_cast<uint64_t>(image.num_warps) * static_cast<uint64_t>(warp_size_) >
              kMaxBlockThreads) {
        return fail(where + " asks for " + std::to_string(image.num_warps) +
                    " warps; a block holds 1 to " + str(kMaxBlockThreads / warp_size_));
      }
      if (!powerOfTwo(image.global_scratch_align) ||
          !powerOfTwo(image.profile_scratch_align)) {
        return fail(where + " has a scratch alignment that is not a power of two");
      }
    }
    return Status::ok();
  }

  Status checkSlots() const {
    for (size_t s = 0; s < p_.slots.size(); ++s) {
      const BufferSlot& slot = p_.slots[s];
      std::string where = "slot " + str(s);
      switch (slot.kind) {
        case BufferSlot::Kind::kParameter:
          if (slot.index < 0 ||
              static_cast<size_t>(slot.index) >= p_.parameter_bytes.size())
            return fail(where + " names parameter " + std::to_string(slot.index) +
                        " of " + str(p_.parameter_bytes.size()));
          if (slot.bytes > p_.parameter_bytes[slot.index])
            return fail(where + " reads " + str(slot.bytes) + " bytes of parameter " +
                        std::to_string(slot.index) + ", which has " +
                        str(p_.parameter_bytes[slot.index]));
          break;
        case BufferSlot::Kind::kOutput:
          if (slot.index < 0 ||
              static_cast<size_t>(slot.index) >= p_.output_slots.size() ||
              p_.output_slots[slot.index] != static_cast<int>(s))
            return fail(where + " claims output " + std::to_string(slot.index) +
                        ", but output_slots does not point back at it");
          break;
        case BufferSlot::Kind::kTemp:
          if (slot.offset % kArenaAlignment != 0)
            return fail(where + " has temp offset " + str(slot.offset) +
                        ", not a multiple of " + str(kArenaAlignment));
          if (slot.offset > p_.temp_bytes || slot.bytes > p_.temp_bytes - slot.offset)
            return fail(where + " spans [" + str(slot.offset) + ", " + str(slot.offset) +
                        "+" + str(slot.bytes) + ") outside the " + str(p_.temp_bytes) +
                        "-byte temp arena");
          break;
        case BufferSlot::Kind::kConstant:
          if (slot.data.size() != slot.bytes)
            return fail(where + " is a constant of " + str(slot.bytes) + " bytes with " +
                        str(slot.data.size()) + " bytes of data");
          break;
        default:
          return fail(where + " has an unknown kind");
      }
    }
    return Status::ok();
  }

  Status checkOutputs() const {
    for (size_t i = 0; i < p_.output_slots.size(); ++i) {
      int s = p_.output_slots[i];
      if (!slotInRange(s) || p_.slots[s].kind != BufferSlot::Kind::kOutput ||
          p_.slots[s].index != static_cast<int>(i))
        return fail("output " + str(i) + " names slot " + std::to_string(s) +
                    ", which is not an output slot with index " + str(i));
    }
    if (!p_.output_aliases.empty() && p_.output_aliases.size() != p_.output_slots.size())
      return fail(str(p_.output_aliases.size()) + " output aliases for " +
                  str(p_.output_slots.size()) + " outputs");
    std::vector<bool> taken(p_.parameter_bytes.size(), false);
    for (size_t i = 0; i < p_.output_aliases.size(); ++i) {
      int param = p_.output_aliases[i];
      if (param == -1) continue;
      if (param < 0 || static_cast<size_t>(param) >= p_.parameter_bytes.size())
        return fail("output " + str(i) + " aliases parameter " + std::to_string(param) +
                    " of " + str(p_.parameter_bytes.size()));
      if (taken[param])
        return fail("parameter " + std::to_string(param) + " is aliased by two outputs");
      taken[param] = true;
      uint64_t output_bytes = p_.slots[p_.output_slots[i]].bytes;
      if (output_bytes != p_.parameter_bytes[param])
        return fail("output " + str(i) + " (" + str(output_bytes) +
                    " bytes) aliases parameter " + std::to_string(param) + " (" +
                    str(p_.parameter_bytes[param]) + " bytes)");
    }
    return Status::ok();
  }

  bool slotInRange(int s) const {
    return s >= 0 && static_cast<size_t>(s) < p_.slots.size();
  }

  Status checkWritable(int s, uint64_t bytes, const char* role) const {
    if (!slotInRange(s))
      return invalidArgument(std::string(role) + " slot " + std::to_string(s) + " of " +
                             str(p_.slots.size()));
    const BufferSlot& slot = p_.slots[s];
    if (slot.kind == BufferSlot::Kind::kParameter ||
        slot.kind == BufferSlot::Kind::kConstant)
      return invalidArgument(std::string(role) + " slot " + std::to_string(s) +
                             " is read-only (a parameter or constant)");
    if (bytes > slot.bytes)
      return invalidArgument(std::string(role) + " slot " + std::to_string(s) +
                             " holds " + str(slot.bytes) + " bytes, not " + str(bytes));
    return Status::ok();
  }

  Status checkThunk(const LaunchThunk& launch) const {
    if (launch.kernel < 0 || static_cast<size_t>(launch.kernel) >= p_.kernels.size())
      return invalidArgument("launch of kernel " + std::to_string(launch.kernel) +
                             " of " + str(p_.kernels.size()));
    const KernelImage& image = p_.kernels[launch.kernel];
    size_t wanted = 0;
    for (KernelImage::Param param : image.params) {
      if (param == KernelImage::Param::kBuffer) ++wanted;
    }
    if (launch.buffers.size() != wanted)
      return invalidArgument("kernel '" + image.name + "' takes " + str(wanted) +
                             " buffers, the launch passes " + str(launch.buffers.size()));
    for (size_t b = 0; b < launch.buffers.size(); ++b) {
      if (!slotInRange(launch.buffers[b]))
        return invalidArgument("buffer " + str(b) + " of kernel '" + image.name +
                               "' is slot " + std::to_string(launch.buffers[b]) + " of " +
                               str(p_.slots.size()));
    }
    return Status::ok();
  }

  Status checkThunk(const CopyThunk& copy) const {
    if (!slotInRange(copy.source))
      return invalidArgument("copy source slot " + std::to_string(copy.source) + " of " +
                             str(p_.slots.size()));
    if (copy.bytes > p_.slots[copy.source].bytes)
      return invalidArgument("copy of " + str(copy.bytes) + " bytes from slot " +
                             std::to_string(copy.source) + " of " +
                             str(p_.slots[copy.source].bytes));
    return checkWritable(copy.destination, copy.bytes, "copy destination");
  }

  Status checkThunk(const MemsetThunk& memset) const {
    return checkWritable(memset.destination, memset.bytes, "memset destination");
  }

  // The description must be one a library runs, and every buffer must hold
  // the furthest element the description touches.
  Status checkThunk(const GemmThunk& gemm) const {
    const GemmDesc& g = gemm.gemm;
    Status valid = validateGemm(g);
    if (!valid.isOk()) return invalidArgument("gemm: " + valid.message());
    auto bytes = [](int64_t elements, GemmType type) {
      return static_cast<uint64_t>(elements) * static_cast<uint64_t>(gemmTypeBytes(type));
    };
    auto readable = [&](int s, uint64_t need, const char* role) -> Status {
      if (!slotInRange(s))
        return invalidArgument(std::string("gemm ") + role + " slot " +
                               std::to_string(s) + " of " + str(p_.slots.size()));
      if (need > p_.slots[s].bytes)
        return invalidArgument(std::string("gemm ") + role + " slot " +
                               std::to_string(s) + " holds " + str(p_.slots[s].bytes) +
                               " bytes, the product reads " + str(need));
      return Status::ok();
    };
    JFT_RETURN_IF_ERROR(readable(gemm.a, bytes(gemmElementsA(g), g.a.type), "A"));
    JFT_RETURN_IF_ERROR(readable(gemm.b, bytes(gemmElementsB(g), g.b.type), "B"));
    JFT_RETURN_IF_ERROR(
        checkWritable(gemm.d, bytes(gemmElementsD(g), g.d_type), "gemm D"));
    if (g.bias) {
      if (gemm.bias < 0) return invalidArgument("gemm with a bias has no bias slot");
      return readable(gemm.bias, bytes(g.n, g.d_type), "bias");
    }
    if (gemm.bias != -1)
      return invalidArgument("gemm without a bias names bias slot " +
                             std::to_string(gemm.bias));
    return Status::ok();
  }

  // A collective's slots hold one rank's input, and its output for every
  // group size its groups allow where that size is known without the layout
  // (the largest all_gather, the smallest reduce_scatter group). Where it is
  // not (empty groups, cross_replica_and_partition: the sizes follow the
  // replica and partition counts, which only execution knows), the executable
  // checks the resolved sizes against the slots before running the collective.
  Status checkThunk(const CollectiveThunk& collective) const {
    const CollectiveDesc& desc = collective.desc;
    const std::string what = collectiveKindName(desc.kind) + std::string(" ") +
                             collectiveTypeName(desc.type) + " x" +
                             std::to_string(desc.count);
    if (desc.count < 0) return invalidArgument(what + ": the element count is negative");
    JFT_RETURN_IF_ERROR(checkCollectiveGroups(desc, collective.groups));
    if (!slotInRange(collective.input))
      return invalidArgument(what + " input slot " + std::to_string(collective.input) +
                             " of " + str(p_.slots.size()));
    const uint64_t elementBytes =
        static_cast<uint64_t>(collectiveElementBytes(desc.type));
    uint64_t inputBytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(desc.count), elementBytes,
                               &inputBytes))
      return invalidArgument(what + " exceeds 64-bit sizes");
    if (inputBytes > p_.slots[collective.input].bytes)
      return invalidArgument(what + " input slot " + std::to_string(collective.input) +
                             " holds " + str(p_.slots[collective.input].bytes) +
                             " bytes, each rank sends " + str(inputBytes));
    uint64_t output_bytes = 0;
    const std::optional<std::vector<int64_t>> sizes = knownGroupSizes(collective.groups);
    if (sizes.has_value()) {
      for (int64_t size : *sizes) {
        CollectiveDesc sized = desc;
        sized.ranks = size;
        sized.pairs.clear();
        JFT_RETURN_IF_ERROR(validateCollective(sized));
        uint64_t bytes = 0;
        if (__builtin_mul_overflow(static_cast<uint64_t>(collectiveOutputCount(sized)),
                                   elementBytes, &bytes))
          return invalidArgument(what + " exceeds 64-bit sizes");
        output_bytes = std::max(output_bytes, bytes);
      }
    } else if (desc.kind != CollectiveKind::kAllGather &&
               desc.kind != CollectiveKind::kReduceScatter) {
      output_bytes = inputBytes;  // the other kinds output what each rank sends
    }
    const std::string output = what + " output";
    JFT_RETURN_IF_ERROR(checkWritable(collective.output, output_bytes, output.c_str()));
    return checkApart(collective.input, collective.output, what);
  }

  // The library reads one while writing the other: they must not share bytes
  // (temps are packed into one arena, so two slots may).
  Status checkApart(int a, int b, const std::string& what) const {
    if (a == b)
      return invalidArgument(what + " reads and writes slot " + std::to_string(a));
    const BufferSlot& x = p_.slots[a];
    const BufferSlot& y = p_.slots[b];
    if (x.kind == BufferSlot::Kind::kTemp && y.kind == BufferSlot::Kind::kTemp &&
        x.bytes != 0 && y.bytes != 0 && x.offset < y.offset + y.bytes &&
        y.offset < x.offset + x.bytes)
      return invalidArgument(what + " input slot " + std::to_string(a) +
                             " overlaps its output slot " + std::to_string(b) +
                             " in the temp arena");
    return Status::ok();
  }

  Status checkThunk(const ParticipantIdThunk& id) const {
    return checkWritable(id.destination, 4, "participant id");
  }

  // A custom call: one slot per argument and result, as many as its shapes.
  Status checkThunk(const FfiThunk& call) const {
    if (call.arguments.size() != call.argument_shapes.size() ||
        call.results.size() != call.result_shapes.size())
      return invalidArgument("custom call '" + call.target +
                             "': slots and shapes disagree in number");
    for (int s : call.arguments)
      if (!slotInRange(s))
        return invalidArgument("custom call '" + call.target + "' argument slot " +
                               std::to_string(s) + " of " + str(p_.slots.size()));
    for (int s : call.results)
      if (!slotInRange(s))
        return invalidArgument("custom call '" + call.target + "' result slot " +
                               std::to_string(s) + " of " + str(p_.slots.size()));
    return Status::ok();
  }

  // Every buffer names a slot; an FFT's or a solver's must also be the ones
  // its description lists, each holding what it touches.
  Status checkThunk(const LibraryThunk& library) const {
    for (int s : library.buffers)
      if (!slotInRange(s))
        return invalidArgument(libraryOpText(library.op) + " buffer slot " +
                               std::to_string(s) + " of " + str(p_.slots.size()));
    if (const auto* fft = std::get_if<FftDesc>(&library.op))
      return checkFft(*fft, library.buffers);
    if (const auto* conv = std::get_if<ConvDesc>(&library.op))
      return checkConv(*conv, library.buffers);
    const auto* solver = std::get_if<SolverDesc>(&library.op);
    if (solver == nullptr) return Status::ok();
    JFT_RETURN_IF_ERROR(validateSolver(*solver));
    const std::vector<uint64_t> need = solverBufferBytes(*solver);
    if (need.size() != library.buffers.size())
      return invalidArgument(solverText(*solver) + " lists " +
                             str(library.buffers.size()) + " buffers, not " +
                             str(need.size()));
    for (size_t i = 0; i < need.size(); ++i) {
      const int s = library.buffers[i];
      if (need[i] > p_.slots[s].bytes)
        return invalidArgument(solverText(*solver) + " buffer " + str(i) + " (slot " +
                               std::to_string(s) + ") holds " + str(p_.slots[s].bytes) +
                               " bytes, the operation touches " + str(need[i]));
    }
    return Status::ok();
  }

  // A convolution reads its first two buffers and writes the third, each
  // holding the tensor it stands for (runtime/conv.h).
  Status checkConv(const ConvDesc& conv, const std::vector<int>& buffers) const {
    const std::string what = convText(conv);
    JFT_RETURN_IF_ERROR(validateConv(conv));
    if (buffers.size() != kConvBufferCount)
      return invalidArgument(what + " lists " + str(buffers.size()) + " buffers, not 3");
    for (size_t i = 0; i + 1 < kConvBufferCount; ++i) {
      const uint64_t need = convTensorBytes(conv, convBufferTensor(conv, i));
      if (need > p_.slots[buffers[i]].bytes)
        return invalidArgument(what + " buffer " + str(i) + " (slot " +
                               std::to_string(buffers[i]) + ") holds " +
                               str(p_.slots[buffers[i]].bytes) + " bytes, it reads " +
                               str(need));
    }
    const std::string result = what + " result";
    return checkWritable(buffers[2], convTensorBytes(conv, convBufferTensor(conv, 2)),
                         result.c_str());
  }

  Status checkFft(const FftDesc& fft, const std::vector<int>& buffers) const {
    const std::string what = fftText(fft);
    if (Status valid = validateFft(fft); !valid.isOk()) return valid;
    if (buffers.size() != fftBufferCount(fft))
      return invalidArgument(what + " lists " + str(buffers.size()) + " buffers, not " +
                             str(fftBufferCount(fft)));
    const int input = buffers[0];
    if (fftInputBytes(fft) > p_.slots[input].bytes)
      return invalidArgument(what + " input slot " + std::to_string(input) + " holds " +
                             str(p_.slots[input].bytes) + " bytes, the FFT reads " +
                             str(fftInputBytes(fft)));
    const std::string output = what + " output";
    JFT_RETURN_IF_ERROR(checkWritable(buffers[1], fftOutputBytes(fft), output.c_str()));
    if (buffers.size() < 3) return Status::ok();
    const std::string workspace = what + " workspace";
    return checkWritable(buffers[2], fftWorkspaceBytes(fft), workspace.c_str());
  }

  // Nested lists are named by their path: "thunk 2: while body thunk 0: ...".
  // A thunk of list L (-1: the top list) may only name lists after L, so
  // nesting cannot loop back.
  Status checkList(const std::vector<Thunk>& thunks, int list,
                   const std::string& name) const {
    for (size_t t = 0; t < thunks.size(); ++t) {
      Status status = std::visit(
          [&](const auto& thunk) {
            if constexpr (std::is_same_v<std::decay_t<decltype(thunk)>, WhileThunk> ||
                          std::is_same_v<std::decay_t<decltype(thunk)>, ConditionalThunk>)
              return checkControl(thunk, list);
            else
              return checkThunk(thunk);
          },
          thunks[t]);
      if (!status.isOk())
        return invalidArgument(name + "thunk " + str(t) + ": " + status.message());
    }
    return Status::ok();
  }

  Status checkNested(int nested, int list, const std::string& name) const {
    if (nested <= list || static_cast<size_t>(nested) >= p_.lists.size())
      return invalidArgument(name + "list " + std::to_string(nested) +
                             " is not one of the " + str(p_.lists.size()) +
                             " lists after list " + std::to_string(list));
    return checkList(p_.lists[nested], nested, name);
  }

  Status checkPredicate(int slot) const {
    if (!slotInRange(slot))
      return invalidArgument("while predicate slot " + std::to_string(slot) + " of " +
                             str(p_.slots.size()));
    if (p_.slots[slot].bytes < 1)
      return invalidArgument("while predicate slot " + std::to_string(slot) +
                             " holds no byte");
    return Status::ok();
  }

  Status checkControl(const WhileThunk& loop, int list) const {
    if (loop.trip_count < -1)
      return invalidArgument("while with trip count " + std::to_string(loop.trip_count));
    if (loop.trip_count == -1) {
      JFT_RETURN_IF_ERROR(checkPredicate(loop.predicate));
      if (loop.pingPong()) JFT_RETURN_IF_ERROR(checkPredicate(loop.odd_predicate));
    }
    JFT_RETURN_IF_ERROR(checkNested(loop.cond, list, "while cond "));
    JFT_RETURN_IF_ERROR(checkNested(loop.body, list, "while body "));
    if (!loop.pingPong()) return Status::ok();
    JFT_RETURN_IF_ERROR(checkNested(loop.odd_cond, list, "while odd cond "));
    JFT_RETURN_IF_ERROR(checkNested(loop.odd_body, list, "while odd body "));
    return checkNested(loop.odd_exit, list, "while odd exit ");
  }

  Status checkControl(const ConditionalThunk& conditional, int list) const {
    const uint64_t need = conditional.predicate ? 1 : sizeof(int32_t);
    if (!slotInRange(conditional.index))
      return invalidArgument("conditional index slot " +
                             std::to_string(conditional.index) + " of " +
                             str(p_.slots.size()));
    if (p_.slots[conditional.index].bytes < need)
      return invalidArgument(
          "conditional index slot " + std::to_string(conditional.index) + " holds " +
          str(p_.slots[conditional.index].bytes) + " bytes, not " + str(need));
    if (conditional.branches.empty())
      return invalidArgument("conditional without branches");
    if (conditional.predicate && conditional.branches.size() != 2)
      return invalidArgument("conditional on a predicate with " +
                             str(conditional.branches.size()) + " branches, not 2");
    for (size_t b = 0; b < conditional.branches.size(); ++b)
      JFT_RETURN_IF_ERROR(
          checkNested(conditional.branches[b], list, "branch " + str(b) + " "));
    return Status::ok();
  }

  const Program& p_;
  int warp_size_;
};

}  // namespace

Status checkProgram(const Program& program, int warp_size) {
  if (warp_size <= 0 || static_cast<uint32_t>(warp_size) > kMaxBlockThreads)
    return invalidArgument("device warp size " + std::to_string(warp_size));
  return Checker(program, warp_size).run();
}

}  // namespace jft::runtime
