// TTIR text -> Function: one op per line as TtirWriter writes it (the grammar
// tests/codegen/ttir_syntax.cc checks); regions nest by '{' ... '}' lines.
// Each op's result types and attributes are read here once, so the loops of
// a kernel run without re-reading text.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>

#include "interp_internal.h"
#include "ttir_text.h"

namespace jft::codegen::ttir::testing::interp {
namespace {

bool isOpen(char c) {
  return c == '<' || c == '(' || c == '[' || c == '{';
}
bool isClose(char c) {
  return c == '>' || c == ')' || c == ']' || c == '}';
}

// Splits at `sep` where no bracket is open ("->" is not a bracket).
std::vector<std::string_view> splitTop(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (depth == 0 && s.substr(i, sep.size()) == sep) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + sep.size();
      i += sep.size() - 1;
      continue;
    }
    if (isOpen(s[i])) ++depth;
    if (isClose(s[i]) && !(s[i] == '>' && i > 0 && s[i - 1] == '-')) --depth;
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

// The last top-level occurrence of `sep`, or npos.
size_t findLastTop(std::string_view s, std::string_view sep) {
  int depth = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (depth == 0 && s.substr(i, sep.size()) == sep) found = i;
    if (isOpen(s[i])) ++depth;
    if (isClose(s[i]) && !(s[i] == '>' && i > 0 && s[i - 1] == '-')) --depth;
  }
  return found;
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '#';
}

// The "%x" / "%x#1" tokens of `s` outside attribute dictionaries ("{...}").
std::vector<std::string> ssaTokens(std::string_view s) {
  std::vector<std::string> out;
  int braces = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '{') ++braces;
    if (s[i] == '}') --braces;
    if (braces > 0 || s[i] != '%') continue;
    size_t j = i + 1;
    while (j < s.size() && isNameChar(s[j])) ++j;
    out.emplace_back(s.substr(i, j - i));
    i = j - 1;
  }
  return out;
}

// An integer attribute "key = 12" in `s`.
std::optional<int64_t> intAttr(std::string_view s, std::string_view key) {
  const size_t at = s.find(std::string(key) + " = ");
  if (at == std::string_view::npos) return std::nullopt;
  return std::strtoll(std::string(s.substr(at + key.size() + 3)).c_str(), nullptr, 10);
}

class Parser {
 public:
  explicit Parser(std::string_view text) {
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      lines_.push_back(trim(text.substr(pos, end - pos)));
      pos = end + 1;
    }
  }

  StatusOr<Function> run() {
    Function f;
    for (; at_ < lines_.size(); ++at_) {
      const std::string_view l = lines_[at_];
      if (l.empty() || l.starts_with("//") || l == "module {") continue;
      if (!l.starts_with("tt.func")) return fail("expected tt.func");
      JFT_RETURN_IF_ERROR(funcHeader(l, f));
      ++at_;
      std::string_view closer;
      JFT_RETURN_IF_ERROR(block(f.body, &closer));
      if (closer != "}") return fail("tt.func closed by '" + std::string(closer) + "'");
      f.slots = static_cast<int>(slots_.size());
      return f;
    }
    return invalidArgument("no tt.func in the module");
  }

 private:
  Status fail(const std::string& what) const {
    const std::string line = at_ < lines_.size() ? std::string(lines_[at_]) : "";
    return invalidArgument("TTIR line " + std::to_string(at_ + 1) + ": " + what + ": " +
                           line);
  }
  Status unsupported(const std::string& what) const {
    return unimplemented("TTIR line " + std::to_string(at_ + 1) +
                         ": the interpreter does not support " + what + ": " +
                         std::string(lines_[at_]));
  }

  StatusOr<int> define(const std::string& name) {
    if (slots_.count(name)) return fail(name + " defined twice");
    const int slot = static_cast<int>(slots_.size());
    slots_[name] = slot;
    return slot;
  }
  StatusOr<int> use(const std::string& token) {
    auto it = slots_.find(token);
    if (it == slots_.end()) return fail(token + " used before it is defined");
    return it->second;
  }
  Status useAll(const std::vector<std::string>& tokens, std::vector<int>& into) {
    for (const std::string& t : tokens) {
      JFT_ASSIGN_OR_RETURN(int s, use(t));
      into.push_back(s);
    }
    return Status::ok();
  }
  StatusOr<Type> type(std::string_view s) const {
    StatusOr<Type> t = parseType(s);
    if (!t.isOk()) return fail(t.status().message());
    return t;
  }
  // "(T, U)" or "T" -> the types.
  Status typeList(std::string_view s, std::vector<Type>& into) const {
    s = trim(s);
    if (s.starts_with("(")) s = s.substr(1, s.size() - 2);
    if (trim(s).empty()) return Status::ok();
    for (std::string_view one : splitTop(s, ",")) {
      JFT_ASSIGN_OR_RETURN(Type t, type(one));
      into.push_back(t);
    }
    return Status::ok();
  }

  Status funcHeader(std::string_view l, Function& f) {
    const size_t at = l.find('@'), open = l.find('(', at);
    if (at == std::string_view::npos || open == std::string_view::npos)
      return fail("malformed tt.func");
    f.name = std::string(l.substr(at + 1, open - at - 1));
    int depth = 0;
    size_t close = open;
    for (; close < l.size(); ++close) {
      if (l[close] == '(') ++depth;
      if (l[close] == ')' && --depth == 0) break;
    }
    const std::string_view args = l.substr(open + 1, close - open - 1);
    if (trim(args).empty()) return Status::ok();
    for (std::string_view arg : splitTop(args, ",")) {
      const size_t colon = arg.find(':');
      if (colon == std::string_view::npos) return fail("malformed parameter");
      std::string_view t = arg.substr(colon + 1);
      if (const size_t brace = t.find('{'); brace != std::string_view::npos)
        t = t.substr(0, brace);
      JFT_ASSIGN_OR_RETURN(Type ty, type(t));
      JFT_ASSIGN_OR_RETURN(int slot, define(std::string(trim(arg.substr(0, colon)))));
      f.params.push_back(slot);
      f.param_types.push_back(ty);
    }
    return Status::ok();
  }

  // Ops up to the line that closes the block ("}", "} else {", "}) : ...").
  Status block(Region& region, std::string_view* closer) {
    for (; at_ < lines_.size(); ++at_) {
      const std::string_view l = lines_[at_];
      if (l.empty() || l.starts_with("//")) continue;
      if (l.starts_with("}")) {
        *closer = l;
        return Status::ok();
      }
      if (l.starts_with("^bb")) {
        const size_t open = l.find('('), close = l.rfind(')');
        for (std::string_view arg : splitTop(l.substr(open + 1, close - open - 1), ",")) {
          JFT_ASSIGN_OR_RETURN(int slot,
                               define(std::string(trim(arg.substr(0, arg.find(':'))))));
          region.args.push_back(slot);
        }
        continue;
      }
      Op op;
      JFT_RETURN_IF_ERROR(opLine(l, op));
      region.ops.push_back(std::move(op));
    }
    return fail("end of text inside a region");
  }

  Status opLine(std::string_view l, Op& op) {
    op.line = static_cast<int>(at_ + 1);
    op.text = std::string(l);
    std::vector<std::string> names;
    std::vector<int> counts;
    std::string_view rest = l;
    if (rest.starts_with("%")) {
      const size_t eq = rest.find(" = ");
      for (std::string_view r : splitTop(rest.substr(0, eq), ",")) {
        const size_t colon = r.find(':');
        names.emplace_back(r.substr(0, colon));
        counts.push_back(colon == std::string_view::npos
                             ? 1
                             : std::atoi(std::string(r.substr(colon + 1)).c_str()));
      }
      rest = rest.substr(eq + 3);
    }
    if (rest.starts_with("\"")) {
      const size_t q = rest.find('"', 1);
      op.name = std::string(rest.substr(1, q - 1));
      rest = rest.substr(q + 1);
    } else {
      const size_t sp = rest.find(' ');
      op.name = std::string(rest.substr(0, sp));
      rest = sp == std::string_view::npos ? "" : trim(rest.substr(sp + 1));
    }
    if (op.name == "scf.for") return scfFor(rest, names, counts, op);
    if (op.name == "scf.if") return scfIf(rest, names, counts, op);
    if (op.name == "tt.reduce") return reduce(rest, names, counts, op);
    if (l.ends_with("{")) return unsupported("region op " + op.name);
    JFT_RETURN_IF_ERROR(plainOp(rest, op));
    return defineResults(names, counts, op);
  }

  Status defineResults(const std::vector<std::string>& names,
                       const std::vector<int>& counts, Op& op) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (counts[i] == 1 && names.size() > 1) {
        JFT_ASSIGN_OR_RETURN(int s, define(names[i]));
        op.results.push_back(s);
        continue;
      }
      for (int k = 0; k < counts[i]; ++k) {
        const std::string n =
            counts[i] == 1 ? names[i] : names[i] + "#" + std::to_string(k);
        JFT_ASSIGN_OR_RETURN(int s, define(n));
        op.results.push_back(s);
      }
    }
    return Status::ok();
  }

  // Operands before the trailing " : types"; the result type by the op's form.
  Status plainOp(std::string_view rest, Op& op) {
    const size_t colon = findLastTop(rest, " : ");
    std::string_view head = rest, suffix;
    if (colon != std::string_view::npos) {
      head = rest.substr(0, colon);
      suffix = trim(rest.substr(colon + 3));
    }
    const std::string& n = op.name;
    if (n == "arith.constant") return constant(head, suffix, op);
    JFT_RETURN_IF_ERROR(useAll(ssaTokens(head), op.operands));
    if (n == "tt.get_program_id" || n == "tt.get_num_programs") {
      op.attr = std::string(trim(head));
      op.types.push_back(Type{{}, Elem::kI32, Elem::kI32, false});
      return Status::ok();
    }
    if (n == "tt.return" || n == "scf.yield" || n == "tt.reduce.return" ||
        n == "tt.store" || n == "gpu.barrier")
      return Status::ok();
    if (n == "arith.cmpi" || n == "arith.cmpf") {
      op.attr = std::string(trim(head.substr(0, head.find(','))));
      JFT_ASSIGN_OR_RETURN(Type t, type(suffix));
      t.elem = Elem::kI1;
      op.types.push_back(t);
      return Status::ok();
    }
    if (n == "tt.make_range") {
      auto start = intAttr(head, "start"), end = intAttr(head, "end");
      if (!start || !end) return fail("tt.make_range without start/end");
      op.ints = {*start, *end};
    }
    if (n == "tt.trans") {
      const size_t at = head.find("array<i32:");
      if (at == std::string_view::npos) return fail("tt.trans without its order");
      const std::string_view list = head.substr(at + 10, head.find('>', at) - at - 10);
      for (std::string_view d : splitTop(list, ","))
        op.ints.push_back(std::atoll(std::string(d).c_str()));
    }
    if (n == "tt.reshape" && head.find("allow_reorder") != std::string_view::npos)
      return unsupported(
          "tt.reshape with allow_reorder (its element order is unspecified)");
    if (n == "tt.expand_dims") {
      auto axis = intAttr(head, "axis");
      if (!axis) return fail("tt.expand_dims without an axis");
      op.ints = {*axis};
    }
    if (n == "tt.extern_elementwise") {
      const size_t at = head.find("symbol = \"");
      if (at == std::string_view::npos) return fail("extern_elementwise without symbol");
      op.attr = std::string(head.substr(at + 10, head.find('"', at + 10) - at - 10));
    }
    if (n == "tt.fp_to_fp") {
      if (head.find("rounding") != std::string_view::npos &&
          head.find("rtne") == std::string_view::npos)
        return unsupported("tt.fp_to_fp rounding other than rtne");
    }
    // The result type: after "to" (casts), "->" (shape ops, calls), the first
    // of "P, O" (addptr), the last of "C, T" (select), the pointee (load).
    std::string_view result = suffix;
    if (const size_t to = findLastTop(suffix, " to "); to != std::string_view::npos)
      result = suffix.substr(to + 4);
    else if (const size_t arrow = findLastTop(suffix, "->");
             arrow != std::string_view::npos)
      result = suffix.substr(arrow + 2);
    else if (n == "tt.addptr")
      result = splitTop(suffix, ",").front();
    else if (n == "arith.select")
      result = splitTop(suffix, ",").back();
    if (result.empty()) return fail("no result type");
    JFT_ASSIGN_OR_RETURN(Type t, type(result));
    if (n == "tt.load") {
      if (t.elem != Elem::kPtr) return fail("tt.load of a non-pointer");
      t.elem = t.pointee;
    }
    op.types.push_back(t);
    if (n == "tt.split") op.types.push_back(t);
    return Status::ok();
  }

  Status constant(std::string_view head, std::string_view suffix, Op& op) {
    head = trim(head);
    Type t{{}, Elem::kI1, Elem::kI1, false};
    if (head != "true" && head != "false") {
      JFT_ASSIGN_OR_RETURN(t, type(suffix));
    }
    std::string_view v = head;
    if (v.starts_with("dense<")) v = v.substr(6, v.size() - 7);
    if (v.starts_with("[")) return unsupported("a dense constant that is not a splat");
    auto c = std::make_shared<Tensor>(makeTensor(t));
    const std::string text(v);
    if (text == "true" || text == "false") {
      std::fill(c->ints.begin(), c->ints.end(), text == "true" ? 1 : 0);
    } else if (isFloat(t.elem)) {
      const double value =
          text.starts_with("0x")
              ? floatFromBits(std::strtoull(text.c_str() + 2, nullptr, 16), t.elem)
              : roundTo(std::strtod(text.c_str(), nullptr), t.elem);
      std::fill(c->floats.begin(), c->floats.end(), value);
    } else {
      const uint64_t bits =
          text.starts_with("0x")
              ? std::strtoull(text.c_str() + 2, nullptr, 16)
              : static_cast<uint64_t>(std::strtoll(text.c_str(), nullptr, 10));
      std::fill(c->ints.begin(), c->ints.end(), wrapInt(bits, t.elem));
    }
    op.constant = std::move(c);
    op.types.push_back(t);
    return Status::ok();
  }

  // %r:N = scf.for %iv = %lb to %ub step %s iter_args(%a = %x, ...) -> (T...) : i32 {
  Status scfFor(std::string_view rest, const std::vector<std::string>& names,
                const std::vector<int>& counts, Op& op) {
    const size_t eq = rest.find(" = "), to = rest.find(" to "),
                 step = rest.find(" step ");
    if (eq == std::string_view::npos || to == std::string_view::npos ||
        step == std::string_view::npos)
      return fail("malformed scf.for");
    const size_t iter = rest.find("iter_args(");
    const size_t bounds_end =
        iter != std::string_view::npos ? iter : findLastTop(rest, " : ");
    JFT_RETURN_IF_ERROR(useAll(ssaTokens(rest.substr(eq, bounds_end - eq)), op.operands));
    if (op.operands.size() != 3) return fail("scf.for bounds");
    Region body;
    JFT_ASSIGN_OR_RETURN(int iv, define(std::string(rest.substr(0, eq))));
    body.args.push_back(iv);
    std::vector<std::string> carried;
    if (iter != std::string_view::npos) {
      const size_t close = rest.find(')', iter);
      for (std::string_view pair :
           splitTop(rest.substr(iter + 10, close - iter - 10), ",")) {
        const size_t e = pair.find(" = ");
        carried.emplace_back(pair.substr(0, e));
        JFT_ASSIGN_OR_RETURN(int init, use(std::string(trim(pair.substr(e + 3)))));
        op.operands.push_back(init);
      }
      const size_t arrow = rest.find("-> ", close);
      JFT_RETURN_IF_ERROR(typeList(
          rest.substr(arrow + 3, findLastTop(rest, " : ") - arrow - 3), op.types));
    }
    for (const std::string& c : carried) {
      JFT_ASSIGN_OR_RETURN(int s, define(c));
      body.args.push_back(s);
    }
    ++at_;
    std::string_view closer;
    JFT_RETURN_IF_ERROR(block(body, &closer));
    if (closer != "}") return fail("scf.for closed by '" + std::string(closer) + "'");
    op.regions.push_back(std::move(body));
    return defineResults(names, counts, op);
  }

  // %r = scf.if %c -> (T...) {   ...   } else {   ...   }
  Status scfIf(std::string_view rest, const std::vector<std::string>& names,
               const std::vector<int>& counts, Op& op) {
    const size_t arrow = rest.find("->");
    JFT_RETURN_IF_ERROR(useAll(ssaTokens(rest.substr(0, arrow)), op.operands));
    if (arrow != std::string_view::npos)
      JFT_RETURN_IF_ERROR(
          typeList(trim(rest.substr(arrow + 2, rest.size() - arrow - 3)), op.types));
    for (int branch = 0; branch < 2; ++branch) {
      ++at_;
      Region r;
      std::string_view closer;
      JFT_RETURN_IF_ERROR(block(r, &closer));
      op.regions.push_back(std::move(r));
      if (closer == "}") break;
      if (closer != "} else {")
        return fail("scf.if closed by '" + std::string(closer) + "'");
    }
    return defineResults(names, counts, op);
  }

  // %r:N = "tt.reduce"(%a, ...) <{axis = 1 : i32}> ({ ^bb0(...): ... }) : (...) -> ...
  Status reduce(std::string_view rest, const std::vector<std::string>& names,
                const std::vector<int>& counts, Op& op) {
    const size_t close = rest.find(')');
    JFT_RETURN_IF_ERROR(useAll(ssaTokens(rest.substr(0, close)), op.operands));
    auto axis = intAttr(rest, "axis");
    if (!axis) return fail("tt.reduce without an axis");
    op.ints = {*axis};
    ++at_;
    Region combiner;
    std::string_view closer;
    JFT_RETURN_IF_ERROR(block(combiner, &closer));
    if (!closer.starts_with("})"))
      return fail("tt.reduce closed by '" + std::string(closer) + "'");
    const std::string_view signature = closer.substr(2);  // past "})"
    const size_t arrow = findLastTop(signature, "->");
    if (arrow == std::string_view::npos) return fail("tt.reduce without result types");
    JFT_RETURN_IF_ERROR(typeList(signature.substr(arrow + 2), op.types));
    op.regions.push_back(std::move(combiner));
    return defineResults(names, counts, op);
  }

  std::vector<std::string_view> lines_;
  size_t at_ = 0;
  std::map<std::string, int> slots_;
};

}  // namespace

StatusOr<Function> parseModule(std::string_view text) {
  return Parser(text).run();
}

}  // namespace jft::codegen::ttir::testing::interp
