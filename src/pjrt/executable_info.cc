// ExecutableInfo: type mapping and the derived views.
#include "pjrt/executable_info.h"

#include "pjrt/element_types.h"
#include "pjrt/executable_cost.h"
#include "pjrt/shape.h"

namespace jft::pjrt {

PJRT_Buffer_Type bufferType(compiler::ElementType type) {
  using E = compiler::ElementType;
  switch (type) {
    case E::PRED:
      return PJRT_Buffer_Type_PRED;
    case E::I2:
      return PJRT_Buffer_Type_S2;
    case E::I4:
      return PJRT_Buffer_Type_S4;
    case E::I8:
      return PJRT_Buffer_Type_S8;
    case E::I16:
      return PJRT_Buffer_Type_S16;
    case E::I32:
      return PJRT_Buffer_Type_S32;
    case E::I64:
      return PJRT_Buffer_Type_S64;
    case E::U2:
      return PJRT_Buffer_Type_U2;
    case E::U4:
      return PJRT_Buffer_Type_U4;
    case E::U8:
      return PJRT_Buffer_Type_U8;
    case E::U16:
      return PJRT_Buffer_Type_U16;
    case E::U32:
      return PJRT_Buffer_Type_U32;
    case E::U64:
      return PJRT_Buffer_Type_U64;
    case E::F4E2M1FN:
      return PJRT_Buffer_Type_F4E2M1FN;
    case E::F8E3M4:
      return PJRT_Buffer_Type_F8E3M4;
    case E::F8E4M3:
      return PJRT_Buffer_Type_F8E4M3;
    case E::F8E4M3FN:
      return PJRT_Buffer_Type_F8E4M3FN;
    case E::F8E4M3FNUZ:
      return PJRT_Buffer_Type_F8E4M3FNUZ;
    case E::F8E4M3B11FNUZ:
      return PJRT_Buffer_Type_F8E4M3B11FNUZ;
    case E::F8E5M2:
      return PJRT_Buffer_Type_F8E5M2;
    case E::F8E5M2FNUZ:
      return PJRT_Buffer_Type_F8E5M2FNUZ;
    case E::F8E8M0FNU:
      return PJRT_Buffer_Type_F8E8M0FNU;
    case E::F16:
      return PJRT_Buffer_Type_F16;
    case E::BF16:
      return PJRT_Buffer_Type_BF16;
    case E::F32:
      return PJRT_Buffer_Type_F32;
    case E::F64:
      return PJRT_Buffer_Type_F64;
    case E::C64:
      return PJRT_Buffer_Type_C64;
    case E::C128:
      return PJRT_Buffer_Type_C128;
    case E::F6E2M3FN:
      return PJRT_Buffer_Type_F6E2M3FN;
    case E::F6E3M2FN:
      return PJRT_Buffer_Type_F6E3M2FN;
  }
  return PJRT_Buffer_Type_INVALID;
}

std::string ArraySpec::text() const {
  std::string out = elementTypeInfo(type).has_value() ? elementTypeInfo(type)->name : "?";
  out += "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(dims[i]);
  }
  return out + "]";
}

StatusOr<ArraySpec> arraySpec(const compiler::EntryValue& value) {
  using Kind = compiler::EntryValue::Kind;
  ArraySpec spec;
  if (value.kind == Kind::kToken) {
    spec.type = PJRT_Buffer_Type_TOKEN;
    return spec;
  }
  if (value.kind != Kind::kArray)
    return unimplemented("jax-flagtree cannot pass " + value.text +
                         " across the PJRT boundary (only arrays and tokens)");
  spec.type = bufferType(value.element);
  if (spec.type == PJRT_Buffer_Type_INVALID)
    return unimplemented("PJRT has no buffer type for " + value.text);
  spec.dims = value.dims;
  spec.bytes = static_cast<uint64_t>(value.bytes);
  spec.memory_kind = value.memory_kind;
  spec.minor_to_major = value.minor_to_major;
  return spec;
}

Status ExecutableInfo::finish() {
  const size_t numOutputs = outputs.size();
  if (program.parameter_bytes.size() != parameters.size())
    return internalError("the program of " + name + " has " +
                         std::to_string(program.parameter_bytes.size()) +
                         " parameters but its signature " +
                         std::to_string(parameters.size()));
  if (program.output_slots.size() != numOutputs)
    return internalError("the program of " + name + " has " +
                         std::to_string(program.output_slots.size()) +
                         " outputs but its signature " + std::to_string(numOutputs));
  if (!program.output_aliases.empty() && program.output_aliases.size() != numOutputs)
    return internalError("the program of " + name + " has output aliases for " +
                         std::to_string(program.output_aliases.size()) + " of " +
                         std::to_string(numOutputs) + " outputs");
  output_types.clear();
  output_dims.clear();
  output_ranks.clear();
  argument_bytes = output_bytes = alias_bytes = 0;
  for (const ArraySpec& output : outputs) {
    output_types.push_back(output.type);
    output_dims.insert(output_dims.end(), output.dims.begin(), output.dims.end());
    output_ranks.push_back(output.dims.size());
    output_bytes += static_cast<int64_t>(output.bytes);
  }
  for (const ArraySpec& parameter : parameters)
    argument_bytes += static_cast<int64_t>(parameter.bytes);
  for (size_t i = 0; i < program.output_aliases.size(); ++i) {
    int alias = program.output_aliases[i];
    if (alias < -1 || alias >= static_cast<int>(parameters.size()))
      return internalError("output " + std::to_string(i) + " of " + name +
                           " aliases parameter " + std::to_string(alias) +
                           " which does not exist");
    if (alias >= 0) alias_bytes += static_cast<int64_t>(outputs[i].bytes);
  }
  // Views into the specs' strings: neither list changes after finish().
  output_kinds.clear();
  output_kind_sizes.clear();
  for (const ArraySpec& output : outputs) {
    output_kinds.push_back(output.memory_kind.c_str());
    output_kind_sizes.push_back(output.memory_kind.size());
  }
  parameter_kinds.clear();
  parameter_kind_sizes.clear();
  for (const ArraySpec& parameter : parameters) {
    parameter_kinds.push_back(parameter.memory_kind.c_str());
    parameter_kind_sizes.push_back(parameter.memory_kind.size());
  }
  layout_objects.clear();
  parameter_layouts.clear();
  output_layouts.clear();
  for (auto* list : {&parameters, &outputs}) {
    for (const ArraySpec& spec : *list) {
      layout_objects.push_back(std::make_unique<PJRT_Layouts_MemoryLayout>(
          PJRT_Layouts_MemoryLayout{layoutText(spec.minor_to_major, spec.dims.size())}));
      (list == &parameters ? parameter_layouts : output_layouts)
          .push_back(layout_objects.back().get());
    }
  }
  code_bytes = 0;
  for (const runtime::KernelImage& kernel : program.kernels)
    code_bytes += static_cast<int64_t>(kernel.binary.size());
  temp_bytes = static_cast<int64_t>(program.temp_bytes);
  cost_properties = jft::pjrt::costProperties(flops, transcendentals, program);
  return Status::ok();
}

StatusOr<std::shared_ptr<ExecutableInfo>> describeExecutable(
    compiler::Executable compiled, std::string program, std::string compile_options) {
  auto info = std::make_shared<ExecutableInfo>();
  info->name = compiled.name.empty() ? "main" : compiled.name;
  info->fingerprint = std::move(compiled.fingerprint);
  for (const compiler::EntryValue& value : compiler::entryParameters(compiled)) {
    JFT_ASSIGN_OR_RETURN(ArraySpec spec, arraySpec(value));
    info->parameters.push_back(std::move(spec));
  }
  for (const compiler::EntryValue& value : compiler::entryOutputs(compiled)) {
    JFT_ASSIGN_OR_RETURN(ArraySpec spec, arraySpec(value));
    info->outputs.push_back(std::move(spec));
  }
  info->program = std::move(compiled.program);
  info->flops = compiled.cost.flops;
  info->transcendentals = compiled.cost.transcendentals;
  info->optimized_program = std::move(program);
  info->compile_options = std::move(compile_options);
  JFT_RETURN_IF_ERROR(info->finish());
  return info;
}

}  // namespace jft::pjrt
