#include "elementwise_kernel.h"

#include <cstdlib>
#include <fstream>

#include "codegen/ttir/elementwise.h"
#include "ir/builder.h"

namespace jft::codegen::ttir::testing {

StatusOr<Kernel> elementwiseKernel(const OpCase& c, Target target) {
  ir::Module module;
  ir::Builder b(module);
  auto args = b.beginFunction("main", c.operands, {c.result});
  ir::ValueId r = b.op1(c.kind, args, c.result, c.attrs);
  b.ret({r});
  const ir::Function& f = b.endFunction();
  const ir::Op& op = f.body.ops.front();

  TtirWriter w;
  w.setTarget(target);
  std::string params;
  for (size_t i = 0; i <= c.operands.size(); ++i) {
    const ir::ElementType e =
        i < c.operands.size() ? c.operands[i].element : c.result.element;
    params += (i ? ", " : "") + std::string(i < c.operands.size() ? "%in" : "%out") +
              (i < c.operands.size() ? std::to_string(i) : "") + ": !tt.ptr<" +
              memoryType(e) + "> {tt.divisibility = 16 : i32}";
  }
  Value offsets =
      w.op("tt.make_range {end = " + std::to_string(kLanes) +
               " : i32, start = 0 : i32} : tensor<" + std::to_string(kLanes) + "xi32>",
           {kLanes}, "i32");
  auto address = [&](const std::string& param, ir::ElementType e, bool scalar) {
    const std::string ptr = "!tt.ptr<" + memoryType(e) + ">";
    if (scalar) return Value{param, ptr, {}, ptr};
    Value base =
        w.op("tt.splat " + param + " : " + ptr + " -> " + tensorType({kLanes}, ptr),
             {kLanes}, ptr);
    return w.op("tt.addptr " + base.name + ", " + offsets.name + " : " + base.type +
                    ", " + offsets.type,
                {kLanes}, ptr);
  };
  std::vector<Value> operands;
  for (size_t i = 0; i < c.operands.size(); ++i) {
    const ir::ElementType e = c.operands[i].element;
    const bool scalar = c.operands[i].dims.empty();
    Value p = address("%in" + std::to_string(i), e, scalar);
    Value loaded = w.op("tt.load " + p.name + " : " + p.type, p.shape, memoryType(e));
    operands.push_back(loadedToRegister(w, e, loaded));
  }
  const size_t before = w.body().size();
  JFT_ASSIGN_OR_RETURN(Value result, emitElementwise(w, module, op, operands));
  Kernel k;
  k.op = w.body().substr(before);
  Value out = address("%out", c.result.element, c.result.dims.empty());
  Value stored = registerToStored(w, c.result.element, result);
  w.line("tt.store " + out.name + ", " + stored.name + " : " + out.type);
  w.line("tt.return");
  k.ttir = "module {\n  tt.func public @" + c.name + "(" + params +
           ") attributes {noinline = false} {\n" + w.body() + "  }\n}\n";
  return k;
}

bool dumpKernel(const OpCase& c, const Kernel& k) {
  const char* dir = std::getenv("JFT_TTIR_DUMP_DIR");
  if (!dir || !*dir) return false;
  std::ofstream(std::string(dir) + "/" + c.name + ".ttir") << k.ttir;
  std::string json = "{\"name\": \"" + c.name + "\", \"op\": \"" +
                     std::string(ir::opKindName(c.kind)) +
                     "\", \"lanes\": " + std::to_string(kLanes) + ", \"operands\": [";
  for (size_t i = 0; i < c.operands.size(); ++i)
    json += (i ? ", " : "") + std::string("{\"type\": \"") +
            std::string(ir::elementTypeName(c.operands[i].element)) +
            "\", \"scalar\": " + (c.operands[i].dims.empty() ? "true" : "false") + "}";
  json += "], \"result\": \"" + std::string(ir::elementTypeName(c.result.element)) + "\"";
  if (auto* d = ir::findAttrAs<ir::ComparisonDirection>(c.attrs, "comparison_direction"))
    json += ", \"direction\": \"" + std::string(ir::comparisonDirectionName(*d)) + "\"";
  for (const char* bits : {"exponent_bits", "mantissa_bits"})
    if (auto* v = ir::findAttrAs<int64_t>(c.attrs, bits))
      json += ", \"" + std::string(bits) + "\": " + std::to_string(*v);
  if (auto* t = ir::findAttrAs<ir::ComparisonType>(c.attrs, "compare_type"))
    json += ", \"compare_type\": \"" + std::string(ir::comparisonTypeName(*t)) + "\"";
  std::ofstream(std::string(dir) + "/" + c.name + ".json") << json << "}\n";
  return true;
}

}  // namespace jft::codegen::ttir::testing
