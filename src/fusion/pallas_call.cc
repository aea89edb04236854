#include "fusion/pallas_call.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string_view>

#include "fusion/op_text.h"

namespace jft::fusion {
namespace {

constexpr std::string_view kBytecodeMagic("ML\xEFR", 4);

// Prefixes every complaint with the op and the user's line.
class Complaint {
 public:
  Complaint(const ir::Module& module, const ir::Op& op) {
    where_ = std::string("custom_call @") + kPallasTritonTarget;
    const std::string frame = opUserFrame(module, op);
    if (!frame.empty()) where_ += " at " + frame;
  }
  Status operator()(const std::string& what) const {
    return invalidArgument(where_ + " (a Pallas Triton kernel): " + what +
                           "; this build reads the configuration jax 0.11 writes "
                           "(name, ir, num_warps, num_stages, grid_x/y/z, debug, "
                           "serialized_metadata)");
  }

 private:
  std::string where_;
};

const ir::NamedAttrs* configOf(const ir::Op& op) {
  for (const char* holder : {"backend_config", "mhlo.backend_config"})
    if (const auto* dict = ir::findAttrAs<ir::NamedAttrs>(op.attrs, holder)) return dict;
  return nullptr;
}

StatusOr<int64_t> intField(const Complaint& no, const ir::NamedAttrs& config,
                           const char* key, int64_t min) {
  const ir::Attribute* a = ir::findAttr(config, key);
  if (a == nullptr) return no(std::string("backend_config has no `") + key + "`");
  // An integer of the dictionary keeps its type (a one-element literal), as
  // an XLA FFI handler's attributes do; an untyped one is an int64.
  std::optional<int64_t> value;
  if (a->is<int64_t>()) value = a->as<int64_t>();
  if (a->is<ir::DenseElements>()) value = ir::scalarInteger(a->as<ir::DenseElements>());
  if (!value) return no(std::string("backend_config `") + key + "` is not an integer");
  const int64_t v = *value;
  if (v < min || v > std::numeric_limits<int32_t>::max())
    return no(std::string("backend_config `") + key + "` is " + std::to_string(v) +
              ", outside [" + std::to_string(min) + ", 2^31)");
  return v;
}

}  // namespace

bool isPallasCall(const ir::Op& op) {
  if (op.kind != ir::OpKind::CustomCall) return false;
  const auto* target = ir::findAttrAs<std::string>(op.attrs, "call_target_name");
  return target != nullptr && *target == kPallasTritonTarget;
}

StatusOr<PallasCall> pallasCallOf(const ir::Module& module, const ir::Op& op) {
  const Complaint no(module, op);
  if (!isPallasCall(op)) return no("not a custom call to the Triton kernel target");
  const ir::NamedAttrs* config = configOf(op);
  if (config == nullptr)
    return no(ir::findAttr(op.attrs, "backend_config") != nullptr
                  ? "backend_config is not a dictionary"
                  : "the op has no backend_config");
  static constexpr std::string_view kKnown[] = {
      "name",   "ir",     "num_warps", "num_stages",         "grid_x",
      "grid_y", "grid_z", "debug",     "serialized_metadata"};
  for (const auto& [key, value] : *config)
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown))
      return no("backend_config has the unknown key `" + key + "`");

  PallasCall call;
  const auto* name = ir::findAttrAs<std::string>(*config, "name");
  if (name == nullptr || name->empty()) return no("backend_config has no string `name`");
  call.name = *name;
  const auto* module_bytes = ir::findAttrAs<std::string>(*config, "ir");
  if (module_bytes == nullptr || module_bytes->empty())
    return no("backend_config has no string `ir` (the serialized Triton module)");
  call.module = *module_bytes;
  call.bytecode = call.module.starts_with(kBytecodeMagic);
  if (!call.bytecode && call.module.find("tt.func") == std::string::npos)
    return no("backend_config `ir` is neither MLIR bytecode nor a TTIR module's text");
  JFT_ASSIGN_OR_RETURN(int64_t warps, intField(no, *config, "num_warps", 1));
  JFT_ASSIGN_OR_RETURN(int64_t stages, intField(no, *config, "num_stages", 1));
  if ((warps & (warps - 1)) != 0 || warps > 32)
    return no("backend_config `num_warps` is " + std::to_string(warps) +
              ", not a power of two up to 32");
  call.num_warps = static_cast<int>(warps);
  call.num_stages = static_cast<int>(stages);
  const char* grid_keys[] = {"grid_x", "grid_y", "grid_z"};
  for (size_t d = 0; d < 3; ++d) {
    JFT_ASSIGN_OR_RETURN(int64_t extent, intField(no, *config, grid_keys[d], 0));
    // CUDA's limits: 2^31 - 1 programs along x, 65535 along y and z.
    if (d > 0 && extent > 65535)
      return no(std::string("backend_config `") + grid_keys[d] + "` is " +
                std::to_string(extent) + ", above the device's limit of 65535");
    call.grid[d] = static_cast<uint32_t>(extent);
  }
  if (const ir::Attribute* debug = ir::findAttr(*config, "debug")) {
    if (!debug->is<bool>()) return no("backend_config `debug` is not a bool");
    call.debug = debug->as<bool>();
  }
  if (const ir::Attribute* meta = ir::findAttr(*config, "serialized_metadata");
      meta != nullptr && !meta->is<std::string>())
    return no("backend_config `serialized_metadata` is not a string");

  for (ir::ValueId v : op.operands)
    if (v >= module.numValues() || !module.typeOf(v).isTensor())
      return no("an operand is not a tensor (a kernel parameter is a buffer pointer)");
  for (ir::ValueId v : op.results)
    if (v >= module.numValues() || !module.typeOf(v).isTensor())
      return no("a result is not a tensor (a kernel parameter is a buffer pointer)");
  if (const auto* aliases = ir::findAttrAs<std::vector<ir::OutputOperandAlias>>(
          op.attrs, "output_operand_aliases")) {
    for (const ir::OutputOperandAlias& alias : *aliases) {
      const int64_t out = alias.output_tuple_indices.empty()
                              ? (op.results.size() == 1 ? 0 : -1)
                              : alias.output_tuple_indices[0];
      const auto n_out = static_cast<int64_t>(op.results.size());
      const auto n_in = static_cast<int64_t>(op.operands.size());
      if (out < 0 || out >= n_out || alias.output_tuple_indices.size() > 1 ||
          alias.operand_index < 0 || alias.operand_index >= n_in ||
          !alias.operand_tuple_indices.empty())
        return no("output_operand_aliases names an output or operand it does not have");
      const ir::Type& from = module.typeOf(op.operands[alias.operand_index]);
      const ir::Type& to = module.typeOf(op.results[out]);
      if (!(from == to))
        return no("output_operand_aliases joins operand " +
                  std::to_string(alias.operand_index) + " (" + from.str() +
                  ") and result " + std::to_string(out) + " (" + to.str() + ")");
      for (const PallasAlias& seen : call.aliases)
        if (seen.output == out)
          return no("output_operand_aliases names result " + std::to_string(out) +
                    " twice");
      call.aliases.push_back({out, alias.operand_index});
    }
  }
  return call;
}

}  // namespace jft::fusion
