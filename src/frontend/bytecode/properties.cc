#include "frontend/bytecode/properties.h"

#include <map>

namespace jft::frontend::bytecode {

Status PropertiesTable::init(const std::optional<Cursor>& section) {
  if (!section || section->empty()) return Status::ok();
  Cursor in = *section;
  uint64_t count = 0;
  JFT_RETURN_IF_ERROR(in.readCount(count, "properties"));
  entries_.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    size_t at = in.fileOffset();
    JFT_RETURN_IF_ERROR(in.readVarInt(size));
    if (size > in.remaining()) {
      return in.errorAt(at, "expected a properties entry of at most " +
                                std::to_string(in.remaining()) + " bytes, found " +
                                std::to_string(size));
    }
    Cursor entry(nullptr, 0, 0, "");
    JFT_RETURN_IF_ERROR(in.subCursor(static_cast<size_t>(size), in.label(), entry));
    entries_.push_back(entry);
  }
  if (!in.empty()) return in.error("expected the end of the properties section");
  return Status::ok();
}

Status PropertiesTable::read(Cursor& in, Cursor& out) const {
  size_t at = in.fileOffset();
  uint64_t index = 0;
  JFT_RETURN_IF_ERROR(in.readVarInt(index));
  if (index >= entries_.size()) {
    return in.errorAt(at, "expected a properties index below " +
                              std::to_string(entries_.size()) + ", found " +
                              std::to_string(index));
  }
  out = entries_[index];
  return Status::ok();
}

std::optional<std::vector<PropertyField>> opPropertyFields(std::string_view op_name) {
  static const std::map<std::string_view, std::vector<PropertyField>, std::less<>>
      kKnown = {
          {"builtin.module", {{"sym_name", true}, {"sym_visibility", true}}},
          {"func.func",
           {{"arg_attrs", true},
            {"function_type", false},
            {"res_attrs", true},
            {"sym_name", false},
            {"sym_visibility", true}}},
          // Shardy, as JAX 0.11 sends it (frontend/sdy/localize_manual.h reads these).
          {"sdy.manual_computation",
           {{"in_shardings", false}, {"manual_axes", false}, {"out_shardings", false}}},
          {"sdy.mesh", {{"mesh", false}, {"sym_name", false}}},
      };
  auto known = kKnown.find(op_name);
  if (known != kKnown.end()) return known->second;
  const std::vector<std::string_view>* names = vhloOpAttributeNames(op_name);
  if (!names) return std::nullopt;
  std::vector<PropertyField> fields;
  for (std::string_view name : *names) fields.push_back({name, false});
  return fields;
}

namespace {

Status keepOpaque(Cursor blob, std::vector<std::pair<std::string, MAttrPtr>>& out) {
  auto opaque = std::make_shared<MAttr>();
  opaque->kind = MAttr::Kind::Opaque;
  opaque->name = "properties";
  const uint8_t* bytes = nullptr;
  size_t n = blob.remaining();
  JFT_RETURN_IF_ERROR(blob.readBytes(n, bytes));
  opaque->data.assign(bytes, bytes + n);
  out.emplace_back("properties", std::move(opaque));
  return Status::ok();
}

Status decodeFields(std::string_view op_name, const std::vector<PropertyField>& fields,
                    Cursor blob, AttrTypeTable& table,
                    std::vector<std::pair<std::string, MAttrPtr>>& out) {
  for (const PropertyField& field : fields) {
    MAttrPtr value;
    if (field.optional) {
      JFT_RETURN_IF_ERROR(table.readOptionalAttr(blob, value));
      if (!value) continue;
    } else {
      JFT_RETURN_IF_ERROR(table.readAttr(blob, value));
    }
    out.emplace_back(std::string(field.name), std::move(value));
  }
  if (!blob.empty()) {
    return blob.error("expected the end of the properties of " + std::string(op_name) +
                      ", found " + std::to_string(blob.remaining()) + " more bytes");
  }
  return Status::ok();
}

}  // namespace

Status decodeOpProperties(std::string_view op_name, Cursor blob, AttrTypeTable& table,
                          std::vector<std::pair<std::string, MAttrPtr>>& out) {
  std::optional<std::vector<PropertyField>> fields = opPropertyFields(op_name);
  if (!fields) return keepOpaque(blob, out);
  // Builtin and VHLO layouts are known exactly, so a mismatch is corrupt
  // input; for other dialects' ops the layout is our best knowledge of a
  // dialect that may change, so a mismatch keeps the blob opaque.
  bool exact = op_name == "builtin.module" || op_name.rfind("vhlo.", 0) == 0;
  std::vector<std::pair<std::string, MAttrPtr>> decoded;
  Status status = decodeFields(op_name, *fields, blob, table, decoded);
  if (!status.isOk()) return exact ? status : keepOpaque(blob, out);
  out.insert(out.end(), decoded.begin(), decoded.end());
  return Status::ok();
}

}  // namespace jft::frontend::bytecode
