#include "codegen/ttir/horizontal.h"

#include <algorithm>
#include <string_view>

namespace jft::codegen::ttir {

namespace {

constexpr std::string_view kModuleOpen = "module {\n";
constexpr std::string_view kModuleClose = "}\n";
constexpr std::string_view kProgramId = "tt.get_program_id x : i32";

// One member's parts: its parameters' types (without their attributes) and
// its module as a private function of the program id.
struct Member {
  std::vector<std::string> types;
  std::string function;
};

size_t countOf(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos;
       at = text.find(what, at + what.size()))
    ++n;
  return n;
}

StatusOr<Member> asMember(const TtirKernel& kernel) {
  auto refuse = [&](const std::string& why) {
    return invalidArgument("kernel " + kernel.name +
                           " cannot join a combined launch: " + why);
  };
  if (kernel.isNative()) return refuse("it is a native kernel");
  if (kernel.grid[1] != 1 || kernel.grid[2] != 1) return refuse("its grid is not 1-D");
  if (!kernel.scratch.empty() || kernel.stage != 0) return refuse("it is one of stages");
  const std::string& text = kernel.ttir;
  const std::string header = "  tt.func public @" + kernel.name + "(";
  if (text.rfind(kModuleOpen, 0) != 0 || text.size() < kModuleClose.size() ||
      text.compare(text.size() - kModuleClose.size(), kModuleClose.size(),
                   kModuleClose) != 0 ||
      text.compare(kModuleOpen.size(), header.size(), header) != 0)
    return refuse("its module is not one public function");
  if (countOf(text, kProgramId) != 1 || countOf(text, "tt.func") != 1)
    return refuse("it does not read its program id once");
  const size_t params_at = kModuleOpen.size() + header.size();
  const size_t params_end = text.find(") attributes", params_at);
  const size_t body_at = text.find("{\n", params_end);
  if (params_end == std::string::npos || body_at == std::string::npos)
    return refuse("its header is not kernelModule's");
  Member member;
  // Parameters are "%name: type {attributes}", comma separated; only the
  // names start with '%'.
  const std::string params = text.substr(params_at, params_end - params_at);
  size_t start = 0;
  while (start < params.size()) {
    size_t end = params.find(", %", start);
    if (end == std::string::npos) end = params.size();
    const std::string param = params.substr(start, end - start);
    const size_t colon = param.find(": ");
    const size_t attrs = param.find(" {");
    if (colon == std::string::npos) return refuse("a parameter without a type");
    member.types.push_back(param.substr(
        colon + 2, attrs == std::string::npos ? std::string::npos : attrs - colon - 2));
    start = end + 2;
  }
  if (member.types.size() != kernel.inputs.size() + kernel.outputs.size())
    return refuse("its parameters are not its inputs and outputs");
  std::string function = text.substr(
      kModuleOpen.size(), text.size() - kModuleOpen.size() - kModuleClose.size());
  function.replace(0, header.size(),
                   "  tt.func private @" + kernel.name + "(%hpid: i32, ");
  const size_t open = function.find("{\n", function.find(") attributes"));
  function.insert(open + 2, "    %hzero = arith.constant 0 : i32\n");
  const size_t pid = function.find(kProgramId);
  function.replace(pid, kProgramId.size(), "arith.addi %hpid, %hzero : i32");
  member.function = std::move(function);
  return member;
}

}  // namespace

Status checkJoinable(const TtirKernel& kernel) {
  return asMember(kernel).status();
}

StatusOr<TtirKernel> combineKernels(const std::vector<TtirKernel>& members,
                                    const std::string& name) {
  if (members.size() < 2) return invalidArgument("a combined launch of fewer than two");
  std::vector<Member> parts;
  for (const TtirKernel& kernel : members) {
    JFT_ASSIGN_OR_RETURN(Member part, asMember(kernel));
    parts.push_back(std::move(part));
  }
  TtirKernel out;
  out.name = name;
  out.num_warps = 1;
  out.num_stages = 1;
  // The wrapper's parameters: all inputs, then all outputs.
  std::vector<std::vector<int>> order(members.size());
  std::vector<std::string> types;
  for (int pass = 0; pass < 2; ++pass)
    for (size_t m = 0; m < members.size(); ++m) {
      const size_t inputs = members[m].inputs.size();
      const size_t begin = pass == 0 ? 0 : inputs;
      const size_t end = pass == 0 ? inputs : parts[m].types.size();
      for (size_t i = begin; i < end; ++i) {
        order[m].push_back(static_cast<int>(types.size()));
        types.push_back(parts[m].types[i]);
      }
      const auto& values = pass == 0 ? members[m].inputs : members[m].outputs;
      (pass == 0 ? out.inputs : out.outputs)
          .insert((pass == 0 ? out.inputs : out.outputs).end(), values.begin(),
                  values.end());
    }
  std::string header;
  for (size_t p = 0; p < types.size(); ++p)
    header += (p ? ", " : "") + ("%p" + std::to_string(p)) + ": " + types[p] +
              " {tt.divisibility = 16 : i32}";
  std::string text(kModuleOpen);
  for (const Member& part : parts) text += part.function;
  text +=
      "  tt.func public @" + name + "(" + header + ") attributes {noinline = false} {\n";
  text += "    %pid = tt.get_program_id x : i32\n";
  uint64_t start = 0;
  for (size_t m = 0; m < members.size(); ++m) {
    const std::string g = std::to_string(m);
    const uint64_t end = start + members[m].grid[0];
    text += "    %lo" + g + " = arith.constant " + std::to_string(start) + " : i32\n";
    text += "    %hi" + g + " = arith.constant " + std::to_string(end) + " : i32\n";
    text += "    %ge" + g + " = arith.cmpi sge, %pid, %lo" + g + " : i32\n";
    text += "    %lt" + g + " = arith.cmpi slt, %pid, %hi" + g + " : i32\n";
    text += "    %in" + g + " = arith.andi %ge" + g + ", %lt" + g + " : i1\n";
    text += "    scf.if %in" + g + " {\n";
    text += "      %local" + g + " = arith.subi %pid, %lo" + g + " : i32\n";
    std::string args = "%local" + g, arg_types = "i32";
    for (int p : order[m]) {
      args += ", %p" + std::to_string(p);
      arg_types += ", " + types[static_cast<size_t>(p)];
    }
    text += "      tt.call @" + members[m].name + "(" + args + ") : (" + arg_types +
            ") -> ()\n";
    text += "    }\n";
    start = end;
    out.num_warps = std::max(out.num_warps, members[m].num_warps);
    out.num_stages = std::max(out.num_stages, members[m].num_stages);
    out.tile += (m ? " | " : "") + members[m].tile;  // side by side, not in turn
  }
  if (start > 0x7fffffffu)
    return invalidArgument(name + ": the combined grid is too large");
  text += "    tt.return\n  }\n";
  text += kModuleClose;
  out.ttir = std::move(text);
  out.grid = {static_cast<uint32_t>(start), 1, 1};
  return out;
}

}  // namespace jft::codegen::ttir
