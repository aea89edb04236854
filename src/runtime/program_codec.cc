// Program encoding.
#include "runtime/program_codec.h"

#include <algorithm>

#include "ffi/attribute_codec.h"
#include "runtime/library_codec.h"
#include "runtime/program_check.h"

namespace jft::runtime {
namespace {

void encodeKernel(ByteWriter& out, const KernelImage& kernel) {
  out.bytes(kernel.binary);
  out.bytes(kernel.name);
  out.u32(kernel.shared_mem);
  out.i64(kernel.num_warps);
  out.u64(kernel.params.size());
  for (KernelImage::Param param : kernel.params) out.u8(static_cast<uint8_t>(param));
  out.u64(kernel.global_scratch_size);
  out.u64(kernel.global_scratch_align);
  out.u64(kernel.profile_scratch_size);
  out.u64(kernel.profile_scratch_align);
}

StatusOr<KernelImage> decodeKernel(ByteReader& in) {
  KernelImage kernel;
  JFT_ASSIGN_OR_RETURN(kernel.binary, in.bytes("kernel binary"));
  JFT_ASSIGN_OR_RETURN(kernel.name, in.bytes("kernel name"));
  JFT_ASSIGN_OR_RETURN(kernel.shared_mem, in.u32("kernel shared memory"));
  JFT_ASSIGN_OR_RETURN(kernel.num_warps, in.i32("kernel warps"));
  JFT_ASSIGN_OR_RETURN(size_t params, in.count("kernel parameters", 1));
  for (size_t i = 0; i < params; ++i) {
    JFT_ASSIGN_OR_RETURN(
        KernelImage::Param param,
        decodeEnum(in, "kernel parameter kind", KernelImage::Param::kProfileScratch));
    kernel.params.push_back(param);
  }
  JFT_ASSIGN_OR_RETURN(kernel.global_scratch_size, in.u64("global scratch size"));
  JFT_ASSIGN_OR_RETURN(kernel.global_scratch_align, in.u64("global scratch alignment"));
  JFT_ASSIGN_OR_RETURN(kernel.profile_scratch_size, in.u64("profile scratch size"));
  JFT_ASSIGN_OR_RETURN(kernel.profile_scratch_align, in.u64("profile scratch alignment"));
  return kernel;
}

void encodeSlot(ByteWriter& out, const BufferSlot& slot) {
  out.u8(static_cast<uint8_t>(slot.kind));
  out.u64(slot.bytes);
  out.i64(slot.index);
  out.u64(slot.offset);
  out.bytes(slot.data);
}

StatusOr<BufferSlot> decodeSlot(ByteReader& in) {
  BufferSlot slot;
  JFT_ASSIGN_OR_RETURN(slot.kind,
                       decodeEnum(in, "slot kind", BufferSlot::Kind::kConstant));
  JFT_ASSIGN_OR_RETURN(slot.bytes, in.u64("slot bytes"));
  JFT_ASSIGN_OR_RETURN(slot.index, in.i32("slot index"));
  JFT_ASSIGN_OR_RETURN(slot.offset, in.u64("slot offset"));
  JFT_ASSIGN_OR_RETURN(slot.data, in.bytes("constant data"));
  return slot;
}

void encodeFfi(ByteWriter& out, const FfiThunk& thunk) {
  out.bytes(thunk.target);
  out.u64(thunk.argument_shapes.size());
  for (const ffi::BufferShape& shape : thunk.argument_shapes)
    ffi::encodeBufferShape(out, shape);
  out.ints(thunk.arguments);
  out.u64(thunk.result_shapes.size());
  for (const ffi::BufferShape& shape : thunk.result_shapes)
    ffi::encodeBufferShape(out, shape);
  out.ints(thunk.results);
  ffi::encodeAttribute(out, thunk.attributes);
  out.bytes(thunk.location);
}

StatusOr<std::vector<ffi::BufferShape>> decodeShapes(ByteReader& in, const char* what) {
  JFT_ASSIGN_OR_RETURN(size_t count, in.count(what, 16));
  std::vector<ffi::BufferShape> shapes;
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(ffi::BufferShape shape, ffi::decodeBufferShape(in));
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

StatusOr<FfiThunk> decodeFfi(ByteReader& in) {
  FfiThunk thunk;
  JFT_ASSIGN_OR_RETURN(thunk.target, in.bytes("custom call target"));
  JFT_ASSIGN_OR_RETURN(thunk.argument_shapes, decodeShapes(in, "custom call arguments"));
  JFT_ASSIGN_OR_RETURN(thunk.arguments, in.i32s("custom call argument slots"));
  JFT_ASSIGN_OR_RETURN(thunk.result_shapes, decodeShapes(in, "custom call results"));
  JFT_ASSIGN_OR_RETURN(thunk.results, in.i32s("custom call result slots"));
  JFT_ASSIGN_OR_RETURN(thunk.attributes, ffi::decodeAttribute(in));
  JFT_ASSIGN_OR_RETURN(thunk.location, in.bytes("custom call location"));
  if (thunk.arguments.size() != thunk.argument_shapes.size() ||
      thunk.results.size() != thunk.result_shapes.size())
    return invalidArgument("custom call " + thunk.target +
                           ": slots and buffer shapes do not pair up");
  return thunk;
}

void encodeThunk(ByteWriter& out, const Thunk& thunk) {
  static_assert(std::variant_size_v<Thunk> == 10,
                "a new thunk needs its encoding here (and a format version bump)");
  out.u8(static_cast<uint8_t>(thunk.index()));
  if (const auto* t = std::get_if<LaunchThunk>(&thunk)) {
    out.i64(t->kernel);
    for (uint32_t g : t->grid) out.u32(g);
    out.ints(t->buffers);
  } else if (const auto* t = std::get_if<CopyThunk>(&thunk)) {
    out.i64(t->source);
    out.i64(t->destination);
    out.u64(t->bytes);
  } else if (const auto* t = std::get_if<MemsetThunk>(&thunk)) {
    out.i64(t->destination);
    out.u8(t->value);
    out.u64(t->bytes);
  } else if (const auto* t = std::get_if<GemmThunk>(&thunk)) {
    encodeGemm(out, t->gemm);
    out.i64(t->a);
    out.i64(t->b);
    out.i64(t->d);
    out.i64(t->bias);
  } else if (const auto* t = std::get_if<LibraryThunk>(&thunk)) {
    encodeLibraryOp(out, t->op);
    out.ints(t->buffers);
  } else if (const auto* t = std::get_if<WhileThunk>(&thunk)) {
    out.i64(t->cond);
    out.i64(t->predicate);
    out.i64(t->body);
    out.i64(t->trip_count);
    out.i64(t->odd_cond);
    out.i64(t->odd_predicate);
    out.i64(t->odd_body);
    out.i64(t->odd_exit);
  } else if (const auto* t = std::get_if<ConditionalThunk>(&thunk)) {
    out.i64(t->index);
    out.boolean(t->predicate);
    out.ints(t->branches);
  } else if (const auto* t = std::get_if<CollectiveThunk>(&thunk)) {
    encodeCollective(out, t->desc);
    encodeCollectiveGroups(out, t->groups);
    out.i64(t->input);
    out.i64(t->output);
  } else if (const auto* t = std::get_if<ParticipantIdThunk>(&thunk)) {
    out.boolean(t->partition);
    out.i64(t->destination);
  } else if (const auto* t = std::get_if<FfiThunk>(&thunk)) {
    encodeFfi(out, *t);
  }
}

StatusOr<Thunk> decodeThunk(ByteReader& in) {
  JFT_ASSIGN_OR_RETURN(uint8_t index, in.enumeration("thunk kind", 9));
  switch (index) {
    case 0: {
      LaunchThunk t;
      JFT_ASSIGN_OR_RETURN(t.kernel, in.i32("launch kernel"));
      for (uint32_t& g : t.grid) {
        JFT_ASSIGN_OR_RETURN(g, in.u32("launch grid"));
      }
      JFT_ASSIGN_OR_RETURN(t.buffers, in.i32s("launch buffers"));
      return Thunk(std::move(t));
    }
    case 1: {
      CopyThunk t;
      JFT_ASSIGN_OR_RETURN(t.source, in.i32("copy source"));
      JFT_ASSIGN_OR_RETURN(t.destination, in.i32("copy destination"));
      JFT_ASSIGN_OR_RETURN(t.bytes, in.u64("copy bytes"));
      return Thunk(t);
    }
    case 2: {
      MemsetThunk t;
      JFT_ASSIGN_OR_RETURN(t.destination, in.i32("memset destination"));
      JFT_ASSIGN_OR_RETURN(t.value, in.u8("memset value"));
      JFT_ASSIGN_OR_RETURN(t.bytes, in.u64("memset bytes"));
      return Thunk(t);
    }
    case 3: {
      GemmThunk t;
      JFT_ASSIGN_OR_RETURN(t.gemm, decodeGemm(in));
      JFT_ASSIGN_OR_RETURN(t.a, in.i32("gemm a"));
      JFT_ASSIGN_OR_RETURN(t.b, in.i32("gemm b"));
      JFT_ASSIGN_OR_RETURN(t.d, in.i32("gemm d"));
      JFT_ASSIGN_OR_RETURN(t.bias, in.i32("gemm bias slot"));
      return Thunk(t);
    }
    case 4: {
      LibraryThunk t;
      JFT_ASSIGN_OR_RETURN(t.op, decodeLibraryOp(in));
      JFT_ASSIGN_OR_RETURN(t.buffers, in.i32s("library buffers"));
      return Thunk(std::move(t));
    }
    case 5: {
      WhileThunk t;
      JFT_ASSIGN_OR_RETURN(t.cond, in.i32("while condition"));
      JFT_ASSIGN_OR_RETURN(t.predicate, in.i32("while predicate"));
      JFT_ASSIGN_OR_RETURN(t.body, in.i32("while body"));
      JFT_ASSIGN_OR_RETURN(t.trip_count, in.i64("while trip count"));
      JFT_ASSIGN_OR_RETURN(t.odd_cond, in.i32("while odd condition"));
      JFT_ASSIGN_OR_RETURN(t.odd_predicate, in.i32("while odd predicate"));
      JFT_ASSIGN_OR_RETURN(t.odd_body, in.i32("while odd body"));
      JFT_ASSIGN_OR_RETURN(t.odd_exit, in.i32("while odd exit"));
      return Thunk(t);
    }
    case 6: {
      ConditionalThunk t;
      JFT_ASSIGN_OR_RETURN(t.index, in.i32("conditional index"));
      JFT_ASSIGN_OR_RETURN(t.predicate, in.boolean("conditional predicate"));
      JFT_ASSIGN_OR_RETURN(t.branches, in.i32s("conditional branches"));
      return Thunk(std::move(t));
    }
    case 7: {
      CollectiveThunk t;
      JFT_ASSIGN_OR_RETURN(t.desc, decodeCollective(in));
      JFT_ASSIGN_OR_RETURN(t.groups, decodeCollectiveGroups(in));
      JFT_ASSIGN_OR_RETURN(t.input, in.i32("collective input"));
      JFT_ASSIGN_OR_RETURN(t.output, in.i32("collective output"));
      return Thunk(std::move(t));
    }
    case 8: {
      ParticipantIdThunk t;
      JFT_ASSIGN_OR_RETURN(t.partition, in.boolean("participant id partition"));
      JFT_ASSIGN_OR_RETURN(t.destination, in.i32("participant id destination"));
      return Thunk(t);
    }
    default: {
      JFT_ASSIGN_OR_RETURN(FfiThunk t, decodeFfi(in));
      return Thunk(std::move(t));
    }
  }
}

void encodeThunks(ByteWriter& out, const std::vector<Thunk>& thunks) {
  out.u64(thunks.size());
  for (const Thunk& thunk : thunks) encodeThunk(out, thunk);
}

StatusOr<std::vector<Thunk>> decodeThunks(ByteReader& in) {
  JFT_ASSIGN_OR_RETURN(size_t count, in.count("thunks", 1));
  std::vector<Thunk> thunks;
  for (size_t i = 0; i < count; ++i) {
    JFT_ASSIGN_OR_RETURN(Thunk thunk, decodeThunk(in));
    thunks.push_back(std::move(thunk));
  }
  return thunks;
}

// Lists nest (a loop's body holds a loop ...), and checking and running them
// recurses, once per reference: a blob nesting them deeper than any program
// does, or naming lists so often that checking them would visit millions, is
// refused before either, so it can neither exhaust the stack nor hang.
constexpr size_t kMaxNesting = 256;
constexpr uint64_t kMaxListVisits = uint64_t{1} << 20;

Status checkNesting(const Program& program) {
  const size_t count = program.lists.size();
  std::vector<size_t> depth(count, 0);
  std::vector<uint64_t> visits(count, 0);  // how often a recursive walk reaches each
  uint64_t total = 0;
  auto visit = [&](const std::vector<Thunk>& list, int holder, size_t at,
                   uint64_t reached) -> Status {
    for (const Thunk& thunk : list) {
      std::vector<int> nested;
      if (const auto* loop = std::get_if<WhileThunk>(&thunk)) nested = loop->lists();
      if (const auto* branch = std::get_if<ConditionalThunk>(&thunk))
        nested = branch->branches;
      for (int index : nested) {
        if (index <= holder || static_cast<size_t>(index) >= count)
          return invalidArgument("thunk list " + std::to_string(index) +
                                 " is not a nested list of list " +
                                 std::to_string(holder));
        const size_t j = static_cast<size_t>(index);
        depth[j] = std::max(depth[j], at + 1);
        visits[j] = std::min(kMaxListVisits, visits[j] + reached);
        total = std::min(kMaxListVisits, total + reached);
        if (depth[j] > kMaxNesting)
          return invalidArgument("thunk lists nest deeper than " +
                                 std::to_string(kMaxNesting));
        if (total >= kMaxListVisits)
          return invalidArgument("thunk lists are named " +
                                 std::to_string(kMaxListVisits) + " times or more");
      }
    }
    return Status::ok();
  };
  JFT_RETURN_IF_ERROR(visit(program.thunks, -1, 0, 1));
  // Holders come before the lists they name, so one pass in order sees each
  // list's final depth and visit count before visiting it.
  for (size_t i = 0; i < count; ++i)
    JFT_RETURN_IF_ERROR(
        visit(program.lists[i], static_cast<int>(i), depth[i], visits[i]));
  return Status::ok();
}

}  // namespace

void encodeProgram(ByteWriter& out, const Program& program) {
  out.bytes(program.name);
  out.u64(program.kernels.size());
  for (const KernelImage& kernel : program.kernels) encodeKernel(out, kernel);
  out.u64(program.slots.size());
  for (const BufferSlot& slot : program.slots) encodeSlot(out, slot);
  encodeThunks(out, program.thunks);
  out.u64(program.lists.size());
  for (const std::vector<Thunk>& list : program.lists) encodeThunks(out, list);
  out.u64(program.temp_bytes);
  out.u64(program.parameter_bytes.size());
  for (uint64_t bytes : program.parameter_bytes) out.u64(bytes);
  out.ints(program.output_slots);
  out.ints(program.output_aliases);
  out.u64(program.donated_parameters.size());
  for (bool donated : program.donated_parameters) out.boolean(donated);
}

StatusOr<Program> decodeProgram(ByteReader& in, int warp_size) {
  Program program;
  JFT_ASSIGN_OR_RETURN(program.name, in.bytes("program name"));
  JFT_ASSIGN_OR_RETURN(size_t kernels, in.count("kernels", 8));
  for (size_t i = 0; i < kernels; ++i) {
    JFT_ASSIGN_OR_RETURN(KernelImage kernel, decodeKernel(in));
    program.kernels.push_back(std::move(kernel));
  }
  JFT_ASSIGN_OR_RETURN(size_t slots, in.count("slots", 8));
  for (size_t i = 0; i < slots; ++i) {
    JFT_ASSIGN_OR_RETURN(BufferSlot slot, decodeSlot(in));
    program.slots.push_back(std::move(slot));
  }
  JFT_ASSIGN_OR_RETURN(program.thunks, decodeThunks(in));
  JFT_ASSIGN_OR_RETURN(size_t lists, in.count("thunk lists", 8));
  for (size_t i = 0; i < lists; ++i) {
    JFT_ASSIGN_OR_RETURN(std::vector<Thunk> list, decodeThunks(in));
    program.lists.push_back(std::move(list));
  }
  JFT_ASSIGN_OR_RETURN(program.temp_bytes, in.u64("temp bytes"));
  JFT_ASSIGN_OR_RETURN(size_t parameters, in.count("parameters", 8));
  for (size_t i = 0; i < parameters; ++i) {
    JFT_ASSIGN_OR_RETURN(uint64_t bytes, in.u64("parameter bytes"));
    program.parameter_bytes.push_back(bytes);
  }
  JFT_ASSIGN_OR_RETURN(program.output_slots, in.i32s("output slots"));
  JFT_ASSIGN_OR_RETURN(program.output_aliases, in.i32s("output aliases"));
  JFT_ASSIGN_OR_RETURN(size_t donated, in.count("donated parameters", 1));
  for (size_t i = 0; i < donated; ++i) {
    JFT_ASSIGN_OR_RETURN(bool value, in.boolean("donated parameter"));
    program.donated_parameters.push_back(value);
  }
  Status checked = checkNesting(program);
  if (checked.isOk()) checked = checkProgram(program, warp_size);
  if (!checked.isOk())
    return invalidArgument("the serialized program does not check: " + checked.message());
  return program;
}

}  // namespace jft::runtime
