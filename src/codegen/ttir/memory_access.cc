#include "codegen/ttir/memory_access.h"

#include "codegen/ttir/elementwise.h"

namespace jft::codegen::ttir {

Value pointerTile(TtirWriter& writer, const std::string& param, ir::ElementType element,
                  const Value& offset) {
  const std::string ptr = "!tt.ptr<" + memoryType(element) + ">";
  const Value base = writer.op(
      "tt.splat " + param + " : " + ptr + " -> " + tensorType(offset.shape, ptr),
      offset.shape, ptr);
  return writer.op("tt.addptr " + base.name + ", " + offset.name + " : " + base.type +
                       ", " + offset.type,
                   offset.shape, ptr);
}

Value loadTile(IndexBuilder& index, ir::ElementType element, const Value& address,
               const std::optional<Value>& mask) {
  TtirWriter& w = index.writer();
  std::string text = "tt.load " + address.name;
  if (mask) text += ", " + index.broadcast(*mask, address.shape).name;
  const Value loaded =
      w.op(text + " : " + address.type, address.shape, memoryType(element));
  return loadedToRegister(w, element, loaded);
}

void storeTile(IndexBuilder& index, ir::ElementType element, const Value& address,
               const Value& value, const std::optional<Value>& mask) {
  TtirWriter& w = index.writer();
  const Value stored =
      registerToStored(w, element, index.broadcast(value, address.shape));
  std::string text = "tt.store " + address.name + ", " + stored.name;
  if (mask) text += ", " + index.broadcast(*mask, address.shape).name;
  w.line(text + " : " + address.type);
}

}  // namespace jft::codegen::ttir
