// Unsupported-op listing.
#include "compiler/unsupported_ops.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "ir/printer.h"

namespace jft::compiler {
std::string describeOp(const ir::Module& module, const ir::Op& op) {
  std::string out = "stablehlo." + std::string(ir::opKindName(op.kind)) + " (";
  for (size_t i = 0; i < op.operands.size(); ++i)
    out += (i ? ", " : "") + ir::valueTypeText(module, op.operands[i]);
  out += ") -> ";
  if (op.results.size() == 1) return out + ir::valueTypeText(module, op.results[0]);
  out += "(";
  for (size_t i = 0; i < op.results.size(); ++i)
    out += (i ? ", " : "") + ir::valueTypeText(module, op.results[i]);
  return out + ")";
}

namespace {

std::string modeConsequence(Mode mode) {
  switch (mode) {
    case Mode::kFlOnly:
      return "XLA_MODE=fl_only allows no native fallback";
    case Mode::kBackUnsupported:
    case Mode::kBackFail:
      return std::string("XLA_MODE=") + modeName(mode) +
             ": neither the TTIR route nor the native route can run them";
    case Mode::kNative:
      return "XLA_MODE=native: the native route cannot run them";
  }
  return "";
}

}  // namespace

Status unsupportedOpsError(const ir::Module& module, const ir::Function& function,
                           Mode mode, std::vector<fusion::UnsupportedOp> ops) {
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.op < b.op; });
  std::set<std::tuple<size_t, std::string, std::string>> listed;
  std::string lines;
  for (const fusion::UnsupportedOp& u : ops) {
    const ir::Op* op =
        u.op < function.body.ops.size() ? &function.body.ops[u.op] : nullptr;
    std::string what = !u.what.empty() ? u.what
                       : op != nullptr ? describeOp(module, *op)
                                       : "op " + std::to_string(u.op);
    std::string location = !u.location.empty() ? u.location
                           : op != nullptr     ? module.locations.describe(op->loc)
                                               : "unknown location";
    if (!listed.insert({u.op, what, location}).second) continue;
    lines += "  " + what + " at " + location;
    if (!u.reason.empty()) lines += ": " + u.reason;
    lines += "\n";
  }
  std::string name = module.name.empty() ? "the program" : module.name;
  std::string count =
      std::to_string(listed.size()) + (listed.size() == 1 ? " op" : " ops");
  std::string message = name + ": " + count + " cannot be compiled (" +
                        modeConsequence(mode) + "):\n" + lines;
  message.pop_back();  // the last newline; Status messages end without one
  return unimplemented(message);
}

}  // namespace jft::compiler
